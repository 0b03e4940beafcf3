// The dashboard, samples, system and cost panels fed a recorded run directory (RunSession reads
// events.jsonl on a worker, then attach confirms the end): points per plot, x modes, smoothing,
// log-y, hover read-out, exports, the starving banner; the raw series under the smoothed one, the
// empty states, the crosshair, relative and wall-clock time, the legend outside the data; the
// system panel showing only what is measured (hidden rows and why), the cost panel local (wall
// time, energy, no price) and remote (per-host instance price, images per dollar), a real short
// CPU run's system reading.
#include <qcustomplot.h>

#include <QDateTime>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <limits>

#include <QComboBox>
#include <QLabel>
#include <QVBoxLayout>

#include "app/AppSettings.h"
#include "dashboard/CostPanel.h"
#include "dashboard/DashboardPage.h"
#include "dashboard/PlotPanel.h"
#include "dashboard/SamplesPage.h"
#include "dashboard/SystemPanel.h"
#include "runs/RunSession.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;

class DashboardTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    // The system and cost panels as the dock shows them, for a screenshot.
    static QImage panels(SystemPanel* sys, CostPanel* cost) {
        QWidget w;
        auto* layout = new QVBoxLayout(&w);
        layout->addWidget(new QLabel("<b>System</b>"));
        layout->addWidget(sys);
        layout->addWidget(new QLabel("<b>Cost</b>"));
        layout->addWidget(cost);
        w.resize(380, w.sizeHint().height());
        w.show();
        QCoreApplication::processEvents();
        QImage img = w.grab().toImage();
        sys->setParent(nullptr);
        cost->setParent(nullptr);
        return img;
    }

    static void waitLoaded(RunSession& s, int rows) {
        QSignalSpy loaded(&s, &RunSession::loaded);
        QVERIFY(loaded.wait(streetgan::test::kWaitMs));
        QTRY_COMPARE_WITH_TIMEOUT(s.series().rows(), size_t(rows), streetgan::test::kWaitMs);
    }

private slots:
    void initTestCase() { streetgan::test::isolateSettings(tmp_.filePath("settings")); }

    void pointsPerPlot() {
        const QString dir = tmp_.filePath("run-a");
        const auto rec = streetgan::test::writeRun(dir, 3000, 500);
        DashboardPage page;
        page.resize(1200, 800);
        page.show();
        RunSession s(dir, STREETGAN_TRAINER);
        QSignalSpy appended(&s, &RunSession::appended);
        page.addSession(&s);
        s.start();
        waitLoaded(s, rec.metrics);
        QVERIFY(appended.count() >= 1);
        for (PlotPanel* p : page.panels())
            for (int m = 0; m < kMetricCount; ++m) {
                const int n = p->pointCount(&s.series(), static_cast<Metric>(m));
                QVERIFY(n == -1 || n == rec.metrics);
            }
        QCOMPARE(page.panels()[0]->pointCount(&s.series(), Metric::LossD), rec.metrics);
        QCOMPARE(page.panels()[0]->pointCount(&s.series(), Metric::LossG), rec.metrics);
        QCOMPARE(page.panelOf(Metric::DGz2)->pointCount(&s.series(), Metric::DGz2), rec.metrics);
        QCOMPARE(page.panelOf(Metric::GradNormG)->pointCount(&s.series(), Metric::GradNormG), rec.metrics);
        QCOMPARE(page.panelOf(Metric::Lr)->pointCount(&s.series(), Metric::Lr), rec.metrics);
        QCOMPARE(s.series().samples().size(), size_t(rec.samples));
        QCOMPARE(s.series().system().size(), size_t(rec.system));
        QCOMPARE(s.series().stepsPerEpoch(), int64_t{100});
        // attach reports the end of the finished run
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s.series().state()), QString("finished"), streetgan::test::kWaitMs);

        // x by epoch and by wall time keep every point, sorted
        page.setXMode(XAxisMode::Epoch);
        auto* loss = page.panels()[0]->plot();
        QCOMPARE(page.panels()[0]->pointCount(&s.series(), Metric::LossD), rec.metrics);
        loss->replot(QCustomPlot::rpImmediateRefresh);
        auto lastKey = [&] { return loss->graph(0)->data()->at(loss->graph(0)->data()->size() - 1)->key; };
        QCOMPARE(lastKey(), 30.0);
        page.setXMode(XAxisMode::WallTime);
        loss->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(std::abs(lastKey() - 300.0) < 1e-3);
        page.setXMode(XAxisMode::Step);

        // smoothing: a smoothed graph with every point, the raw one kept (faint)
        page.setSmoothing(0.9);
        loss->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(loss->graph(1)->visible());
        QVERIFY(loss->graph(1)->data()->size() > 100);
        QCOMPARE(page.panels()[0]->pointCount(&s.series(), Metric::LossD), rec.metrics);
        const double raw = s.series().value(Metric::LossD, 1999);
        const double smooth = page.panels()[0]->smoothedAt(&s.series(), Metric::LossD, 2000);
        QVERIFY(std::isfinite(smooth));
        QVERIFY(raw != smooth);
        // level of detail: never more than a few points per pixel handed to QCustomPlot
        QVERIFY(page.panels()[0]->drawnPointCount(&s.series(), Metric::LossD) <= 2 * loss->axisRect()->width() + 16);
        page.setSmoothing(0);
        QVERIFY(!loss->graph(1)->visible());

        // zoom one plot: the others follow; the drawn points are the visible rows only
        page.panels()[0]->plot()->setFocus();
        QTest::mousePress(loss, Qt::LeftButton, Qt::NoModifier, loss->axisRect()->center());  // marks a user view
        QTest::mouseRelease(loss, Qt::LeftButton, Qt::NoModifier, loss->axisRect()->center());
        loss->xAxis->setRange(1000, 1100);
        QCOMPARE(page.panelOf(Metric::ImgPerS)->plot()->xAxis->range().lower, 1000.0);
        QCOMPARE(page.panelOf(Metric::Lr)->plot()->xAxis->range().upper, 1100.0);
        loss->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(page.panels()[0]->drawnPointCount(&s.series(), Metric::LossD) <= 104);  // 101 rows + one each side
        QVERIFY(page.panels()[0]->drawnPointCount(&s.series(), Metric::LossD) >= 101);
        for (auto* p : page.panels()) p->resetView();
        QCOMPARE(loss->xAxis->range().upper, 3000.0);

        page.setLogY(true);
        QCOMPARE(loss->yAxis->scaleType(), QCPAxis::stLogarithmic);
        page.setLogY(false);

        const QString readout = page.panels()[0]->readoutAt(1500);
        QVERIFY2(readout.contains("step 1500"), qPrintable(readout));
        QVERIFY(readout.contains(QString::number(1.0 + std::sin(1500 / 30.0) * 0.3, 'g', 6)));

        // exports
        const QString out = tmp_.filePath("export");
        QDir().mkpath(out);
        QCOMPARE(page.exportPlots(out, "png").size(), page.panels().size());
        QCOMPARE(page.exportPlots(out, "svg").size(), page.panels().size());
        QVERIFY(QImage(out + "/loss.png").width() > 100);
        QFile svg(out + "/loss.svg");
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("<svg"));
        QSignalSpy csv(&page, &DashboardPage::csvExported);
        page.exportCsv(&s, out + "/metrics.csv");
        QVERIFY(csv.wait(streetgan::test::kWaitMs));
        QVERIFY(csv.at(0).at(0).toBool());
        QFile f(out + "/metrics.csv");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().split('\n');
        QCOMPARE(lines.size(), rec.metrics + 2);  // header, rows, empty after the last newline
        QVERIFY(lines[0].startsWith("step,epoch,t,loss_d,loss_g"));
    }

    void overlaidRuns() {
        const QString a = tmp_.filePath("ov-a"), b = tmp_.filePath("ov-b");
        streetgan::test::writeRun(a, 400, 0);
        streetgan::test::writeRun(b, 250, 0);
        DashboardPage page;
        RunSession sa(a, STREETGAN_TRAINER), sb(b, STREETGAN_TRAINER);
        page.addSession(&sa);
        page.addSession(&sb);
        sa.start();
        sb.start();
        QTRY_COMPARE_WITH_TIMEOUT(page.panels()[0]->pointCount(&sa.series(), Metric::LossD), 400, streetgan::test::kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(page.panels()[0]->pointCount(&sb.series(), Metric::LossD), 250, streetgan::test::kWaitMs);
        QCOMPARE(page.panels()[0]->plot()->graphCount(), 8);  // 2 runs x 2 metrics x (raw, smoothed)
        page.removeSession(&sb);
        QCOMPARE(page.panels()[0]->plot()->graphCount(), 4);
    }

    // Issue 41 item 10: on a small plot (the Dashboard's at 1280x800) tick labels never run
    // together ("10001250") and the waiting text stays inside the plot.
    void smallPlotsKeepTheirTextApart() {
        RunSeries lr;
        EventBatch b;
        for (int i = 0; i <= 40; ++i) {
            b.metrics.t.push_back(1.7e9 + i);
            b.metrics.step.push_back(1000 + 25 * i);  // 1000 .. 2000
            b.metrics.epoch.push_back(i / 40.0);
        }
        for (auto& col : b.metrics.values) col.assign(41, std::numeric_limits<double>::quiet_NaN());
        for (int i = 0; i <= 40; ++i) b.metrics[Metric::LossD][static_cast<size_t>(i)] = 1e-4 * (1 + i % 3);
        lr.append(std::move(b));
        for (int width : {130, 200, 420}) {
            PlotPanel p("learning rate", {Metric::LossD});
            p.resize(width, 170);
            p.show();
            p.addRun(&lr, "r", QColor(Qt::darkGreen));
            QVERIFY(QTest::qWaitForWindowExposed(&p));
            p.plot()->replot(QCustomPlot::rpImmediateRefresh);
            p.plot()->replot(QCustomPlot::rpImmediateRefresh);  // ticks fitted to the laid-out axis rect
            for (QCPAxis* axis : {p.plot()->xAxis, p.plot()->yAxis}) {
                const QFontMetrics fm(axis->tickLabelFont());
                const QVector<double> ticks = axis->tickVector();
                const QVector<QString> labels = axis->tickVectorLabels();
                QVERIFY(ticks.size() >= 2);
                for (int i = 1; i < ticks.size(); ++i) {
                    const double a = axis->coordToPixel(ticks[i - 1]), c = axis->coordToPixel(ticks[i]);
                    const double need =
                        axis == p.plot()->xAxis ? (fm.horizontalAdvance(labels[i - 1]) + fm.horizontalAdvance(labels[i])) / 2.0 + 2 : fm.height() + 1;
                    QVERIFY2(
                        std::abs(c - a) >= need,
                        qPrintable(
                            QString("width %1: '%2' and '%3' %4 px apart, need %5").arg(width).arg(labels[i - 1], labels[i]).arg(std::abs(c - a)).arg(need)));
                }
            }
        }
        // Issue 41 item 3: a run whose trainer logs no data wait (a TensorBoard run of the reference)
        // says so on that panel instead of blank axes; a panel with data says nothing.
        PlotPanel dataWait("data wait", {Metric::DataWait});
        dataWait.addRun(&lr, "dcgan-msls", QColor(Qt::blue));
        QCOMPARE(dataWait.emptyText(), QString("data wait: not logged by the trainer of dcgan-msls"));
        QCOMPARE(dataWait.plot()->graph(0)->name(), QString("dcgan-msls"));  // the panel's text says it, not the legend too
        PlotPanel logged("loss", {Metric::LossD});
        logged.addRun(&lr, "dcgan-msls", QColor(Qt::blue));
        QCOMPARE(logged.emptyText(), QString());
        // Beside a run that logs it, the silent run is named so in the legend (it drew no line).
        RunSeries ours;
        EventBatch o;
        o.metrics.t.push_back(1.7e9);
        o.metrics.step.push_back(1);
        o.metrics.epoch.push_back(0);
        for (auto& col : o.metrics.values) col.assign(1, 0.25);
        ours.append(std::move(o));
        PlotPanel mixed("data wait", {Metric::DataWait});
        mixed.addRun(&ours, "tiny", QColor(Qt::red));
        mixed.addRun(&lr, "dcgan-msls", QColor(Qt::blue));
        QCOMPARE(mixed.emptyText(), QString());
        QStringList legend;
        for (int i = 0; i < mixed.plot()->graphCount(); ++i) legend << mixed.plot()->graph(i)->name();
        QVERIFY2(legend.contains("tiny") && legend.contains("dcgan-msls (not logged)") && !legend.contains("dcgan-msls"), qPrintable(legend.join("|")));

        RunSeries none;
        PlotPanel waiting("learning rate", {Metric::LossD});
        waiting.resize(200, 170);
        waiting.show();
        waiting.addRun(&none, "r", QColor(Qt::red), "gpubox-with-a-long-name.example.org");
        QVERIFY(QTest::qWaitForWindowExposed(&waiting));
        waiting.plot()->replot(QCustomPlot::rpImmediateRefresh);
        waiting.plot()->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(waiting.emptyText().startsWith("Waiting for the first event from gpubox-with-a-long-name.example.org"));
        auto* text = qobject_cast<QCPItemText*>(waiting.plot()->item(0));
        QVERIFY(text);
        const QFontMetrics fm(text->font());
        for (const QString& line : text->text().split('\n'))
            QVERIFY2(fm.horizontalAdvance(line) <= waiting.plot()->axisRect()->rect().width(), qPrintable(line));
    }

    // Issue 48: past RunSeries::kMaxRows rows a run is kept as bucket extremes; the plot says so in
    // its corner, and a one-event spike is still drawn.
    void decimatedSeriesSaySo() {
        RunSeries r;
        PlotPanel p("loss", {Metric::LossD});
        p.resize(500, 300);
        p.addRun(&r, "r", QColor(Qt::blue));
        const auto feed = [&](int64_t from, int64_t to) {
            EventBatch b;
            for (int64_t i = from; i < to; ++i) {
                b.metrics.t.push_back(1.7e9 + static_cast<double>(i));
                b.metrics.step.push_back(static_cast<double>(i));
                b.metrics.epoch.push_back(0);
                for (auto& col : b.metrics.values) col.push_back(std::numeric_limits<double>::quiet_NaN());
                b.metrics[Metric::LossD].back() = i == 50001 ? 1000.0 : 1.0 + 0.001 * static_cast<double>(i % 7);
            }
            p.append(&r, r.append(std::move(b)));
            p.plot()->replot(QCustomPlot::rpImmediateRefresh);
        };
        feed(0, 1000);
        QCOMPARE(r.bucketSize(), int64_t{1});
        QVERIFY2(p.decimationText().isEmpty(), qPrintable(p.decimationText()));
        for (int64_t i = 1000; i < 100000; i += 10000) feed(i, i + 10000);
        QVERIFY(r.bucketSize() > 1);
        QCOMPARE(p.decimationText(), QString("min/max of every %1 events").arg(r.bucketSize()));
        double top = 0;
        const auto data = p.rawGraph(&r, Metric::LossD)->data();
        for (auto it = data->constBegin(); it != data->constEnd(); ++it) top = std::max(top, it->value);
        QCOMPARE(top, 1000.0);
    }

    // Issue 48: a plot not on screen (another page or tab) draws nothing while a run is followed,
    // its graphs' data kept up to date; it is drawn once shown.
    void aHiddenPlotDrawsOnceShown() {
        RunSeries r;
        QTabWidget tabs;
        auto* p = new PlotPanel("loss", {Metric::LossD});
        tabs.addTab(p, "plot");
        tabs.addTab(new QWidget, "other");
        tabs.resize(500, 300);
        tabs.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tabs));
        p->addRun(&r, "r", QColor(Qt::blue));
        QSignalSpy drawn(p->plot(), &QCustomPlot::afterReplot);
        const auto feed = [&](int64_t from, int64_t to) {
            EventBatch b;
            for (int64_t i = from; i < to; ++i) {
                b.metrics.t.push_back(1.7e9 + static_cast<double>(i));
                b.metrics.step.push_back(static_cast<double>(i));
                b.metrics.epoch.push_back(0);
                for (auto& col : b.metrics.values) col.push_back(1.0 + 0.01 * static_cast<double>(i));
            }
            p->append(&r, r.append(std::move(b)));
            p->replot();
        };
        feed(0, 10);
        QTRY_VERIFY_WITH_TIMEOUT(drawn.count() > 0, streetgan::test::kWaitMs);  // on screen: drawn
        tabs.setCurrentIndex(1);
        QTRY_VERIFY_WITH_TIMEOUT(!p->isVisible(), streetgan::test::kWaitMs);
        QCoreApplication::processEvents();
        drawn.clear();
        for (int64_t i = 10; i < 100; i += 10) {
            feed(i, i + 10);
            QCoreApplication::processEvents();
        }
        QCOMPARE(drawn.count(), 0);
        const auto data = p->rawGraph(&r, Metric::LossD)->data();
        QCOMPARE(data->at(data->size() - 1)->key, 99.0);  // the data is current (an export draws it)
        tabs.setCurrentIndex(0);
        QTRY_VERIFY_WITH_TIMEOUT(drawn.count() >= 1, streetgan::test::kWaitMs);
    }

    void rawBehindEmptyStatesAndCrosshair() {
        const QString dir = tmp_.filePath("run-c");
        streetgan::test::writeRun(dir, 300, 0);
        DashboardPage page;
        page.resize(1200, 800);
        page.show();
        PlotPanel* loss = page.panels()[0];
        QVERIFY2(loss->emptyText().contains("no run selected", Qt::CaseInsensitive), qPrintable(loss->emptyText()));
        RunSession s(dir, STREETGAN_TRAINER);
        page.addSession(&s);
        // added, nothing read yet: what is awaited, and from where
        QVERIFY2(loss->emptyText().contains("waiting for the first event from this computer", Qt::CaseInsensitive), qPrintable(loss->emptyText()));
        s.start();
        QTRY_COMPARE_WITH_TIMEOUT(loss->pointCount(&s.series(), Metric::LossD), 300, streetgan::test::kWaitMs);
        QVERIFY(loss->emptyText().isEmpty());
        // a remote run's host is named
        RunSeries empty;
        PlotPanel lone("loss", {Metric::LossD});
        lone.addRun(&empty, "r", QColor(Qt::red), "gpu-box");
        QVERIFY2(lone.emptyText().contains("waiting for the first event from gpu-box", Qt::CaseInsensitive), qPrintable(lone.emptyText()));

        // Issue 41 item 8: a series of one point (metrics/swd logged once) is a dot, not nothing;
        // a second point makes it a line again.
        RunSeries once;
        EventBatch one;
        one.metrics.t = {1.7e9};
        one.metrics.step = {400};
        one.metrics.epoch = {1};
        for (auto& col : one.metrics.values) col = {std::numeric_limits<double>::quiet_NaN()};
        one.metrics[Metric::LossD] = {150.6};
        once.append(std::move(one));
        PlotPanel swd("metrics/swd", {Metric::LossD});
        swd.resize(400, 300);
        swd.addRun(&once, "r", QColor(Qt::blue));
        swd.plot()->replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(swd.drawnPointCount(&once, Metric::LossD), 1);
        QCOMPARE(swd.rawGraph(&once, Metric::LossD)->scatterStyle().shape(), QCPScatterStyle::ssDisc);
        EventBatch two;
        two.metrics.t = {1.7e9 + 60};
        two.metrics.step = {800};
        two.metrics.epoch = {2};
        for (auto& col : two.metrics.values) col = {std::numeric_limits<double>::quiet_NaN()};
        two.metrics[Metric::LossD] = {120.0};
        swd.append(&once, once.append(std::move(two)));
        swd.plot()->replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(swd.drawnPointCount(&once, Metric::LossD), 2);
        QCOMPARE(swd.rawGraph(&once, Metric::LossD)->scatterStyle().shape(), QCPScatterStyle::ssNone);

        // smoothing on: the raw series faint (same colour, lower alpha) on a layer under the smoothed one
        page.setSmoothing(0.8);
        loss->plot()->replot(QCustomPlot::rpImmediateRefresh);
        QCPGraph* raw = loss->rawGraph(&s.series(), Metric::LossD);
        QCPGraph* smooth = loss->smoothGraph(&s.series(), Metric::LossD);
        QVERIFY(raw && smooth && smooth->visible());
        QVERIFY(raw->layer()->index() < smooth->layer()->index());
        QVERIFY(raw->pen().color().alpha() < smooth->pen().color().alpha());
        QCOMPARE(raw->pen().color().rgb(), smooth->pen().color().rgb());
        QVERIFY(loss->plot()->legend->hasItemWithPlottable(smooth));
        QVERIFY(!loss->plot()->legend->hasItemWithPlottable(raw));
        // the legend is a row above the axis rect, not an inset over the data
        QCOMPARE(loss->plot()->axisRect()->insetLayout()->elementCount(), 0);
        QVERIFY(loss->plot()->legend->outerRect().bottom() <= loss->plot()->axisRect()->rect().top());

        // the crosshair: a line and each series' value at that x, raw and smoothed
        loss->showCrosshair(150);
        QVERIFY(loss->crosshairVisible());
        const QString text = loss->crosshairText();
        QVERIFY2(text.startsWith("step 150\n"), qPrintable(text));
        QVERIFY(text.contains("loss D · run-c: " + QString::number(1.0 + std::sin(150 / 30.0) * 0.3, 'g', 6)));
        QVERIFY(text.contains("loss G · run-c: "));
        QVERIFY(text.contains("(smoothed "));
        loss->showCrosshair(5000);  // right of every series: nothing to read there
        QVERIFY(!loss->crosshairVisible());
        // the mouse does the same
        loss->plot()->replot(QCustomPlot::rpImmediateRefresh);
        const QPoint at(static_cast<int>(loss->plot()->xAxis->coordToPixel(100)), loss->plot()->axisRect()->center().y());
        QTest::mouseMove(loss->plot(), at);
        // the pointer's step, within the pixel it covers (~1 step here)
        const auto stepRead = [&] { return loss->crosshairText().section('\n', 0, 0).section(' ', 1, 1).toDouble(); };
        QTRY_VERIFY2(std::abs(stepRead() - 100) <= 2, qPrintable(loss->crosshairText()));

        // x: time since the start (h:mm:ss), wall-clock time
        page.setXAxis(PlotXAxis::Relative);
        loss->plot()->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(std::abs(raw->data()->at(raw->data()->size() - 1)->key - 30.0) < 1e-3);  // 300 events, 0.1 s apart
        QVERIFY2(loss->readoutAt(15).startsWith("time since start 0:00:15"), qPrintable(loss->readoutAt(15)));
        page.setXAxis(PlotXAxis::WallClock);
        loss->plot()->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(std::abs(raw->data()->at(0)->key - (1.75e9 + 0.1)) < 1e-3);
        QVERIFY(loss->readoutAt(1.75e9 + 15).contains(QDateTime::fromSecsSinceEpoch(1750000015).toString("hh:mm:ss")));
        page.setXMode(XAxisMode::Step);
        QCOMPARE(loss->xAxisChoice(), PlotXAxis::Step);
        page.setSmoothing(0);
        QCOMPARE(raw->pen().color().alpha(), 255);
        page.removeSession(&s);
    }

    void samplesSystemAndCost() {
        const QString dir = tmp_.filePath("run-b");
        const auto rec = streetgan::test::writeRun(dir, 600, 100, 0.45, "");  // looks alive, data-starved
        RunSession s(dir, STREETGAN_TRAINER);
        SamplesPage samples;
        samples.resize(600, 500);
        samples.show();
        samples.setSession(&s);
        QSignalSpy shown(&samples, &SamplesPage::imageShown);
        s.start();
        QTRY_COMPARE_WITH_TIMEOUT(s.series().rows(), size_t(rec.metrics), streetgan::test::kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(samples.hasImage(), streetgan::test::kWaitMs);
        QCOMPARE(samples.count(), rec.samples);
        QCOMPARE(samples.currentIndex(), rec.samples - 1);
        samples.showIndex(0);
        QTRY_COMPARE_WITH_TIMEOUT(shown.last().at(0).toInt(), 0, streetgan::test::kWaitMs);
        if (const QString keep = qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR"); !keep.isEmpty()) samples.grab().save(keep + "/samples-page.png");
        // Hidden, the page loads no grid (a run followed for days writes one every few seconds);
        // shown again, it loads the one its slider is on.
        samples.hide();
        samples.showIndex(1);
        QVERIFY(!samples.hasImage());
        QCOMPARE(samples.currentIndex(), 1);
        samples.show();
        QTRY_VERIFY_WITH_TIMEOUT(samples.hasImage() && shown.last().at(0).toInt() == 1, streetgan::test::kWaitMs);

        SystemPanel sys;
        sys.update(&s.series());
        QCOMPARE(sys.valueText("CPU"), QString("87.5 %"));
        QCOMPARE(sys.valueText("Data read"), QString("42.5 MB/s"));
        QVERIFY(sys.rowShown("CPU") && sys.rowShown("Memory") && sys.rowShown("Data read"));
        // a CPU run (events of a trainer before "unavailable"): the GPU rows hidden, the device says why
        QCOMPARE(sys.valueText("GPU"), QString("n/a"));
        QVERIFY(!sys.rowShown("GPU") && !sys.rowShown("GPU memory"));
        QCOMPARE(sys.noteText(), QString("GPU and GPU memory: not shown — this run trains on the CPU."));
        // the last status says running (the run directory has no live trainer, but the events say so)
        s.series().setState("running");
        sys.update(&s.series());
        QVERIFY(sys.bannerVisible());
        QVERIFY2(sys.bannerText().contains("data pack"), qPrintable(sys.bannerText()));
        // the trainer's advice, when it gave one, says what to do instead of the general rule
        EventBatch advice;
        advice.loaderAdvice = "the loader holds the step back: give --loader-threads 6 (this machine has 8 cores)";
        s.series().append(std::move(advice));
        sys.update(&s.series());
        QVERIFY2(sys.bannerText().endsWith("The trainer says: the loader holds the step back: give --loader-threads 6 (this machine has 8 cores)"),
                 qPrintable(sys.bannerText()));
        s.series().setState("finished");
        sys.update(&s.series());
        QVERIFY(!sys.bannerVisible());

        // local: wall time and images/hour, no cloud price; energy not reported by this trainer
        CostPanel cost;
        cost.update(&s.series());
        QVERIFY(!cost.rowShown("Instance") && !cost.rowShown("Price") && !cost.rowShown("Images/$") && !cost.rowShown("Cost so far"));
        QCOMPARE(cost.valueText("Wall time"), QString("0:01:00"));  // the first event to the last metrics, 600 x 0.1 s
        QVERIFY(!cost.rowShown("Energy"));
        QVERIFY2(cost.noteText().startsWith("Energy: not measurable — the trainer did not report it"), qPrintable(cost.noteText()));
        QVERIFY(!cost.grab().isNull());
        // the same run flagged remote: the host's instance and price; images per dollar
        const RunContext remote{true, "trainer@gpu-box:22"};
        QSignalSpy priced(&cost, &CostPanel::hostPriceChanged);
        cost.setHost(remote.hostLabel, "", 3.60);
        cost.update(&s.series(), remote);
        QVERIFY(priced.isEmpty());  // handing in the saved price is no change by the user
        QVERIFY(cost.rowShown("Instance") && cost.rowShown("Images/$") && cost.rowShown("Cost so far"));
        QCOMPARE(cost.instance(), QString(CostPanel::kCustomInstance));  // 3.60 is no list price
        // images/s of the last row: 500 + 600 % 7 = 505 -> 1,818,000 images/hour -> 505,000 per $
        QCOMPARE(cost.imagesPerDollarText().remove(QRegularExpression("[^0-9]")), QString("505000"));
        QCOMPARE(cost.valueText("Cost so far"), QString("$ 0.06"));  // 60 s at $3.60/h
        cost.setPricePerHour(1.80);
        QCOMPARE(priced.size(), 1);
        QCOMPARE(priced.last().at(0).toString(), remote.hostLabel);
        QCOMPARE(priced.last().at(2).toDouble(), 1.80);
        QCOMPARE(cost.imagesPerDollarText().remove(QRegularExpression("[^0-9]")), QString("1010000"));
        if (const QString keep = qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR"); !keep.isEmpty()) {
            SystemPanel remoteSys;
            remoteSys.update(&s.series(), remote);
            panels(&remoteSys, &cost).save(keep + "/remote-panels.png");
        }
        // waiting for the first reading names where from
        RunSeries empty;
        sys.update(&empty, remote);
        QCOMPARE(sys.noteText(), QString("Waiting for the first system reading from trainer@gpu-box:22…"));
        QVERIFY(!sys.rowShown("CPU"));
        sys.update(&empty);
        QCOMPARE(sys.noteText(), QString("Waiting for the first system reading from this computer…"));
    }

    void perHostPriceRoundTripsThroughSettings() {
        // MainWindow's wiring (updatePanels and the hostPriceChanged connection), two hosts
        AppSettings settings;
        CostPanel cost;
        RunSeries empty;
        const auto show = [&](const QString& host) {
            const double saved = settings.hostPricePerHour(host);
            cost.setHost(host, settings.hostInstance(host), saved >= 0 ? saved : settings.pricePerHour());
            cost.update(&empty, RunContext{true, host});
        };
        connect(&cost, &CostPanel::hostPriceChanged, &cost,
                [&](const QString& host, const QString& instance, double d) { settings.setHostPrice(host, instance, d); });
        show("a@box-a:22");
        auto* picker = cost.findChild<QComboBox*>("Instance");
        QVERIFY(picker);
        picker->setCurrentIndex(picker->findText("g5.xlarge", Qt::MatchStartsWith));
        QCOMPARE(cost.pricePerHour(), 1.006);
        show("b@box-b:22");
        cost.setPricePerHour(7.5);  // typed: custom
        QCOMPARE(cost.instance(), QString("custom"));
        QCOMPARE(settings.hostInstance("a@box-a:22"), QString("g5.xlarge"));
        QCOMPARE(settings.hostPricePerHour("a@box-a:22"), 1.006);
        QCOMPARE(settings.hostInstance("b@box-b:22"), QString("custom"));
        QCOMPARE(settings.hostPricePerHour("b@box-b:22"), 7.5);
        show("a@box-a:22");  // back to the first host: its own instance and price
        QCOMPARE(cost.instance(), QString("g5.xlarge"));
        QCOMPARE(cost.pricePerHour(), 1.006);
        show("b@box-b:22");
        QCOMPARE(cost.pricePerHour(), 7.5);
        QCOMPARE(settings.hostPricePerHour("c@never:22"), -1.0);
    }

    void energyShownAndSummedAcrossRestarts() {
        // Readings with energy (RAPL + NVML), a resumed trainer starting from 0 again.
        RunSeries r;
        EventBatch b;
        b.firstT = 1000;
        b.state = "running";
        b.device = "cuda:0";
        const auto reading = [](double t, double joules, double watts) {
            SystemSample x;
            x.t = t;
            x.cpuPercent = 100;
            x.rssMb = 500;
            x.readMbS = 3.5;
            x.gpuUtil = 90;
            x.gpuMemMb = 2048;
            x.energyJ = joules;
            x.powerW = watts;
            x.energySource = "CPU package (RAPL, all processes on the host) + GPU (NVML)";
            return x;
        };
        b.system = {reading(1002, 600, 300), reading(1004, 1800, 600)};
        r.append(std::move(b));
        QCOMPARE(r.energyJoules(), 1800.0);
        EventBatch resumed;
        resumed.system = {reading(5000, 200, 100), reading(5002, 1800000, 250)};  // a new process: from 0 again
        r.append(std::move(resumed));
        QCOMPARE(r.energyJoules(), 1801800.0);
        CostPanel cost;
        cost.update(&r);
        QVERIFY(cost.rowShown("Energy") && cost.rowShown("Power"));
        QCOMPARE(cost.valueText("Energy"), QLocale().toString(0.5005, 'f', 2) + " kWh");  // 1,801,800 J
        QCOMPARE(cost.valueText("Power"), QString("250 W"));
        QCOMPARE(cost.noteText(), QString("Energy counts: CPU package (RAPL, all processes on the host) + GPU (NVML)."));
        QCOMPARE(cost.valueText("Wall time"), QString("1:06:42"));  // 1000 -> 5002
        SystemPanel sys;
        sys.update(&r);
        QVERIFY(sys.rowShown("GPU") && sys.rowShown("GPU memory"));
        QCOMPARE(sys.valueText("GPU"), QString("90.0 %"));
        QCOMPARE(sys.noteText(), QString());  // every reading measured: no note
        if (const QString keep = qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR"); !keep.isEmpty()) panels(&sys, &cost).save(keep + "/energy-panels.png");
    }

    void realShortLocalCpuRun() {
        // A real trainer run shorter than the 2 s system-reading interval still has a reading.
        const QString dir = tmp_.filePath("short-cpu");
        QProcess trainer;
        trainer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        trainer.setStandardOutputFile(QProcess::nullDevice());
        trainer.start(STREETGAN_TRAINER,
                      {"train", "--run-dir", dir, "--preset", "tiny-32", "--steps", "6", "--batch", "8", "--log-every", "2", "--checkpoint-every", "30"});
        QVERIFY(trainer.waitForFinished(120000));
        QCOMPARE(trainer.exitCode(), 0);
        RunSession s(dir, STREETGAN_TRAINER);
        s.start();
        QTRY_VERIFY_WITH_TIMEOUT(s.series().state() == "finished" && s.series().systemReadings() >= 1, streetgan::test::kWaitMs);
        SystemPanel sys;
        sys.update(&s.series());
        QVERIFY(sys.rowShown("CPU") && sys.rowShown("Memory"));
        QVERIFY2(sys.valueText("CPU").endsWith(" %"), qPrintable(sys.valueText("CPU")));
        QVERIFY2(sys.valueText("Memory").endsWith(" MB") && sys.valueText("Memory") != "0 MB", qPrintable(sys.valueText("Memory")));
        QVERIFY(sys.rowShown("Data read"));
        QVERIFY(!sys.rowShown("GPU") && !sys.rowShown("GPU memory"));
        QVERIFY2(sys.noteText().startsWith("GPU and GPU memory: not shown — this run trains on the CPU"), qPrintable(sys.noteText()));
        CostPanel cost;
        cost.update(&s.series());
        QVERIFY2(QRegularExpression("^\\d+\\.\\d s$").match(cost.valueText("Wall time")).hasMatch(), qPrintable(cost.valueText("Wall time")));
        QVERIFY(!cost.rowShown("Instance") && !cost.rowShown("Cost so far"));
        // energy: measured where RAPL is readable, else the trainer's reason
        if (std::isfinite(s.series().energyJoules()))
            QVERIFY(cost.rowShown("Energy") && cost.valueText("Energy").contains("kWh"));
        else
            QVERIFY2(cost.noteText().startsWith("Energy: not measurable — ") && cost.noteText().contains("RAPL"), qPrintable(cost.noteText()));
        for (QLabel* l : cost.findChildren<QLabel*>())
            if (l->isVisibleTo(&cost)) QVERIFY2(!l->text().contains('$'), qPrintable(l->text()));
        if (const QString keep = qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR"); !keep.isEmpty()) panels(&sys, &cost).save(keep + "/local-panels.png");
    }
};

QTEST_MAIN(DashboardTest)
#include "DashboardTest.moc"
