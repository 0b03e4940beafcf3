// A real local run end to end: the main window starts `streetgan-trainer start --detach` (tiny
// CPU run on synthetic streets), follows it in-process (no attach child), curves move, the toolbar
// commands (pause, sample-now, resume, stop) take effect, with no event lost or repeated.
#include <signal.h>
#include <unistd.h>

#include <QDirIterator>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/MainWindow.h"
#include "dashboard/DashboardPage.h"
#include "dashboard/PlotPanel.h"
#include "runs/NewRunDialog.h"
#include "runs/RunSession.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;

class LiveRunTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
        qRegisterMetaType<RunSession*>();
    }

    void cleanupTestCase() { streetgan::test::stopRunsUnder(tmp_.path(), STREETGAN_TRAINER); }

    void startFollowControl() {
        const QString ws = tmp_.filePath("ws");
        MainWindow w(ws);
        w.show();
        QSignalSpy opened(&w, &MainWindow::runOpened);
        QSignalSpy failed(&w, &MainWindow::runStartFailed);
        QStringList args = NewRunDialog::tinyRunArguments(ws + "/live");
        args[args.indexOf("--steps") + 1] = "100000";
        args[args.indexOf("--batch") + 1] = "8";
        args[args.indexOf("--sample-every") + 1] = "0";
        w.startLocalRun(args);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1 || failed.count() == 1, streetgan::test::kWaitMs);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        RunSession* s = w.activeSession();
        QVERIFY(s);
        // curves move within seconds
        QTRY_VERIFY_WITH_TIMEOUT(w.dashboard()->panels()[0]->pointCount(&s->series(), Metric::LossD) > 5, streetgan::test::kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(w.connectionText().contains("following live"), streetgan::test::kWaitMs);
        QCOMPARE(QString::fromStdString(s->series().state()), QString("running"));

        // followed in-process: no attach child (tests/ui/runs/LocalAttachTest.cpp covers resuming
        // at an offset)
        QVERIFY(streetgan::test::childPids("attach").isEmpty());
        const size_t before = s->series().rows();
        QTRY_VERIFY_WITH_TIMEOUT(s->series().rows() > before + 10, streetgan::test::kWaitMs);

        QSignalSpy replies(s, &RunSession::replyReceived);
        s->sendCommand("pause");
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("paused"), streetgan::test::kWaitMs);
        QVERIFY(!replies.isEmpty());
        const size_t samples = s->series().samples().size();
        s->sendCommand("sample-now");
        QTRY_COMPARE_WITH_TIMEOUT(s->series().samples().size(), samples + 1, streetgan::test::kWaitMs);
        s->sendCommand("resume");
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("running"), streetgan::test::kWaitMs);
        s->sendCommand("stop");
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("stopped"), streetgan::test::kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(w.connectionText().contains("ended"), streetgan::test::kWaitMs);

        // every logged step once, in order (log every 2 steps)
        const RunSeries& r = s->series();
        for (size_t i = 1; i < r.rows(); ++i) {
            const double d = r.x(XAxisMode::Step, i) - r.x(XAxisMode::Step, i - 1);
            if (i + 1 < r.rows())
                QVERIFY2(d == 2, qPrintable(QString("row %1: step %2 after %3").arg(i).arg(r.x(XAxisMode::Step, i)).arg(r.x(XAxisMode::Step, i - 1))));
            else
                QVERIFY(d > 0);  // the final metrics event may cover a partial interval
        }
    }

    void firstStartOneClickTinyRun() {
        const QString ws = tmp_.filePath("first");
        MainWindow w(ws);
        w.show();
        QSignalSpy opened(&w, &MainWindow::runOpened);
        auto* button = w.findChild<QPushButton*>("tinyRunButton");
        QVERIFY(button);
        QVERIFY(button->isVisible());
        QTest::mouseClick(button, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, streetgan::test::kWaitMs);
        RunSession* s = w.activeSession();
        QVERIFY(s->runDir().startsWith(ws + "/tiny-"));
        QTRY_VERIFY_WITH_TIMEOUT(w.dashboard()->panels()[0]->pointCount(&s->series(), Metric::LossD) > 3, streetgan::test::kWaitMs);
        QVERIFY(!button->isVisible());  // the dashboard replaced the welcome page
        s->sendCommand("stop");
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("stopped"), streetgan::test::kWaitMs);
    }
};

QTEST_MAIN(LiveRunTest)
#include "LiveRunTest.moc"
