// A run across several hosts from the app (issue 45 item 4) against two real test sshds on
// 127.0.0.1, each session with a $HOME of its own (two "hosts", as in test_multihost). New run's
// "Several hosts" row and its validation (fewer than two hosts checked, a host that cannot train,
// different trainers: one red line, the dialog stays open); the whole path in the window: both
// hosts picked in the dialog, a tiny CPU (Gloo) run started across them (MultiHostRuns on its own
// thread), listed once (under rank 0's host), plotted, and Run → Stop leaving no rank process on
// either host; a host that is down and a trainer missing on one host are one line each, with
// nothing left running on the other. Prints the seconds from Start to the first plotted point and
// from Stop to every rank gone. Screenshot: multihost-new-run.png (STREETGAN_SCREENSHOT_DIR).
#include <signal.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <fstream>

#include "app/MainWindow.h"
#include "remote/HostListModel.h"
#include "remote/MultiHostRuns.h"
#include "remote/RemoteHost.h"
#include "remote/SshPrompter.h"
#include "runs/MultiHostFields.h"
#include "runs/NewRunDialog.h"
#include "runs/RunSession.h"
#include "runs/RunTargets.h"
#include "runs/RunsSidebar.h"
#include "support/SshdFixture.h"
#include "support/UiTestSupport.h"
#include "ui/remote/LoopbackHost.h"

using namespace streetgan::ui;
using streetgan::HostKeyDecision;
using streetgan::HostKeyInfo;
using streetgan::test::SshdFixture;

namespace {

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The trainer processes of a run on the "host" whose sessions have $HOME `home`: a launch or a
// rank (argv[1] launch or train) of the trainer's programs, not a zombie, with that HOME (sshd's
// SetEnv, inherited by every process a session starts). An attach of the app is none of them.
QList<qint64> ranksOn(const QString& home) {
    QList<qint64> found;
    // The trainer and the LibTorch program it runs `train` (and a rank) with: streetgan-trainer*.
    const QString trainer = QFileInfo(STREETGAN_TRAINER).canonicalFilePath();
    const QByteArray homeVar = "HOME=" + home.toLocal8Bit();
    for (const QFileInfo& p : QDir("/proc").entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool ok = false;
        const qint64 pid = p.fileName().toLongLong(&ok);
        if (!ok || !QFileInfo(p.filePath() + "/exe").canonicalFilePath().startsWith(trainer)) continue;
        const QByteArray stat = readAll(p.filePath() + "/stat");
        if (stat.mid(stat.lastIndexOf(')') + 2, 1) == "Z") continue;
        const QList<QByteArray> argv = readAll(p.filePath() + "/cmdline").split('\0');
        if (argv.size() < 2 || (argv[1] != "launch" && argv[1] != "train")) continue;
        if (readAll(p.filePath() + "/environ").split('\0').contains(homeVar)) found << pid;
    }
    return found;
}

}  // namespace

class MultiHostRunTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::unique_ptr<SshdFixture> hostA_, hostB_;

    QString home(const char* which) const { return QDir(tmp_.filePath(which)).canonicalPath(); }
    HostConfig config(const SshdFixture& sshd) const {
        HostConfig c = streetgan::test::loopbackHost(sshd.port(), tmp_);
        c.root = "runs";  // relative: under each host's home, as on two machines
        return c;
    }
    void noRankLeft() {
        for (const char* h : {"homeA", "homeB"})
            for (qint64 pid : ranksOn(home(h))) ::kill(static_cast<pid_t>(pid), SIGKILL);
    }

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        for (const char* d : {"a", "b", "homeA", "homeB"}) QDir().mkpath(tmp_.filePath(d));
        SshdFixture::generateKey(tmp_.filePath("id_user").toStdString());
        QFile::copy(tmp_.filePath("id_user.pub"), tmp_.filePath("authorized_keys"));
        SshdFixture::Options a, b;
        a.home = home("homeA").toStdString();
        b.home = home("homeB").toStdString();
        hostA_ = std::make_unique<SshdFixture>(tmp_.filePath("a").toStdString(), tmp_.filePath("authorized_keys").toStdString(), a);
        hostB_ = std::make_unique<SshdFixture>(tmp_.filePath("b").toStdString(), tmp_.filePath("authorized_keys").toStdString(), b);
        std::ofstream(tmp_.filePath("known_hosts").toStdString()) << hostA_->knownHostsLine() << "\n" << hostB_->knownHostsLine() << "\n";
    }
    void cleanup() { noRankLeft(); }
    void cleanupTestCase() {
        noRankLeft();
        hostA_.reset();
        hostB_.reset();
    }

    // The row shows with two plain hosts only; fewer than two checked, a host that cannot train
    // and two trainers are each one line in the dialog's red, and the dialog stays open.
    void theDialogsSeveralHostsRowAndItsRefusals() {
        HostListModel hosts(nullptr);
        HostConfig a = config(*hostA_), b = config(*hostB_);
        hosts.hostFor(a);
        QCOMPARE(RunTargets("/w", &hosts).multiHostRow(), -1);  // one host: no row
        hosts.hostFor(b);
        const RunTargets targets("/w", &hosts);
        QCOMPARE(targets.multiHostRow(), 3);
        NewRunDialog d(targets.labels(), nullptr, targets.unavailable());
        d.setMultiHostTarget(targets.multiHostRow(), targets.multiHostChoices());
        QVERIFY(!d.multiHostFields()->isVisibleTo(&d));
        d.findChildren<QComboBox*>().value(0)->setCurrentIndex(3);
        QVERIFY(d.multiHostTarget() && d.multiHostFields()->isVisibleTo(&d));
        MultiHostFields* f = d.multiHostFields();
        auto* problem = f->findChild<QLabel*>("multiHostProblem");
        QVERIFY(problem);
        const auto refused = [&](const QString& words) {
            d.accept();
            return d.result() == QDialog::Rejected && problem->isVisibleTo(&d) && problem->text().contains(words) && !problem->text().contains('\n');
        };
        // Never connected: listed with the reason, not checked.
        QVERIFY2(f->findChild<QCheckBox*>("multiHost1")->text().endsWith("— not connected yet"), qPrintable(f->findChild<QCheckBox*>("multiHost1")->text()));
        QVERIFY2(refused("(0 checked)"), qPrintable(problem->text()));
        f->setChecked(0, true);
        QVERIFY(!problem->isVisibleTo(&d));  // a change clears the line
        QVERIFY2(refused("(1 checked)"), qPrintable(problem->text()));
        f->setChecked(1, true);
        QVERIFY2(refused(a.label() + " cannot train now (not connected yet)"), qPrintable(problem->text()));
        QVERIFY(problem->styleSheet().contains("#b00020"));
        // Two trainers (both hosts able to train): named.
        QList<MultiHostFields::Host> two{{"a@x:22", {}, "streetgan-trainer"}, {"b@y:22", {}, "/opt/sg/streetgan-trainer"}};
        f->setHosts(two);
        QCOMPARE(f->chosen(), (QList<int>{0, 1}));
        QVERIFY2(refused("b@y:22 runs /opt/sg/streetgan-trainer"), qPrintable(problem->text()));
        two[1].trainer = two[0].trainer;
        f->setHosts(two);
        f->setRank0(1);
        QCOMPARE(f->chosen(), (QList<int>{1, 0}));  // rank 0's host first
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Accepted));
    }

    // The window's whole path: the dialog picks both hosts, the run starts across them, shows
    // once, plots, and Stop leaves no rank on either host.
    void bothHostsPickedInTheDialogRunAsOneAndStopEndsEveryRank() {
        MainWindow w(tmp_.filePath("workspace"));
        w.prompter()->hostKeyDialog = [](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; };
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        RemoteHost* a = w.connectHost(config(*hostA_));
        RemoteHost* b = w.connectHost(config(*hostB_));
        for (RemoteHost* h : {a, b})
            QTRY_VERIFY2_WITH_TIMEOUT(h->listed() && HostListModel::cannotTrainReason(h).isEmpty(), qPrintable(h->lastError()), streetgan::test::kWaitMs);

        // New run, as the user does it: the "Several hosts" row, both checked, A rank 0's.
        QAction* newRun = nullptr;
        for (QAction* act : w.findChildren<QAction*>())
            if (act->text() == "&New run…") newRun = act;
        QVERIFY(newRun);
        QString seen;  // what the dialog showed when one host was unchecked
        QElapsedTimer clock;
        auto* driver = new QTimer(&w);
        connect(driver, &QTimer::timeout, driver, [&, driver] {
            auto* d = qobject_cast<NewRunDialog*>(QApplication::activeModalWidget());
            if (!d) return;
            driver->stop();
            auto* target = d->findChildren<QComboBox*>().value(0);
            target->setCurrentIndex(target->count() - 1);
            for (QLineEdit* e : d->findChildren<QLineEdit*>())
                if (e->text().startsWith("run-")) e->setText("across");  // the run's name
            for (QSpinBox* s : d->findChildren<QSpinBox*>())
                if (s->value() == 2000) s->setValue(1000000);  // the tiny preset's steps: runs until stopped
            MultiHostFields* f = d->multiHostFields();
            f->setChecked(1, false);
            d->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
            seen = f->findChild<QLabel*>("multiHostProblem")->text();
            f->setChecked(1, true);
            f->setRank0(0);
            d->adjustSize();
            d->grab().save(qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR", "/tmp") + "/multihost-new-run.png");
            clock.start();
            d->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
        });
        driver->start(20);
        QSignalSpy failed(&w, &MainWindow::runStartFailed);
        newRun->trigger();
        QVERIFY2(seen.contains("(1 checked)"), qPrintable(seen));
        const QString run = home("homeA") + "/runs/across";
        QTRY_VERIFY2_WITH_TIMEOUT((w.activeSession() && w.activeSession()->runDir() == run) || !failed.isEmpty(),
                                  qPrintable(failed.isEmpty() ? QString() : failed.last().at(0).toString()), streetgan::test::kWaitMs);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed.last().at(0).toString()));
        RunSession* s = w.activeSession();
        QCOMPARE(s->hostLabel(), a->label());

        // Plotted, listed once: under host A; host B holds only its node's log, which no listing shows.
        QTRY_VERIFY_WITH_TIMEOUT(w.activeSession() == s && s->series().lastStep() > 0, streetgan::test::kWaitMs);
        qInfo("Start in the dialog -> first point plotted in the app: %.1f s", clock.elapsed() / 1000.0);
        QVERIFY(w.sidebar()->isPlotted(s->runKey()));
        QTRY_VERIFY_WITH_TIMEOUT(w.sidebar()->runIndex(s->runKey()).isValid(), streetgan::test::kWaitMs);
        QSignalSpy listedB(b, &RemoteHost::runsListed);
        b->refresh();
        QTRY_VERIFY_WITH_TIMEOUT(!listedB.isEmpty(), streetgan::test::kWaitMs);
        int listed = 0;
        for (RemoteHost* h : {a, b})
            for (const RunEntry& r : h->runs()) listed += r.path.endsWith("/across") ? 1 : 0;
        QCOMPARE(listed, 1);
        QVERIFY(QFileInfo::exists(home("homeB") + "/runs/across/launch-node1.log"));
        QVERIFY(!ranksOn(home("homeA")).isEmpty());  // a launch and its rank on each host
        QVERIFY(!ranksOn(home("homeB")).isEmpty());

        // Run → Stop: every rank on every host.
        QAction* stop = nullptr;
        for (QAction* act : w.findChildren<QAction*>())
            if (act->text() == "&Stop") stop = act;
        QVERIFY(stop);
        QTRY_VERIFY_WITH_TIMEOUT(stop->isEnabled(), streetgan::test::kWaitMs);
        auto* yes = new QTimer(&w);  // answers the confirmation (a modal box) once it shows
        connect(yes, &QTimer::timeout, yes, [yes] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                box->button(QMessageBox::Yes)->click();
                yes->stop();
            }
        });
        yes->start(20);
        QVERIFY(w.findChild<MultiHostRuns*>());
        QSignalSpy stopped(w.findChild<MultiHostRuns*>(), &MultiHostRuns::stopped);
        clock.restart();
        stop->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(ranksOn(home("homeA")).isEmpty() && ranksOn(home("homeB")).isEmpty(), streetgan::test::kWaitMs);
        qInfo("Stop in the app -> no rank left on either host: %.1f s", clock.elapsed() / 1000.0);
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("stopped"), streetgan::test::kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!stopped.isEmpty(), streetgan::test::kWaitMs);  // the launcher's stop returned: no rank left, by its own look
        QCOMPARE(stopped.last().at(1).toString(), a->label() + ", " + b->label());
        QVERIFY(w.findChildren<QMessageBox*>("errorDialog").isEmpty());
    }

    // A trainer missing on one host, and a host that is down: one line naming it; nothing left
    // running on the other host.
    void aMissingTrainerOrAHostDownIsOneLineAndNothingIsLeft() {
        QDir().mkpath(home("homeA") + "/bin");
        QVERIFY(QFile::link(STREETGAN_TRAINER, home("homeA") + "/bin/streetgan-trainer"));
        HostConfig ca = config(*hostA_), cb = config(*hostB_);
        ca.trainer = cb.trainer = "bin/streetgan-trainer";  // from each home: there on A only
        SshPrompter prompter(nullptr);
        RemoteHost a(ca, &prompter), b(cb, &prompter);
        MultiHostRuns runs;
        QSignalSpy started(&runs, &MultiHostRuns::started);
        QSignalSpy failed(&runs, &MultiHostRuns::failed);
        QStringList args = NewRunDialog::tinyRunArguments("runs/missing");
        args[args.indexOf("--steps") + 1] = "1000000";
        runs.start({&a, &b}, 1, args);
        QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty() || !failed.isEmpty(), streetgan::test::kWaitMs);
        QCOMPARE(started.count(), 0);
        QString line = failed.last().at(0).toString();
        QVERIFY2(line.contains(b.label()) && line.contains("every node already started was stopped") && !line.contains('\n'), qPrintable(line));
        QVERIFY(ranksOn(home("homeA")).isEmpty());  // node 0 had started on A: stopped before the line came

        // Host B down: its line, and nothing starts on A.
        hostB_->stop();
        args[args.indexOf("--run-dir") + 1] = "runs/down";
        runs.start({&a, &b}, 1, args);
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 2, streetgan::test::kWaitMs);
        line = failed.last().at(0).toString();
        QVERIFY2(line.contains(QString::number(hostB_->port())) && !line.contains('\n'), qPrintable(line));
        QVERIFY(ranksOn(home("homeA")).isEmpty());
        QVERIFY(!QFileInfo::exists(home("homeA") + "/runs/down/run.json"));
        hostB_->restart();
    }
};

QTEST_MAIN(MultiHostRunTest)
#include "MultiHostRunTest.moc"
