// The path a newcomer takes to a remote run, through the main window against a real OpenSSH
// server (tests/support/SshdFixture) reached by an ~/.ssh/config alias: connect to "gpubox" (a
// fresh host: no trainer on its PATH, no runs folder), set streetgan-trainer up there without root
// into a temporary prefix, start a tiny run, watch it finish. Along the way: one row per host
// whichever way it was reached (the alias, its address, the set-up), no error for a host with no
// runs yet, the run's badge reaching "finished" with the run's own last event and its check box
// checked while it is plotted; a failed host is one row, marked, with one error box.
#include <memory>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "app/AppSettings.h"
#include "app/MainWindow.h"
#include "dashboard/DashboardPage.h"
#include "dashboard/PlotPanel.h"
#include "hosts/ConnectDialog.h"
#include "hosts/TensorBoardFolderDialog.h"
#include "hosts/TrainerSetupDialog.h"
#include "remote/HostListModel.h"
#include "remote/RemoteHost.h"
#include "remote/SshPrompter.h"
#include "runs/NewRunDialog.h"
#include "runs/RunSession.h"
#include "runs/RunTargets.h"
#include "runs/RunsFilterProxy.h"
#include "runs/RunsSidebar.h"
#include "runs/RunsTreeModel.h"
#include "support/ModelRow.h"
#include "support/SshdFixture.h"
#include "support/UiTestSupport.h"

using namespace streetgan;
using namespace streetgan::ui;
using streetgan::test::ModelRow;
using streetgan::test::SshdFixture;

class NewcomerPathTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::unique_ptr<SshdFixture> sshd_;

    static QString me() {
        const passwd* pw = ::getpwuid(::getuid());
        return pw ? QString::fromLocal8Bit(pw->pw_name) : qEnvironmentVariable("USER");
    }

    /// The host as a newcomer names it: the alias of ~/.ssh/config (here a config file of the
    /// test), the trainer by its bare name (not on the host's PATH: not installed yet).
    HostConfig alias(const QString& root) const {
        HostConfig c;
        c.host = "gpubox";
        c.configFile = tmp_.filePath("ssh_config");
        c.knownHosts = tmp_.filePath("known_hosts");
        c.root = root;
        return c;
    }

    /// A real .deb of streetgan-trainer whose program is the trainer under test (a wrapper: the
    /// set-up unpacks and runs whatever the package holds).
    QString trainerDeb() {
        const QString root = tmp_.filePath("deb");
        QDir().mkpath(root + "/usr/bin");
        QDir().mkpath(root + "/DEBIAN");
        QFile prog(root + "/usr/bin/streetgan-trainer");
        if (!prog.open(QIODevice::WriteOnly)) return {};
        prog.write(QByteArray("#!/bin/sh\nexec '") + STREETGAN_TRAINER + "' \"$@\"\n");
        prog.close();
        prog.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
        QFile control(root + "/DEBIAN/control");
        if (!control.open(QIODevice::WriteOnly)) return {};
        control.write(
            "Package: streetgan-trainer\nVersion: 0.0.1\nArchitecture: all\nMaintainer: Tests <t@example.org>\nDepends: libc6\n"
            "Description: the trainer under test\n");
        control.close();
        const QString deb = tmp_.filePath("streetgan-trainer_0.0.1_all.deb");
        QProcess p;
        p.start("dpkg-deb", {"--root-owner-group", "--build", root, deb});
        p.waitForFinished(60000);
        return p.exitCode() == 0 ? deb : QString();
    }

    static int errorBoxes(const MainWindow& w) {
        int n = 0;
        for (auto* box : w.findChildren<QMessageBox*>("errorDialog"))
            if (box->isVisible()) ++n;
        return n;
    }
    static int hostItems(const RunsSidebar& s) { return s.model()->rowCount() - 1; }  // row 0: this computer

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("XDG_CACHE_HOME", tmp_.filePath("cache").toLocal8Bit());
        QDir().mkpath(tmp_.filePath("sshd"));
        SshdFixture::generateKey(tmp_.filePath("id_user").toStdString());
        QFile::copy(tmp_.filePath("id_user.pub"), tmp_.filePath("authorized_keys"));
        QDir().mkpath(tmp_.filePath("home"));
        SshdFixture::Options o;
        o.home = tmp_.filePath("home").toStdString();  // what the app searches there is the test's, not the real home
        sshd_ = std::make_unique<SshdFixture>(tmp_.filePath("sshd").toStdString(), tmp_.filePath("authorized_keys").toStdString(), o);
        QFile(tmp_.filePath("known_hosts")).open(QIODevice::WriteOnly);  // empty: the key is unknown, asked once
        QFile config(tmp_.filePath("ssh_config"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(QString("Host gpubox\n  HostName 127.0.0.1\n  Port %1\n  User %2\n  IdentityFile %3\n  IdentitiesOnly yes\n")
                         .arg(sshd_->port())
                         .arg(me(), tmp_.filePath("id_user"))
                         .toUtf8());
    }
    void cleanupTestCase() {
        streetgan::test::stopRunsUnder(tmp_.path(), STREETGAN_TRAINER);
        sshd_.reset();
    }

    // A host with no runs folder yet is the normal first state: "no runs yet", no error. A file
    // where the folder should be is a real failure: said once, the host marked with the reason.
    void freshHostHasNoRunsYet() {
        HostConfig c = alias(tmp_.filePath("fresh-runs"));  // does not exist
        c.trainer = STREETGAN_TRAINER;
        SshPrompter prompter(nullptr);
        prompter.hostKeyDialog = [](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; };
        {
            RemoteHost host(c, &prompter);
            RunsSidebar sidebar;
            sidebar.addHost(&host);
            QSignalSpy listed(&host, &RemoteHost::runsListed);
            QSignalSpy failed(&host, &RemoteHost::failed);
            host.refresh();
            QTRY_VERIFY_WITH_TIMEOUT(listed.count() + failed.count() > 0, streetgan::test::kWaitMs);
            QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
            QVERIFY(host.runs().isEmpty());
            QCOMPARE(ModelRow{sidebar.hostIndex(&host)}.text(1), QString("no runs yet"));
        }
        QFile file(tmp_.filePath("file-runs"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        c.root = file.fileName();
        RemoteHost host(c, &prompter);
        RunsSidebar sidebar;
        sidebar.addHost(&host);
        QSignalSpy failed(&host, &RemoteHost::failed);
        QSignalSpy busy(&host, &RemoteHost::busyChanged);
        host.refresh();
        host.refresh();  // the same failure twice: said once
        QTRY_VERIFY_WITH_TIMEOUT(!busy.isEmpty() && !busy.last().at(0).toBool(), streetgan::test::kWaitMs);
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.at(0).at(0).toString().contains("not a folder"), qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(ModelRow{sidebar.hostIndex(&host)}.text(1), QString("error"));  // it answered: not "not connected"
        QVERIFY(ModelRow{sidebar.hostIndex(&host)}.toolTip(1).contains("not a folder"));
    }

    void newcomerPath() {
        const QString deb = trainerDeb();
        QVERIFY(!deb.isEmpty());
        const QString root = tmp_.filePath("gpubox-runs");  // made by the first run
        MainWindow w(tmp_.filePath("workspace"));
        // Qt's own checks of the model contract on every change of the host rows.
        QAbstractItemModelTester hostsTester(w.hosts(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        int hostKeyQuestions = 0;
        w.prompter()->hostKeyDialog = [&](const HostKeyInfo&) {
            ++hostKeyQuestions;
            return HostKeyDecision::AcceptAndRemember;
        };
        w.resize(900, 700);  // narrow: the set-up hint is longer than the status bar's room
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Connect by alias: a fresh host, no trainer there, no runs folder.
        RemoteHost* host = w.connectHost(alias(root));
        QVERIFY(host);
        QCOMPARE(host->identity(), QString("%1@127.0.0.1:%2").arg(me()).arg(sshd_->port()));
        QTRY_VERIFY2_WITH_TIMEOUT(host->trainerStatus().state != TrainerStatus::Unknown && host->listed(), qPrintable(host->lastError()),
                                  streetgan::test::kWaitMs);
        QCOMPARE(host->trainerStatus().state, int(TrainerStatus::Missing));
        QCOMPARE(errorBoxes(w), 0);  // neither "no trainer" nor "no runs folder" is an error box
        QCOMPARE(ModelRow{w.sidebar()->hostIndex(host)}.text(1), QString("not installed"));
        // The status bar's hint ends before its permanent text begins (elided, whole in the tooltip).
        const QString hint = w.statusBar()->currentMessage();
        auto* permanent = w.statusBar()->findChild<QLabel*>("connectionState");
        QVERIFY(!hint.isEmpty() && permanent);
        QVERIFY2(w.statusBar()->fontMetrics().horizontalAdvance(hint) < permanent->x(), qPrintable(hint));
        if (!hint.contains("Set up streetgan-trainer on a host"))  // elided: the whole text is the tooltip
            QVERIFY(w.statusBar()->toolTip().contains("Set up streetgan-trainer on a host"));

        // The same host by its address and user: the same row, not a second one.
        HostConfig byAddress;
        byAddress.host = "127.0.0.1";
        byAddress.user = me();
        byAddress.port = sshd_->port();
        byAddress.keyFile = tmp_.filePath("id_user");
        byAddress.knownHosts = tmp_.filePath("known_hosts");
        byAddress.configFile = "none";
        byAddress.root = root;
        QCOMPARE(w.connectHost(byAddress), host);
        QCOMPARE(w.hosts()->rowCount(), 1);
        QCOMPARE(hostItems(*w.sidebar()), 1);

        // Set up without root into a temporary prefix, from the host's menu.
        emit w.sidebar()->setUpTrainerRequested(host);
        auto* setup = w.findChild<TrainerSetupDialog*>();
        QVERIFY(setup);
        setup->setMethod(TrainerSetupRequest::NoRoot);
        setup->setFile(deb);
        setup->setPrefix(tmp_.filePath("prefix"));
        QSignalSpy setupDone(setup, &TrainerSetupDialog::setupFinished);
        QVERIFY2(setup->start(), qPrintable(setup->resultText()));
        QTRY_VERIFY_WITH_TIMEOUT(!setupDone.isEmpty(), streetgan::test::kWaitMs);
        QVERIFY2(setupDone.at(0).at(0).toBool(), qPrintable(setup->logText()));
        QCOMPARE(host->config().trainer, tmp_.filePath("prefix") + "/bin/streetgan-trainer");
        QTRY_VERIFY_WITH_TIMEOUT(host->trainerStatus().state == TrainerStatus::Ready, streetgan::test::kWaitMs);
        QCOMPARE(w.hosts()->rowCount(), 1);
        QCOMPARE(hostItems(*w.sidebar()), 1);
        QCOMPARE(w.hosts()->labels(), QStringList{host->label()});  // New run's "Train on" after "This computer"

        // A tiny run on the host: it opens, is plotted, finishes.
        QSignalSpy opened(&w, &MainWindow::runOpened);
        QStringList args = NewRunDialog::tinyRunArguments(root + "/tiny");
        args[args.indexOf("--steps") + 1] = "40";
        args[args.indexOf("--batch") + 1] = "8";
        args[args.indexOf("--sample-every") + 1] = "20";
        host->startRun(args);
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), streetgan::test::kWaitMs);
        RunSession* s = w.activeSession();  // the run opened is the active one
        QVERIFY(s && s->isRemote());
        const QString key = s->runKey();
        QTRY_VERIFY_WITH_TIMEOUT(w.sidebar()->runIndex(key).isValid(), streetgan::test::kWaitMs);  // the listing's item is the session's run
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("finished"), streetgan::test::kWaitMs);
        // The badge comes from the same drain as the series: finished at once, not at the next listing.
        const ModelRow item{w.sidebar()->runIndex(key)};
        QVERIFY2(item.text(1).startsWith("finished"), qPrintable(item.text(1)));
        const QString steps = QString("%1/%2").arg(s->series().lastStep()).arg(s->series().totalSteps());
        QVERIFY2(s->series().totalSteps() == 40 && item.text(1) == "finished " + steps, qPrintable(item.text(1)));
        QCOMPARE(item.checkState(), Qt::Checked);  // plotted on the dashboard
        QVERIFY(w.sidebar()->isPlotted(key));
        QCOMPARE(hostItems(*w.sidebar()), 1);
        QCOMPARE(hostKeyQuestions, 1);
        QCOMPARE(errorBoxes(w), 0);
    }

    // Issue 41 item 1: the DL1 box. Only sshd and the reference's Python trainer writing
    // TensorBoard files under ~/runs; no streetgan software. Connected by alias with the default
    // runs folder, the app says plainly that the host has no trainer and offers both ways (watch,
    // or set up); the search finds ~/runs with its run, no path typed; Watch makes it the host's
    // runs folder (saved for the host, listed at once, the row "TensorBoard only"); the run is
    // named dcgan-msls, opens, and is followed live while the trainer writes on.
    void dl1BoxPath() {
        const QString home = tmp_.filePath("dl1-home"), run = home + "/runs/dcgan-msls/events";
        QVERIFY(QDir().mkpath(run));
        QVERIFY(QDir().mkpath(home + "/data/msls/train_val/city"));  // folders without event files
        QVERIFY(QDir().mkpath(home + "/.cache/tb/old/run"));
        const QString source = QStringLiteral(STREETGAN_TEST_TB_RUNS "/reference/dcgan-msls/events");
        const QStringList files = QDir(source).entryList({"*tfevents*"}, QDir::Files, QDir::Name);
        QCOMPARE(files.size(), 2);  // the fixture's restart: 40 steps, then 20 more
        QVERIFY(QFile::copy(source + "/" + files[0], run + "/" + files[0]));
        QVERIFY(QDir().mkpath(tmp_.filePath("dl1-sshd")));
        SshdFixture::Options o;
        o.home = home.toStdString();
        SshdFixture dl1(tmp_.filePath("dl1-sshd").toStdString(), tmp_.filePath("authorized_keys").toStdString(), o);
        QFile config(tmp_.filePath("dl1_config"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(QString("Host dl1\n  HostName 127.0.0.1\n  Port %1\n  User %2\n  IdentityFile %3\n  IdentitiesOnly yes\n")
                         .arg(dl1.port())
                         .arg(me(), tmp_.filePath("id_user"))
                         .toUtf8());
        config.close();
        HostConfig c;  // as a newcomer fills the Connect dialog: the alias, nothing else
        c.host = "dl1";
        c.configFile = config.fileName();
        c.knownHosts = tmp_.filePath("known_hosts");

        MainWindow w(tmp_.filePath("workspace-dl1"));
        w.prompter()->hostKeyDialog = [](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; };
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        RemoteHost* host = w.connectHost(c);
        QTRY_VERIFY2_WITH_TIMEOUT(host->trainerStatus().state != TrainerStatus::Unknown && host->listed(), qPrintable(host->lastError()),
                                  streetgan::test::kWaitMs);
        QCOMPARE(host->trainerStatus().state, int(TrainerStatus::Missing));
        QVERIFY(host->runs().isEmpty());  // nothing under ~/streetgan-runs
        // Said plainly, both ways offered: the dialog opened by itself, and the status bar.
        QTRY_VERIFY_WITH_TIMEOUT(w.findChild<TensorBoardFolderDialog*>(), streetgan::test::kWaitMs);
        auto* d = w.findChild<TensorBoardFolderDialog*>();
        QVERIFY(d->isVisible());
        QVERIFY2(d->headerText().contains("dl1 has no streetgan-trainer") && d->headerText().contains("watch the TensorBoard runs"),
                 qPrintable(d->headerText()));
        QVERIFY(d->findChild<QPushButton*>("tbFolderSetUp"));
        const QString hint = w.statusBar()->currentMessage() + w.statusBar()->toolTip();
        QVERIFY2(hint.contains("watch the TensorBoard runs there") && hint.contains("Set up streetgan-trainer"), qPrintable(hint));
        QCOMPARE(errorBoxes(w), 0);
        // The search finds ~/runs (no path typed), shows it in the browser, and Watch takes it.
        QTRY_VERIFY_WITH_TIMEOUT(!d->isSearching() && d->foundFolders() == QStringList{home + "/runs"}, streetgan::test::kWaitMs);
        QVERIFY2(d->searchText().contains("1 folder"), qPrintable(d->searchText()));
        QTRY_COMPARE_WITH_TIMEOUT(d->chosenFolder(), home + "/runs", streetgan::test::kWaitMs);
        auto* found = d->findChild<QListWidget*>("tbFolderFound");
        QVERIFY(found && found->count() == 1);
        QVERIFY2(found->item(0)->text().startsWith("~/runs — 1 run: dcgan-msls"), qPrintable(found->item(0)->text()));
        // Browsing: the home folder lists its folders (not the hidden one), Up returns from a folder.
        d->browse(QString());
        QTRY_COMPARE_WITH_TIMEOUT(d->chosenFolder(), home, streetgan::test::kWaitMs);
        auto* browser = d->findChild<QListWidget*>("tbFolderBrowser");
        QStringList shown;
        for (int i = 0; i < browser->count(); ++i) shown << browser->item(i)->text();
        QCOMPARE(shown, (QStringList{"data", "runs"}));
        d->browse(run);
        QTRY_COMPARE_WITH_TIMEOUT(d->chosenFolder(), run, streetgan::test::kWaitMs);
        QVERIFY2(d->folderText().contains("holds 1 event file"), qPrintable(d->folderText()));
        d->browse("~/no-such-folder");
        QTRY_VERIFY_WITH_TIMEOUT(d->folderText().startsWith("Cannot list"), streetgan::test::kWaitMs);
        QCOMPARE(d->chosenFolder(), run);  // a failed listing leaves the choice as it was
        QTest::mouseClick(d->findChild<QPushButton*>("tbFolderUp"), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(d->chosenFolder(), home + "/runs/dcgan-msls", streetgan::test::kWaitMs);
        found->setCurrentRow(-1);
        found->setCurrentRow(0);  // the found folder again
        QTRY_COMPARE_WITH_TIMEOUT(d->chosenFolder(), home + "/runs", streetgan::test::kWaitMs);
        QSignalSpy listed(host, &RemoteHost::runsListed);
        QVERIFY(d->watch());
        // At once: the host's runs folder (remembered for it), its run listed, the row honest.
        QCOMPARE(host->config().root, home + "/runs");
        bool saved = false;
        for (const HostConfig& r : AppSettings().recentHosts())
            if (r.host == "dl1" && r.root == home + "/runs") saved = true;
        QVERIFY(saved);
        QTRY_VERIFY_WITH_TIMEOUT(!host->runs().isEmpty(), streetgan::test::kWaitMs);
        QCOMPARE(host->runs().size(), 1);
        QCOMPARE(host->runs()[0].name, QString("dcgan-msls"));
        QCOMPARE(host->runs()[0].state, QString("tensorboard"));
        QCOMPARE(ModelRow{w.sidebar()->hostIndex(host)}.text(1), QString("TensorBoard only"));
        QVERIFY(ModelRow{w.sidebar()->hostIndex(host)}.toolTip(1).contains("followed over SFTP"));
        QVERIFY2(HostListModel::cannotTrainReason(host).contains("set it up first"), qPrintable(HostListModel::cannotTrainReason(host)));
        // Opened, it plots the run; the trainer writes on (a restart's file, in pieces): live.
        QSignalSpy opened(&w, &MainWindow::runOpened);
        w.openRemoteRun(host, host->runs()[0].path);
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), streetgan::test::kWaitMs);
        RunSession* s = w.activeSession();
        QVERIFY(s && s->isRemote());
        QCOMPARE(s->title(), QString("dcgan-msls @ dl1"));  // as the Runs list names it (it said dcgan-msls/events)
        QTRY_COMPARE_WITH_TIMEOUT(w.dashboard()->panels()[0]->pointCount(&s->series(), Metric::LossG), 40, streetgan::test::kWaitMs);
        QVERIFY(streetgan::test::writeInPieces(source + "/" + files[1], run + "/" + files[1], 900));
        QTRY_COMPARE_WITH_TIMEOUT(w.dashboard()->panels()[0]->pointCount(&s->series(), Metric::LossG), 60, streetgan::test::kWaitMs);
        QCOMPARE(errorBoxes(w), 0);
    }

    // The Connect dialog starts each host from its own remembered values, or blank for a new one:
    // a path typed for one host (its trainer after a set-up) never carries over to another.
    void connectDialogStartsEachHostFromItsOwnValues() {
        HostConfig gpubox = alias("runs-a");
        gpubox.trainer = "/home/me/.local/bin/streetgan-trainer";
        gpubox.user = "me";
        HostConfig other;
        other.host = "otherbox";
        other.port = 2222;
        ConnectDialog d({gpubox, other});
        QCOMPARE(d.config().trainer, gpubox.trainer);  // the newest first
        auto* host = d.findChild<QComboBox*>();
        QVERIFY(host);
        host->setCurrentText("newbox");  // typed: never connected to
        QCOMPARE(d.config().host, QString("newbox"));
        QCOMPARE(d.config().trainer, HostConfig().trainer);
        QCOMPARE(d.config().root, HostConfig().root);
        QCOMPARE(d.config().user, QString());
        host->setCurrentText("otherbox");  // a remembered one: its own values
        QCOMPARE(d.config().port, 2222);
        QCOMPARE(d.config().trainer, HostConfig().trainer);
        host->setCurrentText("gpubox");
        QCOMPARE(d.config().trainer, gpubox.trainer);
        QCOMPARE(d.config().user, QString("me"));
    }

    // Issue 41 item 5: the port field's "from config" names the port the config gives the typed
    // host (2299 here, not 22), and a port typed for a failed attempt returns to it with one click.
    void connectDialogNamesTheConfigsPort() {
        const QString cfg = tmp_.filePath("portcfg/config");
        QDir().mkpath(QFileInfo(cfg).absolutePath());
        QFile f(cfg);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("Host gpubox\n  Port 2299\nHost *\n  User me\n");
        f.close();
        HostConfig remembered;
        remembered.host = "gpubox";
        remembered.configFile = cfg;
        remembered.port = 2201;  // typed for an attempt that failed
        ConnectDialog d({remembered});
        auto* port = d.findChild<QSpinBox*>("connectPort");
        auto* reset = d.findChild<QPushButton*>("connectPortFromConfig");
        QVERIFY(port && reset);
        QCOMPARE(port->value(), 2201);
        QCOMPARE(port->specialValueText(), QString("from config (2299)"));
        QCOMPARE(d.configPort(), 2299);
        QTest::mouseClick(reset, Qt::LeftButton);
        QCOMPARE(port->value(), 0);
        QCOMPARE(port->text(), QString("from config (2299)"));
        QCOMPARE(d.config().port, 0);  // the config's, as ssh itself resolves it
    }

    // File → Set up streetgan-trainer on a host… with no host yet: it asks which one (the Connect
    // dialog, starting from the remembered host), adds it, and opens the set-up for it.
    void setUpFromTheFileMenuAsksForTheHostFirst() {
        AppSettings().addRecentHost(alias(tmp_.filePath("menu-runs")));
        MainWindow w(tmp_.filePath("workspace"));
        w.prompter()->hostKeyDialog = [](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; };
        QCOMPARE(w.hosts()->rowCount(), 0);
        bool asked = false;
        auto* answer = new QTimer(&w);  // answers the modal Connect dialog once it is up
        answer->setInterval(20);
        connect(answer, &QTimer::timeout, &w, [&] {
            auto* d = qobject_cast<ConnectDialog*>(QApplication::activeModalWidget());
            if (!d) return;
            answer->stop();
            asked = true;
            QCOMPARE(d->config().host, QString("gpubox"));  // the remembered host, its own values
            d->accept();
        });
        answer->start();
        QMetaObject::invokeMethod(
            &w, [&] { w.setUpTrainerOnAHost(); }, Qt::QueuedConnection);
        QTRY_VERIFY_WITH_TIMEOUT(w.findChild<TrainerSetupDialog*>(), streetgan::test::kWaitMs);
        QVERIFY(asked);
        QCOMPARE(w.hosts()->rowCount(), 1);
        QCOMPARE(w.hosts()->hostAt(0)->config().configFile, tmp_.filePath("ssh_config"));
        QTRY_VERIFY_WITH_TIMEOUT(w.hosts()->hostAt(0)->listed(), streetgan::test::kWaitMs);
        QCOMPARE(errorBoxes(w), 0);
    }

    // Issue 41 item 2: Connect again on a connected host with another "Runs folder there" lists
    // that folder at once and remembers it (it was ignored until a restart).
    void aNewRunsFolderOnAConnectedHostTakesEffectAtOnce() {
        const QString first = tmp_.filePath("first-runs"), second = tmp_.filePath("second-runs");
        QDir().mkpath(second + "/found-here");
        QFile marker(second + "/found-here/events.jsonl");
        QVERIFY(marker.open(QIODevice::WriteOnly));
        marker.write("{\"kind\":\"status\",\"state\":\"finished\",\"t\":1700000000,\"step\":0}\n");
        marker.close();
        MainWindow w(tmp_.filePath("workspace-roots"));
        w.prompter()->hostKeyDialog = [](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; };
        HostConfig c = alias(first);
        c.trainer = STREETGAN_TRAINER;
        RemoteHost* host = w.connectHost(c);
        QTRY_VERIFY_WITH_TIMEOUT(host->listed(), streetgan::test::kWaitMs);
        QVERIFY(host->runs().isEmpty());
        QSignalSpy listed(host, &RemoteHost::runsListed);
        c.root = second;
        QCOMPARE(w.connectHost(c), host);  // the same host, one row
        QCOMPARE(w.hosts()->rowCount(), 1);
        QCOMPARE(host->config().root, second);
        QTRY_VERIFY_WITH_TIMEOUT(!host->runs().isEmpty(), streetgan::test::kWaitMs);
        QVERIFY(host->runs().first().path.endsWith("found-here"));
        bool saved = false;
        for (const HostConfig& r : AppSettings().recentHosts())
            if (r.host == "gpubox" && r.root == second) saved = true;
        QVERIFY(saved);
        QCOMPARE(errorBoxes(w), 0);
    }

    // A host that cannot be reached: one row, marked "not connected" with the reason as its
    // tooltip, one error box (the listing and the probe both failed), and the status bar does not
    // say it a second time.
    void failedHostIsOneRowAndOneMessage() {
        const int closed = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        QVERIFY(::bind(closed, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
        socklen_t len = sizeof addr;
        ::getsockname(closed, reinterpret_cast<sockaddr*>(&addr), &len);
        const int port = ntohs(addr.sin_port);
        ::close(closed);  // nobody listens there now: connections are refused
        MainWindow w(tmp_.filePath("workspace"));
        HostConfig c;
        c.host = "127.0.0.1";
        c.port = port;
        c.configFile = "none";
        c.knownHosts = tmp_.filePath("known_hosts");
        RemoteHost* host = w.connectHost(c);
        QSignalSpy busy(host, &RemoteHost::busyChanged);
        QTRY_VERIFY_WITH_TIMEOUT(!host->lastError().isEmpty() && !busy.isEmpty() && !busy.last().at(0).toBool(), streetgan::test::kWaitMs);
        w.connectHost(c);  // again: still one row
        QTRY_VERIFY_WITH_TIMEOUT(!busy.isEmpty() && !busy.last().at(0).toBool(), streetgan::test::kWaitMs);
        QCOMPARE(w.hosts()->rowCount(), 1);
        QCOMPARE(hostItems(*w.sidebar()), 1);
        QCOMPARE(ModelRow{w.sidebar()->hostIndex(host)}.text(1), QString("not connected"));
        QCOMPARE(ModelRow{w.sidebar()->hostIndex(host)}.toolTip(1), host->lastError());
        QCOMPARE(w.hosts()->data(w.hosts()->index(0), Qt::ToolTipRole).toString(), host->lastError());
        QCOMPARE(errorBoxes(w), 1);
        QVERIFY(!w.statusBar()->currentMessage().contains(host->lastError()));

        // Issue 41 item 9: New run lists it greyed with the reason; its menu offers no reinstall
        // but its removal, which takes its row and its sidebar group away.
        const RunTargets targets(w.sidebar()->workspace(), w.hosts());  // the rows MainWindow::newRunDialog lists
        QCOMPARE(targets.unavailable().value(1), QString("not connected"));
        NewRunDialog d(targets.labels(), nullptr, targets.unavailable());
        auto* target = d.findChildren<QComboBox*>().value(0);
        QVERIFY(target && target->count() == 2);
        const auto* items = qobject_cast<QStandardItemModel*>(target->model());
        QVERIFY(items && !items->item(1)->isEnabled());
        QVERIFY2(items->item(1)->text().endsWith("— not connected"), qPrintable(items->item(1)->text()));
        QCOMPARE(d.targetIndex(), 0);
        std::unique_ptr<QMenu> menu(w.sidebar()->hostMenu(host));
        QStringList texts;
        for (QAction* a : menu->actions()) texts << a->text();
        QVERIFY2(!texts.join("|").contains("Reinstall"), qPrintable(texts.join("|")));
        QVERIFY2(texts.contains("Remove from the list"), qPrintable(texts.join("|")));
        QPointer<RemoteHost> watched(host);
        menu->actions().last()->trigger();
        QCOMPARE(w.hosts()->rowCount(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(watched.isNull(), streetgan::test::kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(hostItems(*w.sidebar()), 0, streetgan::test::kWaitMs);
    }
};

QTEST_MAIN(NewcomerPathTest)
#include "NewcomerPathTest.moc"
