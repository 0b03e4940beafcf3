// The app's Slurm target against the real thing: a one-node Slurm cluster (tests/support/
// SlurmCluster, one CPU) reached as a login node through the test sshd (SetEnv SLURM_CONF), as a
// host of the app whose HostConfig says "slurm". New run's rows and job fields (RunTargets,
// NewRunDialog with SlurmJobFields: a bad value is one line in the dialog), RemoteHost::submitRun
// (SlurmRunLauncher on the host's worker): a run listed queued with Slurm's reason while another
// job holds the node, then running with steps, then finished; a second run cancelled from the app
// (RemoteHost::cancelRun, what Stop does for a Slurm run) shown cancelled; a partition Slurm
// refuses as one line. Prints the seconds from submit to the run listed with its first step and
// from the cancel to the run listed cancelled.
#include <unistd.h>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <fstream>

#include "app/MainWindow.h"
#include "base/remote/SshOptions.h"
#include "remote/HostListModel.h"
#include "remote/RemoteHost.h"
#include "remote/SshPrompter.h"
#include "runs/NewRunDialog.h"
#include "runs/RunSession.h"
#include "runs/RunTargets.h"
#include "runs/RunsSidebar.h"
#include "runs/SlurmJobFields.h"
#include "support/SlurmCluster.h"
#include "support/SshdFixture.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;
using streetgan::HostKeyDecision;
using streetgan::HostKeyInfo;
using streetgan::test::SlurmCluster;
using streetgan::test::SshdFixture;

class SlurmHostTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::unique_ptr<SlurmCluster> cluster_;
    std::unique_ptr<SshdFixture> sshd_;

    HostConfig login() const {
        HostConfig c;
        c.host = "127.0.0.1";
        c.port = sshd_->port();
        c.keyFile = tmp_.filePath("id_user");
        c.knownHosts = tmp_.filePath("known_hosts");
        c.configFile = "none";
        c.root = "runs";  // relative: under the login node's home
        c.trainer = STREETGAN_TRAINER;
        c.scheduler = HostConfig::kSlurm;
        return c;
    }
    static QStringList tinyRun(const QString& runDir, int steps) {
        return {"--run-dir",          runDir, "--preset", "tiny-32", "--steps", QString::number(steps), "--batch", "4", "--log-every", "1",
                "--synthetic-images", "32",   "--device", "cpu"};
    }

    // A run that goes on until it is cancelled, writing no epoch-end checkpoint or grid meanwhile
    // (a test killed mid-way must not leave a run filling the disk).
    static QStringList endlessRun(const QString& runDir) {
        QStringList args = tinyRun(runDir, 1000000);
        args[args.indexOf("--synthetic-images") + 1] = "100000";
        return args << "--sample-every"
                    << "0";
    }

private slots:
    void initTestCase() {
        if (!streetgan::test::SlurmCluster::installed()) QSKIP("Slurm (slurm-wlm, munge) is not installed");
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        for (const char* d : {"c", "sshd", "home"}) QDir().mkpath(tmp_.filePath(d));
        SlurmCluster::Options c;
        c.cpus = 1;  // a second job waits for the first
        cluster_ = std::make_unique<SlurmCluster>(tmp_.filePath("c").toStdString(), c);
        SshdFixture::generateKey(tmp_.filePath("id_user").toStdString());
        QFile::copy(tmp_.filePath("id_user.pub"), tmp_.filePath("authorized_keys"));
        SshdFixture::Options o;
        o.home = tmp_.filePath("home").toStdString();
        o.setEnv = {"SLURM_CONF=" + cluster_->slurmConf()};
        sshd_ = std::make_unique<SshdFixture>(tmp_.filePath("sshd").toStdString(), tmp_.filePath("authorized_keys").toStdString(), o);
        std::ofstream(tmp_.filePath("known_hosts").toStdString()) << sshd_->knownHostsLine();
    }
    void cleanupTestCase() {
        sshd_.reset();
        cluster_.reset();
    }

    // The host's row says Slurm and the dialog shows the job's fields; a bad value is one line
    // under them and the dialog stays open; the settings keep the scheduler.
    void aSlurmHostsRowShowsTheJobsFields() {
        HostListModel hosts(nullptr);
        HostConfig plain = login();
        plain.scheduler.clear();
        plain.host = "plain.invalid";
        hosts.hostFor(plain);
        hosts.hostFor(login());
        const RunTargets targets("/work/space", &hosts);
        QCOMPARE(targets.slurm(), (QList<bool>{false, false, true}));
        QVERIFY2(targets.at(2).label.startsWith("Slurm cluster via "), qPrintable(targets.at(2).label));
        QCOMPARE(HostConfig::fromVariant(login().toVariant()).scheduler, QString("slurm"));
        QVERIFY(!HostConfig::fromVariant(QVariantMap{{"host", "x"}, {"scheduler", "pbs"}}).isSlurm());

        NewRunDialog d(targets.labels(), nullptr, {});
        d.setSlurmTargets(targets.slurm());
        auto* target = d.findChildren<QComboBox*>().value(0);
        QVERIFY(!d.slurmFields()->isVisibleTo(&d));
        target->setCurrentIndex(2);
        QVERIFY(d.slurmTarget());
        QVERIFY(d.slurmFields()->isVisibleTo(&d));
        auto* time = d.slurmFields()->findChild<QLineEdit*>("slurmTime");
        auto* partition = d.slurmFields()->findChild<QLineEdit*>("slurmPartition");
        QVERIFY(time && partition);
        time->setText("soon");
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Rejected));  // stays open
        auto* problem = d.slurmFields()->findChild<QLabel*>("slurmProblem");
        QVERIFY(problem && problem->isVisibleTo(&d));
        QVERIFY2(problem->text().contains("soon") && !problem->text().contains('\n'), qPrintable(problem->text()));
        time->setText("00:10:00");
        partition->setText("debug");
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Accepted));
        QCOMPARE(d.slurmJob().timeLimit, std::string("00:10:00"));
        QCOMPARE(d.slurmJob().partition, std::string("debug"));
    }

    void submitQueuedRunningFinishedCancelledAndRefused() {
        SshPrompter prompter(nullptr);
        RemoteHost host(login(), &prompter);
        QSignalSpy submitted(&host, &RemoteHost::runSubmitted);
        QSignalSpy cancelled(&host, &RemoteHost::runCancelled);
        QSignalSpy failed(&host, &RemoteHost::failed);
        const auto entry = [&](const QString& path) -> RunEntry {
            const RunEntry* r = host.listedRun(path);
            return r ? *r : RunEntry{};
        };

        // The node is busy: the run waits queued, with Slurm's reason, in the host's listing.
        const std::string blocker = cluster_->submit("--output=/dev/null --wrap 'sleep 600'");
        QVERIFY2(cluster_->waitForJobState(blocker, "RUNNING"), cluster_->describe(blocker).c_str());
        streetgan::SlurmJobSpec job;
        job.timeLimit = "00:10:00";
        QElapsedTimer clock;
        clock.start();
        host.submitRun(tinyRun("runs/tiny", 6), job);
        QTRY_VERIFY2_WITH_TIMEOUT(submitted.count() + failed.count() > 0, qPrintable(failed.isEmpty() ? QString() : failed.last().at(0).toString()),
                                  streetgan::test::kWaitMs);
        QCOMPARE(failed.count(), 0);
        const QString run = submitted.last().at(0).toString();
        QCOMPARE(run, QDir(tmp_.filePath("home")).canonicalPath() + "/runs/tiny");
        QVERIFY(host.isSlurmRun(run));
        host.refresh();  // then the host lists again by itself every 2 s while a Slurm run moves
        QTRY_VERIFY_WITH_TIMEOUT(entry(run).state == "queued" && !entry(run).reason.isEmpty(), streetgan::test::kWaitMs);
        QCOMPARE(entry(run).reason, QString("Resources"));
        QVERIFY(!entry(run).slurmJob.isEmpty());

        // The node free: running with its steps, then finished as Slurm says.
        QCOMPARE(cluster_->run("scancel " + blocker).code, 0);
        QTRY_VERIFY2_WITH_TIMEOUT(entry(run).step > 0, qPrintable(entry(run).state), streetgan::test::kWaitMs);
        qInfo("submit -> the run listed in the app with its first step: %.1f s", clock.elapsed() / 1000.0);
        QTRY_VERIFY2_WITH_TIMEOUT(entry(run).state == "finished", qPrintable(entry(run).state + " " + entry(run).reason), streetgan::test::kWaitMs);
        QCOMPARE(entry(run).step, qint64(6));

        // A long run cancelled from the app while it runs: shown cancelled.
        host.submitRun(endlessRun("runs/long"), job);
        QTRY_VERIFY_WITH_TIMEOUT(submitted.count() == 2 || failed.count() > 0, streetgan::test::kWaitMs);
        const QString longRun = submitted.last().at(0).toString();
        QTRY_VERIFY2_WITH_TIMEOUT(entry(longRun).step > 0, qPrintable(entry(longRun).state), streetgan::test::kWaitMs);
        clock.restart();
        host.cancelRun(longRun);
        QTRY_VERIFY_WITH_TIMEOUT(cancelled.count() == 1, streetgan::test::kWaitMs);
        QTRY_VERIFY2_WITH_TIMEOUT(entry(longRun).state == "cancelled", qPrintable(entry(longRun).state), streetgan::test::kWaitMs);
        qInfo("cancel from the app -> the run listed cancelled: %.1f s", clock.elapsed() / 1000.0);

        // A partition Slurm does not know: one line, naming it; no run left behind.
        job.partition = "nosuchpartition";
        host.submitRun(tinyRun("runs/refused", 2), job);
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, streetgan::test::kWaitMs);
        const QString line = failed.last().at(0).toString();
        QVERIFY2(line.contains("--partition nosuchpartition") && !line.contains('\n'), qPrintable(line));
        QVERIFY(!QFileInfo::exists(tmp_.filePath("home/runs/refused")));
        QCOMPARE(submitted.count(), 2);
    }

    // The window: a submitted run opens at once and waits queued (Slurm's reason in the listing),
    // is plotted live once its job runs, and finishes; a queued run stopped with Run > Stop is
    // cancelled. Prints submit -> first plotted point and Stop -> shown cancelled.
    void theWindowPlotsASubmittedRunAndStopCancelsAQueuedOne() {
        MainWindow w(tmp_.filePath("workspace"));
        w.prompter()->hostKeyDialog = [](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; };
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        RemoteHost* host = w.connectHost(login());
        QTRY_VERIFY2_WITH_TIMEOUT(host->listed(), qPrintable(host->lastError()), streetgan::test::kWaitMs);
        const std::string blocker = cluster_->submit("--output=/dev/null --wrap 'sleep 600'");
        QVERIFY2(cluster_->waitForJobState(blocker, "RUNNING"), cluster_->describe(blocker).c_str());

        QSignalSpy opened(&w, &MainWindow::runOpened);
        streetgan::SlurmJobSpec job;
        job.timeLimit = "00:10:00";
        QElapsedTimer clock;
        clock.start();
        host->submitRun(tinyRun("runs/window", 30), job);
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), streetgan::test::kWaitMs);
        const QString run = w.activeSession()->runDir();
        QCOMPARE(run, QDir(tmp_.filePath("home")).canonicalPath() + "/runs/window");
        const auto listed = [&](const QString& path) {
            const RunEntry* r = host->listedRun(path);
            return r ? *r : RunEntry{};
        };
        QTRY_VERIFY_WITH_TIMEOUT(listed(run).state == "queued" && listed(run).reason == "Resources", streetgan::test::kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(w.sidebar()->runIndex(w.activeSession()->runKey()).isValid(), streetgan::test::kWaitMs);

        QCOMPARE(cluster_->run("scancel " + blocker).code, 0);
        QTRY_VERIFY_WITH_TIMEOUT(w.activeSession() && w.activeSession()->runDir() == run && w.activeSession()->series().lastStep() > 0,
                                 streetgan::test::kWaitMs);
        qInfo("submit -> first point plotted in the app: %.1f s", clock.elapsed() / 1000.0);
        QVERIFY(w.sidebar()->isPlotted(w.activeSession()->runKey()));
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(w.activeSession()->series().state()), QString("finished"), streetgan::test::kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(listed(run).state, QString("finished"), streetgan::test::kWaitMs);

        // A run waiting behind another job, stopped from the app's Run menu: scancel.
        const std::string blocker2 = cluster_->submit("--output=/dev/null --wrap 'sleep 600'");
        QVERIFY2(cluster_->waitForJobState(blocker2, "RUNNING"), cluster_->describe(blocker2).c_str());
        host->submitRun(tinyRun("runs/stopped", 30), job);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() >= 3 && w.activeSession()->runDir().endsWith("/runs/stopped"), streetgan::test::kWaitMs);
        const QString stopped = w.activeSession()->runDir();
        QTRY_VERIFY_WITH_TIMEOUT(listed(stopped).state == "queued", streetgan::test::kWaitMs);
        QAction* stop = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text() == "&Stop") stop = a;
        QVERIFY(stop);
        QTRY_VERIFY_WITH_TIMEOUT(stop->isEnabled(), streetgan::test::kWaitMs);  // a queued job can be cancelled
        auto* yes = new QTimer(&w);                                             // answers the confirmation (a modal box) once it shows
        connect(yes, &QTimer::timeout, yes, [yes] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                box->button(QMessageBox::Yes)->click();
                yes->stop();
            }
        });
        yes->start(20);
        clock.restart();
        stop->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(listed(stopped).state, QString("cancelled"), streetgan::test::kWaitMs);
        qInfo("Stop in the app -> the queued run shown cancelled: %.1f s", clock.elapsed() / 1000.0);
        QCOMPARE(cluster_->job(blocker2)["JobState"], std::string("RUNNING"));  // only its own job was cancelled
        QCOMPARE(cluster_->run("scancel " + blocker2).code, 0);
    }
};

QTEST_MAIN(SlurmHostTest)
#include "SlurmHostTest.moc"
