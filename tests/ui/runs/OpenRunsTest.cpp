// The open runs of the app (OpenRuns) on real run folders (the tensorboard_runs fixture: the
// reference project's NAME/events and TensorBoard's own run-a): a folder opens once, opening it
// again activates it; the reference's NAME/ means NAME/events; a file is refused with one message;
// closing the active run activates the one opened last, with `closing` first.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "remote/SshPrompter.h"
#include "runs/OpenRuns.h"
#include "runs/RunSession.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;

class OpenRunsTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("XDG_CACHE_HOME", tmp_.filePath("cache").toLocal8Bit());
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
    }

    void opensOnceActivatesAndCloses() {
        const QString reference = QStringLiteral(STREETGAN_TEST_TB_RUNS "/reference/dcgan-msls");
        const QString runA = QStringLiteral(STREETGAN_TEST_TB_RUNS "/tf2/run-a");
        SshPrompter prompter(nullptr);
        OpenRuns runs(&prompter);
        QSignalSpy opened(&runs, &OpenRuns::opened);
        QSignalSpy active(&runs, &OpenRuns::activeChanged);
        QList<RunSession*> closing;  // (a spy's QVariant cannot be read once the session is deleted)
        connect(&runs, &OpenRuns::closing, this, [&](RunSession* s) {
            QVERIFY(runs.contains(s));  // still open, and alive, when it is announced
            closing << s;
        });
        QSignalSpy errors(&runs, &OpenRuns::errorOccurred);

        // The reference's NAME/ is its NAME/events run.
        QCOMPARE(OpenRuns::localRunDir(reference), reference + "/events");
        RunSession* ref = runs.openLocal(reference);
        QVERIFY(ref);
        QCOMPARE(ref->runDir(), reference + "/events");
        QCOMPARE(opened.count(), 1);
        QCOMPARE(runs.active(), ref);
        QVERIFY(!runs.hostOf(ref));
        QTRY_COMPARE_WITH_TIMEOUT(ref->series().rows(), size_t(60), streetgan::test::kWaitMs);

        RunSession* a = runs.openLocal(runA);
        QVERIFY(a && a != ref);
        QCOMPARE(runs.active(), a);
        // Again, by either name: the same session, made active, nothing new opened.
        QCOMPARE(runs.openLocal(reference + "/events"), ref);
        QCOMPARE(runs.active(), ref);
        QCOMPARE(opened.count(), 2);
        QCOMPARE(runs.sessions().size(), 2);

        // A file is no run: one message, nothing opened.
        QFile f(tmp_.filePath("not-a-run.txt"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QVERIFY(!runs.openLocal(f.fileName()));
        QCOMPARE(errors.count(), 1);
        QVERIFY(errors.at(0).at(0).toString().contains("not a folder"));
        QCOMPARE(runs.sessions().size(), 2);

        // Closing the active run: `closing` names it, then the last opened one is active.
        active.clear();
        runs.close(ref);
        QCOMPARE(closing.size(), 1);
        QVERIFY(closing.front() == ref);
        QCOMPARE(runs.active(), a);
        QCOMPARE(active.count(), 1);
        QVERIFY(!runs.contains(ref));
        // Closing one that is not active keeps the active one; the last close leaves none.
        RunSession* again = runs.openLocal(reference);
        QVERIFY(again);
        runs.setActive(a);
        runs.close(again);
        QCOMPARE(runs.active(), a);
        runs.close(a);
        QVERIFY(!runs.active());
        QVERIFY(runs.sessions().isEmpty());
    }
};

QTEST_MAIN(OpenRunsTest)
#include "OpenRunsTest.moc"
