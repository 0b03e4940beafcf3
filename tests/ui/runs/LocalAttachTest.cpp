// Following a local run in-process (LocalAttachWorker, streetgan_base only): a real trainer
// (`streetgan-trainer train`, our only child) is followed with no attach child process; every
// logged step arrives once, in order, across the hand-over from the file loader to the follower
// and across a second session that resumes at the first one's offset; pause, sample-now and
// resume work and are answered; a killed trainer shows as crashed and the follow ends.
#include <signal.h>
#include <unistd.h>

#include <QDirIterator>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "events/EventBuffer.h"
#include "runs/LocalAttachWorker.h"
#include "runs/NewRunDialog.h"
#include "runs/RunSession.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;

namespace {

/// Every metrics row `logEvery` steps after the one before (the last may cover a partial interval).
QString gapOrDuplicate(const RunSeries& r, double logEvery) {
    for (size_t i = 1; i + 1 < r.rows(); ++i) {
        const double d = r.x(XAxisMode::Step, i) - r.x(XAxisMode::Step, i - 1);
        if (d != logEvery) return QString("row %1: step %2 after %3").arg(i).arg(r.x(XAxisMode::Step, i)).arg(r.x(XAxisMode::Step, i - 1));
    }
    return {};
}

}  // namespace

class LocalAttachTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() { streetgan::test::isolateSettings(tmp_.filePath("settings")); }
    void cleanupTestCase() { streetgan::test::stopRunsUnder(tmp_.path(), STREETGAN_TRAINER); }

    void followsInProcessCommandsAndCrash() {
        const QString dir = tmp_.filePath("run");
        QStringList args = NewRunDialog::tinyRunArguments(dir);
        args[args.indexOf("--steps") + 1] = "1000000";
        args[args.indexOf("--batch") + 1] = "8";
        args[args.indexOf("--sample-every") + 1] = "0";
        QProcess trainer;
        trainer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        trainer.start(STREETGAN_TRAINER, QStringList{"train"} + args);
        QVERIFY(trainer.waitForStarted(10000));
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(dir + "/events.jsonl").size() > 2000, streetgan::test::kWaitMs);  // some steps logged

        auto s = std::make_unique<RunSession>(dir, STREETGAN_TRAINER);
        QSignalSpy connection(s.get(), &RunSession::connectionChanged);
        s->start();
        QTRY_VERIFY_WITH_TIMEOUT(!connection.isEmpty() && connection.last().at(0).toString().contains("following live"), streetgan::test::kWaitMs);
        QCOMPARE(QString::fromStdString(s->series().state()), QString("running"));
        const size_t before = s->series().rows();
        QTRY_VERIFY_WITH_TIMEOUT(s->series().rows() > before + 10, streetgan::test::kWaitMs);  // live events arrive
        // no attach child: the trainer is our only child process
        QCOMPARE(streetgan::test::childPids(), QList<pid_t>{static_cast<pid_t>(trainer.processId())});

        QSignalSpy replies(s.get(), &RunSession::replyReceived);
        s->sendCommand("pause");
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("paused"), streetgan::test::kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!replies.isEmpty(), streetgan::test::kWaitMs);
        QVERIFY2(replies.first().at(0).toString().contains("\"ok\":true"), qPrintable(replies.first().at(0).toString()));
        const size_t samples = s->series().samples().size();
        s->sendCommand("sample-now");
        QTRY_COMPARE_WITH_TIMEOUT(s->series().samples().size(), samples + 1, streetgan::test::kWaitMs);
        s->sendCommand("resume");
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("running"), streetgan::test::kWaitMs);
        const size_t resumed = s->series().rows();
        QTRY_VERIFY_WITH_TIMEOUT(s->series().rows() > resumed + 10, streetgan::test::kWaitMs);

        // A command sent while a newly opened session still reads the backlog (start() sets
        // loading at once; the follower that carries commands starts after it) is sent once the
        // follower starts, not lost.
        {
            RunSession early(dir, STREETGAN_TRAINER);
            QSignalSpy earlyReplies(&early, &RunSession::replyReceived);
            early.start();
            QVERIFY(early.loading());
            early.sendCommand("pause");
            QTRY_VERIFY_WITH_TIMEOUT(!earlyReplies.isEmpty(), streetgan::test::kWaitMs);
            QVERIFY2(earlyReplies.first().at(0).toString().contains("\"ok\":true"), qPrintable(earlyReplies.first().at(0).toString()));
            QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(early.series().state()), QString("paused"), streetgan::test::kWaitMs);
            early.sendCommand("resume");
            QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(early.series().state()), QString("running"), streetgan::test::kWaitMs);
        }

        // a second follower resumes at the first session's offset: its first row is the step
        // after the session's last one, and none is lost or repeated after it
        const qint64 offset = s->series().offset();
        const double lastStep = s->series().x(XAxisMode::Step, s->series().rows() - 1);
        QVERIFY(offset > 0);
        auto buffer = std::make_shared<EventBuffer>();
        RunSeries second;
        auto drain = [&] {
            if (buffer->hasPending()) second.append(buffer->take());
            return second.rows();
        };
        {
            LocalAttachWorker w(buffer, dir);
            w.start(offset);
            QTRY_VERIFY_WITH_TIMEOUT(drain() > 10, streetgan::test::kWaitMs);
            w.stop();
        }
        QCOMPARE(second.x(XAxisMode::Step, 0), lastStep + 2);
        const QString secondGap = gapOrDuplicate(second, 2);
        QVERIFY2(secondGap.isEmpty(), qPrintable(secondGap));

        // the trainer killed: crashed, and the follow ends
        trainer.kill();
        QVERIFY(trainer.waitForFinished(20000));
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("crashed"), streetgan::test::kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(connection.last().at(0).toString().contains("ended"), streetgan::test::kWaitMs);
        const QString gap = gapOrDuplicate(s->series(), 2);
        QVERIFY2(gap.isEmpty(), qPrintable(gap));
    }
};

QTEST_MAIN(LocalAttachTest)
#include "LocalAttachTest.moc"
