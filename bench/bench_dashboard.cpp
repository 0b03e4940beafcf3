// The dashboard benchmark (bench/bench_dashboard.sh runs it; not a test, asserts nothing).
//   bench_dashboard open --dir D [--events N] [--smoothing A]
//       writes D/events.jsonl with N metrics events unless it exists (the trainer's event types
//       through its EventLog; values rounded to a few digits, so lines are about trainer-sized),
//       opens it in the dashboard (offscreen or Xvfb), and prints one JSON line: first_plot_s
//       (open -> the first replot that shows data), full_load_s, median/p90 replot ms (one plot
//       and the whole dashboard), peak RSS MB.
//   bench_dashboard open --tensorboard --dir D [--events N] [--smoothing A]
//       the same for a TensorBoard run of another trainer: D gets one event file of N scalar
//       records (unless it holds one), the reference project's five tags (G_loss, D_loss, D_X,
//       D_G_z1, D_G_z2) at each step, written with TensorBoardWriter (simple values, as
//       SummaryWriter writes them); bench_tensorboard.sh reads the same file with TensorBoard's
//       EventAccumulator.
//   bench_dashboard latency --trainer BIN --dir D [--seconds S]
//       starts a tiny CPU run (log every step), follows it like the app, and prints the
//       event-to-pixel latency: event "t" (written by the trainer) -> the replot that includes it.
#include <qcustomplot.h>
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "base/run/EventLog.h"
#include "base/run/Events.h"
#include "base/tensorboard/TensorBoardWriter.h"
#include "dashboard/DashboardPage.h"
#include "dashboard/PlotPanel.h"
#include "runs/RunSession.h"

using namespace streetgan::ui;
using streetgan::EventLog;

namespace {

double wallNow() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

double statusMb(const char* key) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) return std::stod(line.substr(std::string(key).size())) / 1024.0;
    return 0;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// `v` with `digits` decimals: the JSON numbers stay as short as the benchmark has always written.
double rounded(double v, int digits) {
    const double scale = std::pow(10.0, digits);
    return std::round(v * scale) / scale;
}

void writeEvents(const QString& path, long n) {
    namespace sg = streetgan;
    EventLog log(path.toStdString());
    std::mt19937 rng(1);
    std::normal_distribution<double> noise(0, 0.1);
    const double t0 = 1.7e9;
    sg::StatusEvent status;
    status.t = t0;
    status.state = sg::RunState::kRunning;
    status.step = 0;
    status.totalSteps = n;
    status.pid = 1;
    status.device = "cpu";
    status.data = "synthetic";
    log.append(sg::Event(status));
    sg::DataEvent data;
    data.t = t0;
    data.source = "synthetic";
    data.images = 100000;
    data.stepsPerEpoch = 1000;
    log.append(sg::Event(data));
    for (long i = 1; i <= n; ++i) {
        const double k = static_cast<double>(i);
        const double t = rounded(t0 + k * 0.05, 6);
        sg::MetricsEvent m;
        m.dGz1 = rounded(0.3 + noise(rng) * 0.2, 7);
        m.dGz2 = rounded(0.25 + noise(rng) * 0.2, 7);
        m.dX = rounded(0.7 + noise(rng) * 0.2, 7);
        m.dataWait = rounded(std::abs(noise(rng)), 6);
        m.epoch = (i - 1) / 1000;
        m.imgPerS = rounded(900 + 50 * noise(rng), 3);
        m.lossD = rounded(1.2 / (1 + k / 1e5) + noise(rng), 7);
        m.lossG = rounded(2.5 + std::sin(k / 5e4) + noise(rng), 7);
        m.lr = 0.0002;
        m.step = i;
        m.t = t;
        m.totalSteps = n;
        log.append(sg::Event(m));
        if (i % 1000 == 0) {
            sg::SystemEvent sys;
            sys.cpuPercent = 95.5;
            sys.gpuMemMb = 4100;
            sys.gpuUtil = 97;
            sys.readMbS = 120.5;
            sys.rssMb = 2300;
            sys.step = i;
            sys.t = t;
            log.append(sg::Event(sys));
        }
    }
}

// `records` scalars, five tags a step, as the reference project logs them (step: images seen).
void writeTensorBoard(const QString& dir, long records) {
    streetgan::TensorBoardWriter tb(dir.toStdString());
    std::mt19937 rng(1);
    std::normal_distribution<double> noise(0, 0.1);
    const char* tags[] = {"G_loss", "D_loss", "D_X", "D_G_z1", "D_G_z2"};
    for (long i = 0; i < records / 5; ++i) {
        const double k = static_cast<double>(i);
        const double values[] = {2.5 + std::sin(k / 5e4) + noise(rng), 1.2 / (1 + k / 1e5) + noise(rng), 0.7 + noise(rng) * 0.2, 0.3 + noise(rng) * 0.2,
                                 0.25 + noise(rng) * 0.2};
        for (int t = 0; t < 5; ++t) tb.addScalar(tags[t], static_cast<float>(values[t]), i * 128, 1.7e9 + k * 0.05);
    }
    tb.flush();
}

int benchOpen(const QString& dir, long events, double smoothing, bool tensorBoard) {
    QDir().mkpath(dir);
    if (tensorBoard) {
        if (QDir(dir).entryList({"*tfevents*"}, QDir::Files).isEmpty()) {
            std::fprintf(stderr, "writing %ld TensorBoard records to %s\n", events, qPrintable(dir));
            writeTensorBoard(dir, events);
        }
    } else if (const QString path = dir + "/events.jsonl"; !QFile::exists(path)) {
        std::fprintf(stderr, "writing %ld events to %s\n", events, qPrintable(path));
        writeEvents(path, events);
    }
    const double rssBefore = statusMb("VmRSS:");
    DashboardPage page;
    page.resize(1400, 860);
    page.setSmoothing(smoothing);
    page.show();
    QApplication::processEvents();
    QElapsedTimer clock;
    clock.start();
    RunSession session(dir, "streetgan-trainer-not-needed");
    double firstPlot = -1, fullLoad = -1;
    PlotPanel* loss = page.panels().front();
    QObject::connect(loss->plot(), &QCustomPlot::afterReplot, [&] {
        if (firstPlot < 0 && loss->pointCount(&session.series(), Metric::LossD) > 0) firstPlot = clock.nsecsElapsed() / 1e9;
    });
    QObject::connect(&session, &RunSession::loaded, [&](qint64, double) {
        session.stop();  // the benchmark measures reading and plotting, not following
        QTimer::singleShot(0, [&] {
            QApplication::processEvents();
            fullLoad = clock.nsecsElapsed() / 1e9;
            QApplication::exit(0);
        });
    });
    page.addSession(&session);
    session.start();
    QApplication::exec();
    // Replot timings: each plot, immediately, 30 times.
    std::vector<double> one, all;
    for (int i = 0; i < 30; ++i) {
        QElapsedTimer t;
        t.start();
        for (PlotPanel* p : page.panels()) {
            QElapsedTimer tp;
            tp.start();
            p->plot()->replot(QCustomPlot::rpImmediateRefresh);
            one.push_back(tp.nsecsElapsed() / 1e6);
        }
        all.push_back(t.nsecsElapsed() / 1e6);
    }
    std::printf(
        "{\"format\":\"%s\",\"events\":%lld,\"rows\":%zu,\"smoothing\":%.2f,\"first_plot_s\":%.3f,\"full_load_s\":%.3f,"
        "\"replot_ms_median_one_plot\":%.2f,\"replot_ms_p90_one_plot\":%.2f,\"replot_ms_median_dashboard\":%.2f,"
        "\"loss_points\":%d,\"rss_before_mb\":%.1f,\"rss_mb\":%.1f,\"peak_rss_mb\":%.1f,\"series_mb\":%.1f}\n",
        tensorBoard ? "tensorboard" : "jsonl", static_cast<long long>(session.series().eventLines()), session.series().rows(), smoothing, firstPlot, fullLoad,
        percentile(one, 0.5), percentile(one, 0.9), percentile(all, 0.5), loss->pointCount(&session.series(), Metric::LossD), rssBefore, statusMb("VmRSS:"),
        statusMb("VmHWM:"), session.series().memoryBytes() / 1048576.0);
    return 0;
}

int benchLatency(const QString& trainer, const QString& dir, double seconds) {
    QDir(dir).removeRecursively();
    QProcess start;
    start.start(trainer,
                {"start", "--detach", "--run-dir", dir,         "--preset", "tiny-32",          "--data", "synthetic",   "--steps", "100000",         "--batch",
                 "8",     "--device", "cpu",       "--threads", "1",        "--loader-threads", "1",      "--log-every", "1",       "--sample-every", "0"});
    start.waitForFinished(120000);
    if (start.exitCode() != 0) {
        std::fprintf(stderr, "start failed: %s\n", start.readAllStandardError().constData());
        return 1;
    }
    DashboardPage page;
    page.resize(1400, 860);
    page.show();
    RunSession session(dir, trainer);
    PlotPanel* loss = page.panels().front();
    std::vector<double> latencies;
    size_t seen = 0;
    bool measuring = false;
    QObject::connect(loss->plot(), &QCustomPlot::afterReplot, [&] {
        const double now = wallNow();
        const RunSeries& r = session.series();
        const size_t n = static_cast<size_t>(std::max(0, loss->pointCount(&r, Metric::LossD)));
        if (measuring)
            for (size_t i = seen; i < n && i < r.rows(); ++i) latencies.push_back((now - r.wallTime(i)) * 1000);
        seen = n;
    });
    QObject::connect(&session, &RunSession::loaded, [&](qint64, double) { QTimer::singleShot(500, [&] { measuring = true; }); });
    page.addSession(&session);
    session.start();
    QTimer::singleShot(static_cast<int>(seconds * 1000), [&] {
        session.sendCommand("stop");
        QTimer::singleShot(1500, [] { QApplication::exit(0); });
    });
    QApplication::exec();
    session.stop();
    QProcess::execute(trainer, {"control", dir, "stop"});
    std::printf("{\"events\":%zu,\"latency_ms_median\":%.1f,\"latency_ms_p95\":%.1f,\"latency_ms_max\":%.1f}\n", latencies.size(), percentile(latencies, 0.5),
                percentile(latencies, 0.95), percentile(latencies, 1.0));
    return latencies.empty() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName("StreetGAN-bench");  // the dashboard saves its controls: not into the app's settings
    QCommandLineParser cli;
    cli.addPositionalArgument("mode", "open | latency");
    const QCommandLineOption dir("dir", "run directory", "DIR");
    const QCommandLineOption events("events", "events to generate", "N", "1000000");
    const QCommandLineOption smoothing("smoothing", "EMA weight", "A", "0");
    const QCommandLineOption trainer("trainer", "streetgan-trainer", "BIN");
    const QCommandLineOption seconds("seconds", "seconds of the live run", "S", "15");
    const QCommandLineOption tensorBoard("tensorboard", "open: a TensorBoard run (event files) instead of events.jsonl");
    cli.addOptions({dir, events, smoothing, trainer, seconds, tensorBoard});
    cli.addHelpOption();
    cli.process(app);
    const QString mode = cli.positionalArguments().value(0);
    if (mode == "open") return benchOpen(cli.value(dir), cli.value(events).toLong(), cli.value(smoothing).toDouble(), cli.isSet(tensorBoard));
    if (mode == "latency") return benchLatency(cli.value(trainer), cli.value(dir), cli.value(seconds).toDouble());
    std::fprintf(stderr, "usage: bench_dashboard open|latency ...\n");
    return 2;
}
