// RunAlerts' rules on synthetic event sequences (RunSeries fed EventBatches, as the session's
// drain does) with the clock set by the test: no timing. Finished and crashed once, only when seen
// live; stalled after max(120 s, 10 x the median gap between events), re-armed by the next event,
// never while paused; starving after data wait above SystemPanel::kStarvingDataWait for 60 s of the
// trainer's time without a break, re-armed by a dip, not for a stretch already in the backlog.
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <limits>

#include "app/RunAlerts.h"
#include "base/run/Events.h"
#include "dashboard/SystemPanel.h"
#include "events/RunSeries.h"

using namespace streetgan::ui;
namespace RunState = streetgan::RunState;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One metrics event: step, trainer time t, data wait.
EventBatch metrics(double step, double t, double wait) {
    EventBatch b;
    auto& m = b.metrics;
    m.step.push_back(step);
    m.epoch.push_back(0);
    m.t.push_back(t);
    for (int k = 0; k < kMetricCount; ++k) m.values[static_cast<size_t>(k)].push_back(kNaN);
    m[Metric::LossD].back() = 1;
    m[Metric::DataWait].back() = wait;
    b.lastStep = static_cast<int64_t>(step);
    b.lines = 1;
    return b;
}

EventBatch status(const char* state) {
    EventBatch b;
    b.state = state;
    b.lines = 1;
    return b;
}

// A run, its series, its liveness and the clock, watched by one RunAlerts.
struct Fixture {
    RunAlerts alerts;
    RunSeries series;
    bool alive = true;
    double now = 1000;
    double step = 0, t = 5000;
    QSignalSpy spy{&alerts, &RunAlerts::alert};

    explicit Fixture(bool startAlive = true) : alive(startAlive) {
        alerts.setClock([this] { return now; });
        series.append(status(RunState::kRunning));
        alerts.watchSeries("k", "tiny-1", "gpu-box", &series, [this] { return alive; });
    }
    void append(EventBatch b) {
        series.append(std::move(b));
        alerts.update("k");
    }
    // A metrics event `dt` seconds after the last (on both clocks).
    void event(double dt, double wait = 0.05) {
        now += dt;
        t += dt;
        append(metrics(++step, t, wait));
    }
    void idle(double dt) {
        now += dt;
        alerts.update("k");
    }
    int count(RunAlerts::Kind kind) const {
        int n = 0;
        for (const auto& args : spy)
            if (args.at(1).value<RunAlerts::Kind>() == kind) ++n;
        return n;
    }
    QString lastBody() const { return spy.isEmpty() ? QString() : spy.last().at(3).toString(); }
};

}  // namespace

class RunAlertsTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<RunAlerts::Kind>(); }

    void finishedOnceWhenSeenLive() {
        Fixture f;
        f.event(1);
        QCOMPARE(f.spy.count(), 0);
        f.append(status(RunState::kFinished));
        QCOMPARE(f.count(RunAlerts::Kind::Finished), 1);
        QCOMPARE(f.spy.last().at(2).toString(), QString("tiny-1 finished"));
        QVERIFY2(f.lastBody().contains("tiny-1 on gpu-box finished at step 1"), qPrintable(f.lastBody()));
        f.append(status(RunState::kFinished));  // the end line, a later drain: still once
        f.idle(1000);
        QCOMPARE(f.spy.count(), 1);
    }

    void crashedWhenTheTrainerVanishes() {
        Fixture f;
        for (int i = 0; i < 5; ++i) f.event(1);
        EventBatch end;  // the attach end line: no trainer holds the lock, last status running
        end.ended = true;
        end.endState = RunState::kCrashed;
        f.append(std::move(end));
        QCOMPARE(QString::fromStdString(f.series.state()), QString("crashed"));
        QCOMPARE(f.count(RunAlerts::Kind::Crashed), 1);
        QCOMPARE(f.spy.last().at(2).toString(), QString("tiny-1 crashed"));
        QVERIFY2(f.lastBody().contains("tiny-1 on gpu-box crashed at step 5 — the trainer stopped without a final state"), qPrintable(f.lastBody()));
        f.idle(1000);  // ended: no stall either
        QCOMPARE(f.spy.count(), 1);
    }

    void failedIsACrashWithItsError() {
        Fixture f;
        f.event(1);
        EventBatch b = status(RunState::kFailed);
        b.errors.emplace_back("out of memory");
        f.append(std::move(b));
        QCOMPARE(f.count(RunAlerts::Kind::Crashed), 1);
        QCOMPARE(f.spy.last().at(2).toString(), QString("tiny-1 failed"));
        QVERIFY2(f.lastBody().contains("failed at step 1: out of memory"), qPrintable(f.lastBody()));
    }

    void stoppedByTheUserIsNoNews() {
        Fixture f;
        f.event(1);
        f.append(status(RunState::kStopped));
        f.idle(1000);
        QCOMPARE(f.spy.count(), 0);
    }

    void historyRaisesNothing() {
        // Opened after the fact: the backlog says running, the trainer is gone (never seen alive).
        Fixture f(false);
        for (int i = 0; i < 100; ++i) f.event(1, 0.9);  // 100 s starving in the backlog
        EventBatch end;
        end.ended = true;
        end.endState = RunState::kCrashed;
        f.append(std::move(end));
        f.idle(10000);
        QCOMPARE(f.spy.count(), 0);
    }

    void stalledAfterTheFloorThenOnceUntilTheNextEvent() {
        Fixture f;
        for (int i = 0; i < 10; ++i) f.event(1);
        QCOMPARE(f.alerts.stallSeconds("k"), RunAlerts::kMinStallSeconds);  // 10 x 1 s < 120 s
        f.idle(119);
        QCOMPARE(f.spy.count(), 0);
        f.idle(1);
        QCOMPARE(f.count(RunAlerts::Kind::Stalled), 1);
        QCOMPARE(f.spy.last().at(2).toString(), QString("tiny-1 stalled"));
        QVERIFY2(f.lastBody().contains("tiny-1 on gpu-box stalled at step 10 — no new event for 2 min"), qPrintable(f.lastBody()));
        f.idle(500);
        QCOMPARE(f.spy.count(), 1);
        f.event(1);  // it moves again: re-armed
        f.idle(120);
        QCOMPARE(f.count(RunAlerts::Kind::Stalled), 2);
    }

    void stallThresholdFollowsASlowPace() {
        Fixture f;
        for (int i = 0; i < 9; ++i) f.event(30);  // one event every 30 s: 10 x 30 s
        QCOMPARE(f.alerts.stallSeconds("k"), 300.0);
        f.idle(299);
        QCOMPARE(f.spy.count(), 0);
        f.idle(1);
        QCOMPARE(f.count(RunAlerts::Kind::Stalled), 1);
        f.idle(2000);
        f.event(0);  // one long gap: the median (not the mean) keeps the pace
        QCOMPARE(f.alerts.stallSeconds("k"), 300.0);
    }

    void noStallWhilePaused() {
        Fixture f;
        for (int i = 0; i < 10; ++i) f.event(1);
        f.append(status(RunState::kPaused));
        f.idle(100000);
        QCOMPARE(f.spy.count(), 0);
    }

    void starvingAfterAMinuteAboveTheThreshold() {
        const double high = SystemPanel::kStarvingDataWait + 0.1;
        Fixture f;
        f.event(1, high);                               // the stretch starts
        for (int i = 0; i < 59; ++i) f.event(1, high);  // 59 s of run time
        QCOMPARE(f.spy.count(), 0);
        f.event(1, high);  // 60 s
        QCOMPARE(f.count(RunAlerts::Kind::Starving), 1);
        QVERIFY2(f.lastBody().contains("tiny-1 on gpu-box is starving for data"), qPrintable(f.lastBody()));
        for (int i = 0; i < 100; ++i) f.event(1, high);
        QCOMPARE(f.spy.count(), 1);
        f.event(1, SystemPanel::kStarvingDataWait);  // at the threshold is not above it: re-armed
        for (int i = 0; i < 61; ++i) f.event(1, high);
        QCOMPARE(f.count(RunAlerts::Kind::Starving), 2);
    }

    void starvingSaysTheTrainersAdviceWhenItGaveOne() {
        const double high = SystemPanel::kStarvingDataWait + 0.1;
        Fixture f;
        EventBatch advice;
        advice.loaderAdvice = "the loader holds the step back: it waited 31% of the time; give --loader-threads 6";
        advice.lines = 1;
        f.append(std::move(advice));
        for (int i = 0; i < 61; ++i) f.event(1, high);
        QCOMPARE(f.count(RunAlerts::Kind::Starving), 1);
        QVERIFY2(f.lastBody().contains("tiny-1 on gpu-box is starving for data"), qPrintable(f.lastBody()));
        QVERIFY2(f.lastBody().endsWith("The trainer says: the loader holds the step back: it waited 31% of the time; give --loader-threads 6"),
                 qPrintable(f.lastBody()));
        QVERIFY2(!f.lastBody().contains("data pack"), qPrintable(f.lastBody()));
    }

    void aDipRestartsTheMinute() {
        const double high = SystemPanel::kStarvingDataWait * 2;
        Fixture f;
        for (int i = 0; i < 40; ++i) f.event(1, high);
        f.event(1, 0.01);
        for (int i = 0; i < 40; ++i) f.event(1, high);
        QCOMPARE(f.spy.count(), 0);
    }

    void starvingInTheBacklogIsHistory() {
        const double high = SystemPanel::kStarvingDataWait * 2;
        Fixture f(false);
        for (int i = 0; i < 100; ++i) f.event(1, high);  // read at opening
        f.alive = true;                                  // then followed live, still starving
        for (int i = 0; i < 100; ++i) f.event(1, high);
        QCOMPARE(f.spy.count(), 0);
        f.event(1, 0.0);  // recovers, then starves again while watched
        for (int i = 0; i < 61; ++i) f.event(1, high);
        QCOMPARE(f.count(RunAlerts::Kind::Starving), 1);
    }
};

QTEST_MAIN(RunAlertsTest)
#include "RunAlertsTest.moc"
