// Desktop notifications end to end, on a private session bus (PrivateSessionBus) with a recording
// org.freedesktop.Notifications server (NotificationServer) as the desktop's daemon: a real local
// run (`streetgan-trainer start --detach`, tiny-32) whose trainer is killed with SIGKILL raises one
// critical "crashed" notification naming it, and the server's ActionInvoked brings that run to the
// front of the main window; a run seen finishing raises "finished" once, and reopened afterwards
// nothing; notifications off send nothing; with no server on the bus the status bar shows it.
// "Nothing arrived" is never a timed wait: a marker notification sent after it on the same
// connection arrives in order, so once the marker is there anything sent before it is too.
#include <signal.h>

#include <QApplication>
#include <QProcess>
#include <QSignalSpy>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "app/AppSettings.h"
#include "app/DesktopNotifier.h"
#include "app/MainWindow.h"
#include "app/RunAlerts.h"
#include "base/run/Events.h"
#include "dashboard/DashboardPage.h"
#include "runs/RunSession.h"
#include "support/NotificationServer.h"
#include "support/PrivateSessionBus.h"
#include "support/RunProbe.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;
using streetgan::test::NotificationServer;

class NotificationsTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    NotificationServer* server_ = nullptr;

    // `start --detach` of a tiny CPU run; "" or the trainer's error.
    static QString startRun(const QString& dir, int steps) {
        QProcess p;
        p.start(STREETGAN_TRAINER, QStringList{"start", "--detach"} + streetgan::test::tinyRunOptions(dir, steps, 100000));
        if (!p.waitForStarted(20000)) return QString("cannot run %1: %2").arg(STREETGAN_TRAINER, p.errorString());
        if (!p.waitForFinished(90000)) return "start --detach did not return within 90 s";
        return p.exitCode() == 0 ? QString() : QString::fromLocal8Bit(p.readAllStandardError());
    }

    // Sends a marker through `n` and waits for the server to have it: every notification sent
    // before it has arrived by then.
    bool flush(DesktopNotifier* n, const QString& marker) {
        n->notify("marker", marker, marker, false);
        return QTest::qWaitFor([&] { return !server_->callsWith(marker).isEmpty(); }, 20000);
    }

    static DesktopNotifier* notifierOf(MainWindow& w) { return w.findChild<DesktopNotifier*>(); }

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
        qRegisterMetaType<RunSession*>();
        server_ = new NotificationServer(qEnvironmentVariable("DBUS_SESSION_BUS_ADDRESS"));
        QVERIFY2(server_->start(), "the test's notification server could not own org.freedesktop.Notifications");
    }

    void cleanupTestCase() {
        streetgan::test::stopRunsUnder(tmp_.path(), STREETGAN_TRAINER);
        delete server_;
    }

    void killedTrainerNotifiesCrashAndClickOpensTheRun() {
        const QString ws = tmp_.filePath("ws-crash");
        MainWindow w(ws);
        w.show();
        DesktopNotifier* notifier = notifierOf(w);
        QVERIFY(notifier);
        const QString dir = ws + "/crash-run";
        const QString err = startRun(dir, 100000);
        QVERIFY2(err.isEmpty(), qPrintable(err));
        RunSession* s = w.openLocalRun(dir);
        QVERIFY(s);
        QTRY_VERIFY_WITH_TIMEOUT(s->trainerSeenAlive() && s->series().metricsEvents() > 3, streetgan::test::kWaitMs);

        // An old, finished run opened meanwhile (history: nothing) becomes the active one.
        const QString old = ws + "/old-run";
        streetgan::test::writeRun(old, 50);
        RunSession* oldSession = w.openLocalRun(old);
        QCOMPARE(w.activeSession(), oldSession);

        const pid_t pid = streetgan::test::trainerPidOf(dir.toStdString());
        QVERIFY(streetgan::test::processAlive(pid));
        QCOMPARE(::kill(pid, SIGKILL), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!server_->callsWith("crash-run crashed").isEmpty(), streetgan::test::kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(notifier->lastChannel(), DesktopNotifier::Channel::Bus, streetgan::test::kWaitMs);
        const NotificationServer::Call c = server_->callsWith("crash-run crashed").first();
        QCOMPARE(c.app, QString("StreetGAN Studio"));
        QCOMPARE(c.icon, QString("streetgan"));
        QVERIFY2(c.body.contains("crash-run on ") && c.body.contains("crashed at step ") && c.body.contains("without a final state"), qPrintable(c.body));
        QCOMPARE(c.hints.value("urgency").toInt(), 2);  // critical
        QVERIFY(c.actions.contains("default"));
        QCOMPARE(QString::fromStdString(s->series().state()), QString("crashed"));

        // The user clicks it: the crashed run is the active one, on the dashboard.
        QVERIFY(flush(notifier, "after-crash"));
        emit server_->ActionInvoked(c.id, "default");
        QTRY_COMPARE_WITH_TIMEOUT(w.activeSession(), s, streetgan::test::kWaitMs);
        QVERIFY(w.dashboard()->isVisible());
        QVERIFY(w.windowTitle().contains("crash-run"));

        // One notification for the crash, none for the old run.
        QVERIFY(flush(notifier, "end-of-crash-test"));
        QCOMPARE(server_->callsWith("crash-run").size(), 1);
        QCOMPARE(server_->callsWith("old-run").size(), 0);
    }

    void finishedOnceAndNothingWhenReopened() {
        const QString ws = tmp_.filePath("ws-finish");
        const QString dir = ws + "/finish-run";
        {
            MainWindow w(ws);
            w.show();
            DesktopNotifier* notifier = notifierOf(w);
            const QString err = startRun(dir, 120);
            QVERIFY2(err.isEmpty(), qPrintable(err));
            // Paused at once, so it is still alive when the window follows it, however fast the machine.
            QCOMPARE(QProcess::execute(STREETGAN_TRAINER, {"control", dir, "pause"}), 0);
            RunSession* s = w.openLocalRun(dir);
            QVERIFY(s);
            QTRY_VERIFY_WITH_TIMEOUT(s->trainerSeenAlive(), streetgan::test::kWaitMs);
            s->sendCommand("resume");
            QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("finished"), streetgan::test::kWaitMs);
            QTRY_VERIFY_WITH_TIMEOUT(w.connectionText().contains("ended"), streetgan::test::kWaitMs);  // the trainer is gone: no more news
            QVERIFY(flush(notifier, "after-finish"));
            const QList<NotificationServer::Call> finished = server_->callsWith("finish-run");
            QCOMPARE(finished.size(), 1);
            QCOMPARE(finished[0].summary, QString("finish-run finished"));
            QVERIFY2(finished[0].body.contains("finish-run on ") && finished[0].body.contains("finished at step 120 of 120"), qPrintable(finished[0].body));
            QCOMPARE(finished[0].hints.value("urgency").toInt(), 1);
        }
        // Opened again (a new window: the next day's app): history, nothing raised.
        MainWindow w(ws);
        w.show();
        RunSession* s = w.openLocalRun(dir);
        QTRY_VERIFY_WITH_TIMEOUT(w.connectionText().contains("ended"), streetgan::test::kWaitMs);
        QCOMPARE(QString::fromStdString(s->series().state()), QString("finished"));
        QVERIFY(!s->trainerSeenAlive());
        QVERIFY(flush(notifierOf(w), "after-reopen"));
        QCOMPARE(server_->callsWith("finish-run").size(), 1);
    }

    void disabledSendsNothing() {
        AppSettings().setNotificationsEnabled(false);
        DesktopNotifier notifier(nullptr);
        RunAlerts alerts(&notifier);
        QSignalSpy raised(&alerts, &RunAlerts::alert);
        QSignalSpy delivered(&notifier, &DesktopNotifier::delivered);
        // A live run that finishes: the rule fires, the notifier stays quiet.
        RunSeries series;
        EventBatch running;
        running.state = streetgan::RunState::kRunning;
        running.live = true;
        running.liveState = streetgan::RunState::kRunning;
        running.lines = 1;
        series.append(std::move(running));
        alerts.watchSeries("quiet", "quiet-run", "here", &series, [] { return true; });
        EventBatch end;
        end.state = streetgan::RunState::kFinished;
        end.lines = 1;
        series.append(std::move(end));
        alerts.update("quiet");
        QCOMPARE(raised.count(), 1);
        QCOMPARE(delivered.count(), 1);
        QCOMPARE(delivered.at(0).at(0).value<DesktopNotifier::Channel>(), DesktopNotifier::Channel::None);
        AppSettings().setNotificationsEnabled(true);
        QVERIFY(flush(&notifier, "after-disabled"));
        QCOMPARE(server_->callsWith("quiet-run").size(), 0);
    }

    void noServerFallsBack() {
        server_->stop();
        MainWindow w(tmp_.filePath("ws-fallback"));
        w.show();
        DesktopNotifier* notifier = notifierOf(w);
        QSignalSpy delivered(notifier, &DesktopNotifier::delivered);
        notifier->notify("k", "fallback-run crashed", "fallback-run on here crashed at step 7 — the trainer stopped without a final state.", true);
        QTRY_COMPARE_WITH_TIMEOUT(delivered.count(), 1, streetgan::test::kWaitMs);
        const auto channel = QSystemTrayIcon::isSystemTrayAvailable() ? DesktopNotifier::Channel::Tray : DesktopNotifier::Channel::StatusBar;
        QCOMPARE(delivered.at(0).at(0).value<DesktopNotifier::Channel>(), channel);
        QCOMPARE(notifier->lastChannel(), channel);
        if (channel == DesktopNotifier::Channel::StatusBar) QVERIFY(w.statusBar()->currentMessage().contains("fallback-run on here crashed at step 7"));
        if (qEnvironmentVariableIsSet("STREETGAN_SCREENSHOTS")) w.grab().save(qEnvironmentVariable("STREETGAN_SCREENSHOTS") + "/notification-fallback.png");
        QVERIFY(server_->callsWith("fallback-run").isEmpty());
        QVERIFY(server_->start());
    }
};

// Not QTEST_MAIN: the private bus must be running, and named in the environment, before the
// QApplication (and QtDBus) start.
int main(int argc, char** argv) {
    streetgan::test::PrivateSessionBus bus;
    if (!bus.ok()) {
        std::fprintf(stderr, "FAIL: %s\n", bus.error().c_str());
        return 1;
    }
    QApplication app(argc, argv);
    NotificationsTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "NotificationsTest.moc"
