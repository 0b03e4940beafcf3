// The runs sidebar on a login node (or a shared file system): a run submitted to a real one-node
// Slurm cluster (tests/support/SlurmCluster) with `streetgan-trainer submit` while another job holds
// the node's only CPU is listed from its folder (LocalRunLister) as Slurm says: queued, with the
// reason as its detail ("Resources") and its job in the tooltip, in the queued badge's colour; once
// cancelled (`control RUN stop` is scancel), cancelled. Skipped where Slurm is not installed.
#include <unistd.h>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include "runs/RunItemDelegate.h"
#include "runs/RunPalette.h"
#include "runs/RunsSidebar.h"
#include "support/ModelRow.h"
#include "support/SlurmCluster.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;
using streetgan::test::ModelRow;
using streetgan::test::SlurmCluster;

namespace {}  // namespace

class LocalSlurmRunsTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    QString trainer(const QStringList& args, int* code = nullptr) {
        QProcess p;
        p.start(STREETGAN_TRAINER, args);
        p.waitForFinished(streetgan::test::kWaitMs);
        if (code) *code = p.exitCode();
        const QByteArray out = p.readAllStandardOutput();
        return QString::fromLocal8Bit(p.exitCode() == 0 ? out : out + p.readAllStandardError());  // stdout; stderr too when it failed
    }

private slots:
    void aQueuedRunShowsSlurmsStateAndReason() {
        if (!streetgan::test::SlurmCluster::installed()) QSKIP("Slurm (slurm-wlm, munge) is not installed");
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        QDir().mkpath(tmp_.filePath("c"));
        SlurmCluster::Options o;
        o.cpus = 1;  // one CPU: a second job waits for the first
        SlurmCluster cluster(tmp_.filePath("c").toStdString(), o);
        qputenv("SLURM_CONF", QByteArray::fromStdString(cluster.slurmConf()));  // for the app's squeue and the trainer's sbatch
        const std::string blocker = cluster.submit("--output=/dev/null --wrap 'sleep 600'");
        QVERIFY(cluster.waitForJobState(blocker, "RUNNING"));

        const QString ws = tmp_.filePath("ws");
        int code = -1;
        const QString out = trainer({"submit",  "--runs",  ws,  "--name",  "waits", "--nodes",  "1",   "--tasks-per-node",   "1", "--json", "--", "--preset",
                                     "tiny-32", "--steps", "4", "--batch", "4",     "--device", "cpu", "--synthetic-images", "64"},
                                    &code);
        QVERIFY2(code == 0, qPrintable(out));
        const std::string job = nlohmann::json::parse(out.toStdString()).at("slurm").at("job_id");

        RunsSidebar s;
        s.show();
        QSignalSpy listed(&s, &RunsSidebar::localListed);
        s.setWorkspace(ws);
        QVERIFY(listed.wait(streetgan::test::kWaitMs));
        const ModelRow run{s.runIndex(RunPalette::key({}, ws + "/waits"))};
        QVERIFY(run.isValid());
        // Slurm gives the reason at its first scheduling pass ("None" before): listed again until then.
        QTRY_VERIFY_WITH_TIMEOUT((s.refresh(), run.data(1, RunItemDelegate::kDetailRole).toString() == "Resources"), streetgan::test::kWaitMs);
        QCOMPARE(run.data(1, RunItemDelegate::kStateRole).toString(), QString("queued"));
        const QString tip = run.toolTip(0);
        QVERIFY2(tip.contains(QString("Slurm job %1: Resources").arg(QString::fromStdString(job))), qPrintable(tip));

        // Stopped from here: scancel; the next listing says cancelled.
        QString stop = trainer({"control", ws + "/waits", "stop"}, &code);
        QVERIFY2(code == 0, qPrintable(stop));
        QTRY_VERIFY_WITH_TIMEOUT((s.refresh(), run.data(1, RunItemDelegate::kStateRole).toString() == "cancelled"), streetgan::test::kWaitMs);
        cluster.run("scancel " + blocker);
    }
};

QTEST_MAIN(LocalSlurmRunsTest)
#include "LocalSlurmRunsTest.moc"
