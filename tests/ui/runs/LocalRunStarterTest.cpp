// LocalRunStarter with the real trainer: a start returns at once and reports the run folder from
// its thread; a trainer that is not there, and options the trainer refuses, come back as
// failed() with notRun telling them apart; a starter destroyed mid-start reports to no one.
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "runs/LocalRunStarter.h"
#include "runs/NewRunDialog.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;

class LocalRunStarterTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    QStringList longRun(const QString& dir) const {
        QStringList args = NewRunDialog::tinyRunArguments(dir);
        args[args.indexOf("--steps") + 1] = "100000";
        args[args.indexOf("--batch") + 1] = "8";
        return args;
    }

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
    }
    void cleanupTestCase() { streetgan::test::stopRunsUnder(tmp_.path(), STREETGAN_TRAINER); }

    void startsOffTheGuiThreadAndReportsTheRunFolder() {
        LocalRunStarter starter;
        QSignalSpy started(&starter, &LocalRunStarter::started);
        QSignalSpy failed(&starter, &LocalRunStarter::failed);
        const QString dir = tmp_.filePath("runs/a run");
        starter.start(longRun(dir));
        QCOMPARE(started.count() + failed.count(), 0);  // not answered inside start(): the trainer runs on a thread
        QTRY_VERIFY_WITH_TIMEOUT(started.count() == 1 || failed.count() == 1, streetgan::test::kWaitMs);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(started.at(0).at(0).toString(), QDir(dir).canonicalPath());
    }

    void aMissingTrainerIsNotRun() {
        qputenv("STREETGAN_TRAINER", QFile::encodeName(tmp_.filePath("no-such-trainer")));
        LocalRunStarter starter;
        QSignalSpy failed(&starter, &LocalRunStarter::failed);
        starter.start(longRun(tmp_.filePath("runs/never")));
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, streetgan::test::kWaitMs);
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
        QCOMPARE(failed.at(0).at(1).toBool(), true);
        QVERIFY(!QDir(tmp_.filePath("runs/never")).exists());
    }

    void refusedOptionsComeBackAsTheTrainersLine() {
        LocalRunStarter starter;
        QSignalSpy failed(&starter, &LocalRunStarter::failed);
        QStringList args = longRun(tmp_.filePath("runs/bad"));
        args[args.indexOf("--batch") + 1] = "-3";
        starter.start(args);
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, streetgan::test::kWaitMs);
        QCOMPARE(failed.at(0).at(1).toBool(), false);
        const QString message = failed.at(0).at(0).toString();
        QVERIFY2(message.contains("--batch") && !message.contains('\n'), qPrintable(message));
    }

    // Destroyed while its trainer starts: the start finishes on its thread and the answer goes
    // nowhere (no crash); the run itself is started.
    void destroyedMidStartReportsToNoOne() {
        const QString dir = tmp_.filePath("runs/orphan");
        {
            LocalRunStarter starter;
            starter.start(longRun(dir));
        }
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir + "/trainer.pid"), streetgan::test::kWaitMs);
    }
};

QTEST_MAIN(LocalRunStarterTest)
#include "LocalRunStarterTest.moc"
