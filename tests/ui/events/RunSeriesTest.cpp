// RunSeries' bound on long runs: 10^6 metrics events stay within kMaxRows rows and a bounded
// number of bytes; a single spike survives; every bucket's rows are its exact min/max envelope;
// the first and last events, lastValue() and a checkpoint's losses stay exact; append() reports
// the first row it changed, so a view that truncates there (PlotPanel's MinMaxPyramid) matches one
// built from scratch; system readings keep only the newest kSystemKept, and SystemPanel still
// shows the latest.
#include <QTest>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include <qcustomplot.h>

#include "dashboard/MinMaxPyramid.h"
#include "dashboard/PlotPanel.h"
#include "dashboard/SystemPanel.h"
#include "events/RunSeries.h"

using namespace streetgan::ui;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Event i: step i, t 1000 + i / 10; loss D = f(i), loss G = -f(i), lr only every 10th event.
using Fn = std::function<double(int64_t)>;

EventBatch batch(int64_t first, int64_t n, const Fn& f) {
    EventBatch b;
    auto& m = b.metrics;
    for (int64_t i = first; i < first + n; ++i) {
        m.step.push_back(static_cast<double>(i));
        m.epoch.push_back(0);
        m.t.push_back(1000 + i / 10.0);
        for (int k = 0; k < kMetricCount; ++k) m.values[static_cast<size_t>(k)].push_back(kNaN);
        m[Metric::LossD].back() = f(i);
        m[Metric::LossG].back() = -f(i);
        if (i % 10 == 0) m[Metric::Lr].back() = 1e-4 + i * 1e-9;
    }
    b.firstT = first == 0 ? 1000 : 0;
    return b;
}

// Appends events [0, n) in batches of varying size; `each` sees every append's answer.
void feed(RunSeries& s, int64_t n, const Fn& f, const std::function<void(size_t)>& each = {}) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int64_t> size(1, 3000);
    for (int64_t i = 0; i < n;) {
        const int64_t k = std::min(n - i, i % 7 == 0 ? int64_t{1} : size(rng));
        const size_t from = s.append(batch(i, k, f));
        if (each) each(from);
        i += k;
    }
}

double noise(int64_t i) { return std::sin(static_cast<double>(i) * 0.37) * 0.5 + 0.5; }  // in [0, 1]

}  // namespace

class RunSeriesTest : public QObject {
    Q_OBJECT
private slots:
    void shortRunsAreExact() {
        RunSeries s;
        feed(s, 5000, noise);
        QCOMPARE(s.rows(), size_t{5000});
        QCOMPARE(s.bucketSize(), int64_t{1});
        for (size_t i = 0; i < 5000; ++i) {
            QCOMPARE(s.x(XAxisMode::Step, i), double(i));
            QCOMPARE(s.value(Metric::LossD, i), static_cast<float>(noise(static_cast<int64_t>(i))));
        }
    }

    void memoryBoundedAfterAMillionAppends() {
        RunSeries s;
        constexpr int64_t n = 1000000;
        feed(s, n, noise);
        QCOMPARE(s.metricsEvents(), n);
        QVERIFY(s.rows() <= RunSeries::kMaxRows);
        QVERIFY(s.rows() >= RunSeries::kMaxRows / 2);
        QVERIFY(s.bucketSize() > 1);
        // columns: 3 doubles + kMetricCount floats a row, at most twice kMaxRows of capacity
        const size_t perRow = 3 * sizeof(double) + kMetricCount * sizeof(float);
        QVERIFY2(s.memoryBytes() <= 2 * RunSeries::kMaxRows * perRow + 4096, qPrintable(QString::number(s.memoryBytes())));
        // 10^6 raw rows would have taken far more
        QVERIFY(s.memoryBytes() * 10 < static_cast<size_t>(n) * perRow);
        for (auto mode : {XAxisMode::Step, XAxisMode::Epoch, XAxisMode::WallTime})
            for (size_t i = 1; i < s.rows(); ++i) QVERIFY(s.x(mode, i) >= s.x(mode, i - 1));
    }

    void aSpikeSurvives() {
        constexpr int64_t n = 1000000, at = 612345;
        RunSeries s;
        feed(s, n, [](int64_t i) { return i == at ? 100.0 : i == at + 1000 ? -100.0 : noise(i); });
        const float* v = s.values(Metric::LossD);
        const auto hi = std::max_element(v, v + s.rows());
        QCOMPARE(*hi, 100.f);
        const size_t row = static_cast<size_t>(hi - v);
        // its row lies at the end of a bucket that holds the spike's step
        QVERIFY(s.x(XAxisMode::Step, row) >= double(at));
        QVERIFY(row > 0 && s.x(XAxisMode::Step, row - 1) <= double(at));
        QCOMPARE(*std::min_element(v, v + s.rows()), -100.f);
        QCOMPARE(*std::min_element(s.values(Metric::LossG), s.values(Metric::LossG) + s.rows()), -100.f);
        // and the plots' level of detail over the whole run still draws it
        MinMaxPyramid p;
        p.update(v, s.rows());
        float drawnMax = 0;
        p.forEachPoint(v, 0, s.rows(), 1000, [&](size_t, float value) { drawnMax = std::max(drawnMax, value); });
        QCOMPARE(drawnMax, 100.f);
    }

    void envelopeIsExact() {
        // Random values (not monotonic), the lr column mostly NaN: each bucket's two rows are the
        // min and max of exactly its events, at the x of its first and last event.
        constexpr int64_t n = 300001;
        std::vector<double> vals(n);
        std::mt19937 rng(11);
        std::normal_distribution<double> d;
        for (auto& x : vals) x = d(rng);
        const Fn f = [&](int64_t i) { return vals[static_cast<size_t>(i)]; };
        auto lr = [](int64_t i) { return i % 10 == 0 ? 1e-4 + i * 1e-9 : kNaN; };
        RunSeries s;
        feed(s, n, f);
        const int64_t b = s.bucketSize();
        QVERIFY(b >= 4);
        // layout: first event, full buckets of b events (2 rows), the partial one (0-2 rows), last
        const int64_t middle = n - 2, full = middle / b, partial = middle % b;
        QCOMPARE(s.rows(), size_t(1 + 2 * full + (partial == 0 ? 0 : partial == 1 ? 1 : 2) + 1));
        auto envelope = [&](int64_t a, int64_t e, const std::function<double(int64_t)>& g, bool wantMax) {
            double r = kNaN;
            for (int64_t i = a; i <= e; ++i) {
                const double x = static_cast<float>(g(i));
                if (x == x && !(wantMax ? r >= x : r <= x)) r = x;
            }
            return r;
        };
        auto same = [](double a, double b) { return (a != a && b != b) || a == b; };
        for (int64_t j = 0; j < full; ++j) {
            const size_t lo = static_cast<size_t>(1 + 2 * j), hi = lo + 1;
            const int64_t a = 1 + j * b, e = a + b - 1;
            QCOMPARE(s.x(XAxisMode::Step, lo), double(a));
            QCOMPARE(s.x(XAxisMode::Step, hi), double(e));
            QCOMPARE(s.wallTime(hi), 1000 + e / 10.0);
            QCOMPARE(double(s.value(Metric::LossD, lo)), envelope(a, e, f, false));
            QCOMPARE(double(s.value(Metric::LossD, hi)), envelope(a, e, f, true));
            QVERIFY(same(s.value(Metric::Lr, lo), envelope(a, e, lr, false)));
            QVERIFY(same(s.value(Metric::Lr, hi), envelope(a, e, lr, true)));
            QVERIFY(std::isnan(s.value(Metric::DX, lo)));
        }
        if (partial >= 2) {
            const size_t lo = static_cast<size_t>(1 + 2 * full);
            const int64_t a = 1 + full * b, e = n - 2;
            QCOMPARE(double(s.value(Metric::LossD, lo)), envelope(a, e, f, false));
            QCOMPARE(double(s.value(Metric::LossD, lo + 1)), envelope(a, e, f, true));
            QCOMPARE(s.x(XAxisMode::Step, lo + 1), double(e));
        }
    }

    void firstAndLastExact() {
        constexpr int64_t n = 250000;
        RunSeries s;
        feed(s, n, noise);
        QVERIFY(s.bucketSize() > 1);
        QCOMPARE(s.x(XAxisMode::Step, 0), 0.0);
        QCOMPARE(s.value(Metric::LossD, 0), static_cast<float>(noise(0)));
        const size_t last = s.rows() - 1;
        QCOMPARE(s.x(XAxisMode::Step, last), double(n - 1));
        QCOMPARE(s.wallTime(last), 1000 + (n - 1) / 10.0);
        QCOMPARE(s.value(Metric::LossD, last), static_cast<float>(noise(n - 1)));
        QCOMPARE(s.lastValue(Metric::LossD), noise(n - 1));         // the event's double, exact
        QCOMPARE(s.lastValue(Metric::Lr), 1e-4 + (n - 10) * 1e-9);  // last event with an lr
        QVERIFY(std::isnan(s.lastValue(Metric::DX)));
        // one more event: the new last row
        s.append(batch(n, 1, [](int64_t) { return 42.0; }));
        QCOMPARE(s.value(Metric::LossD, s.rows() - 1), 42.f);
        QCOMPARE(s.lastValue(Metric::LossD), 42.0);
    }

    void checkpointLossesExact() {
        RunSeries s;
        feed(s, 200000, noise);
        EventBatch b = batch(200000, 10, noise);
        b.checkpoints.push_back({200004, "checkpoints/epoch_0007.pt"});
        s.append(std::move(b));
        EventBatch c;
        c.checkpoints.push_back({200009, "checkpoints/epoch_0008.pt"});  // after the last metrics
        s.append(std::move(c));
        QCOMPARE(s.checkpointMetrics().size(), size_t{2});
        QCOMPARE(s.checkpointMetrics()[0].lossD, noise(200004));
        QCOMPARE(s.checkpointMetrics()[0].lossG, -noise(200004));
        QCOMPARE(s.checkpointMetrics()[0].t, 1000 + 200004 / 10.0);
        // after the last metrics, from an earlier batch: still the event's double, not its float row
        QCOMPARE(s.checkpointMetrics()[1].lossD, noise(200009));
        QCOMPARE(s.checkpointMetrics()[1].lossG, -noise(200009));
        QCOMPARE(s.checkpointMetrics()[1].t, 1000 + 200009 / 10.0);
    }

    void systemReadingsBounded() {
        // A week at one reading every 2 s would be ~300k readings; 20k (in batches of 1 to 3000,
        // several larger than kSystemKept alone) show the bound and that the newest are kept.
        RunSeries s;
        SystemPanel panel;
        panel.update(&s);
        QCOMPARE(panel.valueText("CPU"), QString("n/a"));
        const int64_t total = 20000;
        std::mt19937 rng(11);
        std::uniform_int_distribution<int64_t> size(1, 3000);
        for (int64_t i = 0; i < total;) {
            const int64_t k = std::min(total - i, size(rng));
            EventBatch b;
            for (int64_t j = i; j < i + k; ++j) {
                SystemSample r;
                r.t = 1000 + 2.0 * j;
                r.step = static_cast<double>(j);
                r.cpuPercent = static_cast<double>(j % 1000) / 10;
                r.rssMb = static_cast<double>(j);
                b.system.push_back(r);
            }
            s.append(std::move(b));
            i += k;
            QVERIFY(s.system().size() <= RunSeries::kSystemKept);
            QCOMPARE(s.system().back().step, static_cast<double>(i - 1));
        }
        QCOMPARE(s.systemReadings(), total);
        QCOMPARE(s.system().size(), RunSeries::kSystemKept);
        for (size_t k = 0; k < s.system().size(); ++k)  // the newest, in order, none skipped
            QCOMPARE(s.system()[k].step, static_cast<double>(total - static_cast<int64_t>(RunSeries::kSystemKept) + static_cast<int64_t>(k)));
        QVERIFY(s.memoryBytes() < size_t{64} * 1024);
        panel.update(&s);
        QCOMPARE(panel.valueText("CPU"), QString("99.9 %"));  // reading 19999
        QCOMPARE(panel.valueText("Memory"), QString("19999 MB"));
    }

    void sampleGridsCostTheirStep() {
        // A week of grids (one every 50 steps of a run logging every step): the trainer's names
        // are made again from the steps; any other name (a TensorBoard run's images, a padded
        // number, a step that does not match) comes back exactly as logged.
        RunSeries s;
        constexpr int64_t grids = 200000;
        for (int64_t i = 0; i < grids;) {
            EventBatch b;
            for (int64_t j = i; j < i + 1000; ++j) b.samples.push_back(RunFileRef{50 * j, "samples/step_" + std::to_string(50 * j) + ".png"});
            s.append(std::move(b));
            i += 1000;
        }
        const std::vector<RunFileRef> odd{{7, "samples/step_007.png"}, {8, "samples/step_9.png"},       {9, "images/fake/9.png"},
                                          {-3, "samples/step_-3.png"}, {10, "samples/step_10.png.tmp"}, {11, "Samples/step_11.png"}};
        EventBatch b;
        b.samples = odd;
        s.append(std::move(b));
        QCOMPARE(s.samples().size(), static_cast<size_t>(grids) + odd.size());
        QCOMPARE(s.samples().otherPaths(), size_t{5});  // step -3's name follows the rule
        for (int64_t j : {int64_t{0}, int64_t{1}, int64_t{12345}, grids - 1}) {
            QCOMPARE(s.samples()[static_cast<size_t>(j)].step, 50 * j);
            QCOMPARE(s.samples()[static_cast<size_t>(j)].path, "samples/step_" + std::to_string(50 * j) + ".png");
        }
        for (size_t k = 0; k < odd.size(); ++k) {
            QCOMPARE(s.samples()[static_cast<size_t>(grids) + k].step, odd[k].step);
            QCOMPARE(s.samples()[static_cast<size_t>(grids) + k].path, odd[k].path);
        }
        QCOMPARE(s.samples().back().path, odd.back().path);
        // ~8 bytes a grid (capacity up to twice that), not a string each (~90 bytes)
        QVERIFY2(s.samples().memoryBytes() <= 2 * sizeof(int64_t) * static_cast<size_t>(grids) + 4096, qPrintable(QString::number(s.samples().memoryBytes())));
    }

    void appendReportsTheFirstChangedRow() {
        // A view that keeps rows and drops them from append()'s answer (PlotPanel) ends equal to
        // one built from all the rows at once; rows before the answer never change.
        RunSeries s;
        MinMaxPyramid incremental;
        std::vector<float> before;  // the column after the previous append
        size_t changed = 0;
        feed(s, 150000, noise, [&](size_t from) {
            const float* v = s.values(Metric::LossD);
            for (size_t i = 0; i < std::min(from, before.size()); ++i) changed += v[i] != before[i];
            incremental.truncate(from);
            incremental.update(v, s.rows());
            before.assign(v, v + s.rows());
        });
        QCOMPARE(changed, size_t{0});
        MinMaxPyramid fresh;
        const float* v = s.values(Metric::LossD);
        fresh.update(v, s.rows());
        std::vector<std::pair<size_t, float>> a, b;
        incremental.forEachPoint(v, 0, s.rows(), 500, [&](size_t r, float x) { a.emplace_back(r, x); });
        fresh.forEachPoint(v, 0, s.rows(), 500, [&](size_t r, float x) { b.emplace_back(r, x); });
        QVERIFY(a.size() > 100);
        QVERIFY(a == b);
    }

    void plotFollowsTheRewrites() {
        // A plot fed append() by append() across compactions draws what a plot given the final
        // series at once draws, smoothing included.
        RunSeries s;
        PlotPanel live("loss", {Metric::LossD});
        live.resize(800, 400);
        live.setSmoothing(0.9);
        live.addRun(&s, "a", 0);
        feed(
            s, 120000, [](int64_t i) { return i == 77777 ? 50.0 : noise(i); }, [&](size_t from) { live.append(&s, from); });
        PlotPanel fresh("loss", {Metric::LossD});
        fresh.resize(800, 400);
        fresh.setSmoothing(0.9);
        fresh.addRun(&s, "a", 0);
        QVERIFY(s.bucketSize() > 1);
        QCOMPARE(live.pointCount(&s, Metric::LossD), static_cast<int>(s.rows()));
        for (double key : {0.0, 5000.0, 77777.0, 119999.0}) QCOMPARE(live.smoothedAt(&s, Metric::LossD, key), fresh.smoothedAt(&s, Metric::LossD, key));
        for (PlotPanel* p : {&live, &fresh}) p->plot()->replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(live.drawnPointCount(&s, Metric::LossD), fresh.drawnPointCount(&s, Metric::LossD));
        QCOMPARE(live.plot()->yAxis->range().upper, fresh.plot()->yAxis->range().upper);
        QVERIFY(live.plot()->yAxis->range().upper >= 50);
    }
};

QTEST_MAIN(RunSeriesTest)
#include "RunSeriesTest.moc"
