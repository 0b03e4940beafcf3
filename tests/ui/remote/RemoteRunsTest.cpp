// Remote runs through a real OpenSSH server (tests/support/SshdFixture): the unknown host key is
// shown to the user (its fingerprint) and accepted, the host's runs are listed with their state,
// a remote run is followed over SSH into the same series and plots as a local one, and sample
// grids come back through SFTP.
#include <QDeadlineTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cerrno>

#include <QPushButton>
#include <QTreeView>
#include "dashboard/DashboardPage.h"
#include "dashboard/PlotPanel.h"
#include "dashboard/SamplesPage.h"
#include "dashboard/ScalarsPanel.h"
#include "remote/HostListModel.h"
#include "remote/RemoteCheckpointFetcher.h"
#include "remote/RemoteHost.h"
#include "remote/SshPrompter.h"
#include "runs/NewRunDialog.h"
#include "runs/OpenRuns.h"
#include "runs/RunSession.h"
#include "runs/RunsFilterProxy.h"
#include "runs/RunsSidebar.h"
#include "runs/RunsTreeModel.h"
#include "support/ModelRow.h"
#include "support/SshdFixture.h"
#include "support/UiTestSupport.h"
#include "ui/remote/LoopbackHost.h"

using namespace streetgan::ui;
using streetgan::test::ModelRow;
using streetgan::test::SshdFixture;

class RemoteRunsTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::unique_ptr<SshdFixture> sshd_;

    HostConfig config() const { return streetgan::test::loopbackHost(sshd_->port(), tmp_); }

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("XDG_CACHE_HOME", tmp_.filePath("cache").toLocal8Bit());
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);  // this machine's: it reads a fetched checkpoint's grids
        QDir().mkpath(tmp_.filePath("sshd"));
        SshdFixture::generateKey(tmp_.filePath("id_user").toStdString());
        QFile::copy(tmp_.filePath("id_user.pub"), tmp_.filePath("authorized_keys"));
        sshd_ = std::make_unique<SshdFixture>(tmp_.filePath("sshd").toStdString(), tmp_.filePath("authorized_keys").toStdString());
        QFile(tmp_.filePath("known_hosts")).open(QIODevice::WriteOnly);  // empty: the key is unknown
        streetgan::test::writeRun(tmp_.filePath("remote-runs/alpha"), 1500, 300);
        streetgan::test::writeRun(tmp_.filePath("remote-runs/beta"), 200, 0, 0.05, "failed");
    }
    void cleanupTestCase() {
        streetgan::test::stopRunsUnder(tmp_.path(), STREETGAN_TRAINER);
        sshd_.reset();
    }

    // A host that accepts TCP but never speaks SSH holds a connect for its whole timeout (20 s):
    // closing a run or a host meanwhile must not freeze the window.
    void closingWhileConnectingDoesNotBlock() {
        const int silent = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        QVERIFY(::bind(silent, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(silent, 8) == 0);
        socklen_t len = sizeof addr;
        ::getsockname(silent, reinterpret_cast<sockaddr*>(&addr), &len);
        HostConfig c = config();
        c.port = ntohs(addr.sin_port);
        // Shown by the connection, not by a time bound: once the client is in the connect (its TCP
        // connection accepted), the close returns while that connection is still open, i.e.
        // before the connect has ended (at its timeout the client closes it: recv then reads 0).
        const auto acceptConnect = [&] {
            int fd = -1;
            const QDeadlineTimer deadline(streetgan::test::kWaitMs);
            while (fd < 0 && !deadline.hasExpired()) {
                fd = ::accept4(silent, nullptr, nullptr, SOCK_NONBLOCK);
                if (fd < 0) QTest::qWait(20);
            }
            return fd;
        };
        const auto stillOpen = [](int fd) {
            char buf[512];
            for (;;) {
                const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
                if (n > 0) continue;  // the client's banner
                return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
            }
        };
        {
            auto* session = new RunSession("/nowhere/run", c.toSshOptions(), STREETGAN_TRAINER, "silent");
            session->start();
            const int fd = acceptConnect();
            QVERIFY2(fd >= 0, "the run never connected");
            delete session;
            QVERIFY2(stillOpen(fd), "closing a connecting run waited for the connect to end");
            ::close(fd);
        }
        {
            auto* host = new RemoteHost(c, nullptr);
            host->refresh();
            const int fd = acceptConnect();
            QVERIFY2(fd >= 0, "the host never connected");
            delete host;
            QVERIFY2(stillOpen(fd), "closing a connecting host waited for the connect to end");
            ::close(fd);
        }
        ::close(silent);  // the connects fail now and the detached threads end and delete themselves
        QTest::qWait(500);
    }

    void listAttachAndFetch() {
        SshPrompter prompter(nullptr);
        QStringList shownFingerprints;
        prompter.hostKeyDialog = [&](const streetgan::HostKeyInfo& info) {
            shownFingerprints << QString::fromStdString(info.fingerprintSha256);
            return streetgan::HostKeyDecision::AcceptAndRemember;
        };
        RemoteHost host(config(), &prompter);
        RunsSidebar sidebar;
        sidebar.addHost(&host);
        QSignalSpy listed(&host, &RemoteHost::runsListed);
        QSignalSpy failed(&host, &RemoteHost::failed);
        host.refresh();
        QTRY_VERIFY_WITH_TIMEOUT(listed.count() == 1 || failed.count() == 1, streetgan::test::kWaitMs);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(shownFingerprints, QStringList{QString::fromStdString(sshd_->fingerprint())});
        const RunEntryList runs = host.runs();
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs[0].name, QString("alpha"));
        QCOMPARE(runs[0].state, QString("finished"));
        QCOMPARE(runs[1].state, QString("failed"));
        // the sidebar shows the host and its runs with their state
        const QModelIndex hostRow = sidebar.hostIndex(&host);
        QCOMPARE(hostRow, sidebar.model()->index(1, 0));
        QCOMPARE(hostRow.data().toString(), host.label());
        QCOMPARE(sidebar.model()->rowCount(hostRow), 2);
        QCOMPARE(ModelRow{sidebar.model()->index(0, 0, hostRow)}.text(0), QString("alpha"));
        QVERIFY(ModelRow{sidebar.model()->index(0, 0, hostRow)}.text(1).startsWith("finished"));
        QVERIFY(ModelRow{sidebar.model()->index(1, 0, hostRow)}.text(1).startsWith("failed"));
        QSignalSpy openRemote(&sidebar, &RunsSidebar::openRemote);
        emit sidebar.view()->activated(sidebar.filterModel()->mapFromSource(sidebar.model()->index(0, 0, hostRow)));
        QCOMPARE(openRemote.count(), 1);
        QCOMPARE(openRemote.at(0).at(1).toString(), runs[0].path);

        // follow the remote run: same parser, same series, same plots as a local run
        DashboardPage page;
        RunSession s(runs[0].path, host.sshOptions(), host.config().trainer, host.label());
        QVERIFY(s.isRemote());
        QSignalSpy connection(&s, &RunSession::connectionChanged);
        page.addSession(&s);
        s.start();
        QTRY_COMPARE_WITH_TIMEOUT(page.panels()[0]->pointCount(&s.series(), Metric::LossD), 1500, streetgan::test::kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s.series().state()), QString("finished"), streetgan::test::kWaitMs);
        QCOMPARE(s.series().samples().size(), size_t{5});
        // the host key was remembered: no second question for the attach connection
        QCOMPARE(shownFingerprints.size(), 1);

        // a sample grid comes back through SFTP into the cache
        SamplesPage samples;
        samples.show();  // a hidden page loads no grid (issue 48)
        samples.setSession(&s);
        QTRY_VERIFY_WITH_TIMEOUT(samples.hasImage(), streetgan::test::kWaitMs);
        QVERIFY(QFileInfo::exists(tmp_.filePath("cache/streetgan/remote")));
    }

    // A DL1-style host: only sshd, no streetgan-trainer, the reference's trainer writing
    // TensorBoard logs. Its run is listed over SFTP, followed over SFTP into the same plots and
    // Scalars tab as a local run (a restart's file arriving while followed), and its fixed-noise
    // grid comes back out of the event file.
    void tensorBoardRunOnAHostWithoutTheTrainer() {
        const QString root = tmp_.filePath("dl1-runs"), run = root + "/dcgan-msls/events";
        QDir().mkpath(run);
        const QString source = QStringLiteral(STREETGAN_TEST_TB_RUNS "/reference/dcgan-msls/events");
        QStringList files = QDir(source).entryList({"*tfevents*"}, QDir::Files, QDir::Name);
        QCOMPARE(files.size(), 2);  // the fixture's restart; its names sort in writing order (same second, .0 then .1)
        QVERIFY(QFile::copy(source + "/" + files[0], run + "/" + files[0]));
        SshPrompter prompter(nullptr);
        prompter.hostKeyDialog = [](const streetgan::HostKeyInfo&) { return streetgan::HostKeyDecision::AcceptAndRemember; };
        HostConfig c = streetgan::test::loopbackHost(sshd_->port(), tmp_, tmp_.filePath("no-such-dir/streetgan-trainer"));
        c.root = root;
        RemoteHost host(c, &prompter);
        QSignalSpy listed(&host, &RemoteHost::runsListed);
        QSignalSpy failed(&host, &RemoteHost::failed);
        host.refresh();
        QTRY_VERIFY_WITH_TIMEOUT(listed.count() == 1 || failed.count() == 1, streetgan::test::kWaitMs);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        const RunEntryList runs = host.runs();
        QCOMPARE(runs.size(), 1);
        QCOMPARE(runs[0].name, QString("dcgan-msls"));  // as the reference named it (issue 41 item 3)
        QCOMPARE(runs[0].state, QString("tensorboard"));
        QCOMPARE(runs[0].path, run);

        DashboardPage page;
        RunSession s(runs[0].path, host.sshOptions(), host.config().trainer, host.label());
        page.addSession(&s);
        s.start();
        QTRY_COMPARE_WITH_TIMEOUT(page.panels()[0]->pointCount(&s.series(), Metric::LossG), 40, streetgan::test::kWaitMs);
        QVERIFY(streetgan::test::writeInPieces(source + "/" + files[1], run + "/" + files[1], 900));
        QTRY_COMPARE_WITH_TIMEOUT(page.panels()[0]->pointCount(&s.series(), Metric::LossG), 60, streetgan::test::kWaitMs);
        QCOMPARE(s.series().eventLines(), int64_t(66));  // every step and image once
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s.series().state()), QString("tensorboard"), streetgan::test::kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(page.scalars()->panel("lr/G"), streetgan::test::kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(page.scalars()->panel("lr/G")->pointCount(s.tagSeries().at("lr/G").get(), Metric::LossD), 60, streetgan::test::kWaitMs);

        SamplesPage samples;
        samples.show();  // a hidden page loads no grid (issue 48)
        samples.setSession(&s);
        QTRY_VERIFY_WITH_TIMEOUT(samples.hasImage(), streetgan::test::kWaitMs);

        // Its checkpoints beside the events folder (the reference's, img_list and all) are listed
        // over SFTP, relative to the run.
        const QString checkpoint = QStringLiteral(STREETGAN_TEST_TB_RUNS "/reference/dcgan-msls/checkpoints/checkpoint_1.pt");
        QVERIFY(QDir().mkpath(root + "/dcgan-msls/checkpoints"));
        QVERIFY(QFile::copy(checkpoint, root + "/dcgan-msls/checkpoints/checkpoint_1.pt"));
        RemoteCheckpointFetcher fetcher(host.sshOptions());
        std::vector<streetgan::RemoteFileInfo> listedFiles;
        QString listError;
        connect(&fetcher, &RemoteCheckpointFetcher::listed, this, [&](quint64, const std::vector<streetgan::RemoteFileInfo>& f) { listedFiles = f; });
        connect(&fetcher, &RemoteCheckpointFetcher::failed, this, [&](quint64, const QString& m) { listError = m; });
        fetcher.list(1, run);
        QVERIFY2(listError.isEmpty(), qPrintable(listError));
        QCOMPARE(listedFiles.size(), size_t(1));
        QCOMPARE(QString::fromStdString(listedFiles[0].name), QString("../checkpoints/checkpoint_1.pt"));

        // The Samples tab offers the newest checkpoint's img_list grids (a download: on demand);
        // fetched, they are a timeline of their own.
        QSignalSpy offered(&s, &RunSession::checkpointGridsOffered);
        s.loadCheckpointGrids();
        QTRY_COMPARE_WITH_TIMEOUT(offered.count(), 1, streetgan::test::kWaitMs);
        QCOMPARE(offered.at(0).at(0).toString(), QString("../checkpoints/checkpoint_1.pt"));
        QCOMPARE(offered.at(0).at(1).toLongLong(), QFileInfo(checkpoint).size());
        QPushButton* fetch = nullptr;
        for (auto* b : samples.findChildren<QPushButton*>())
            if (b->text() == "Fetch and show") fetch = b;
        QVERIFY(fetch);
        QTRY_VERIFY_WITH_TIMEOUT(fetch->isVisibleTo(&samples), streetgan::test::kWaitMs);
        QSignalSpy gridsFailed(&s, &RunSession::checkpointGridsFailed);
        fetch->click();
        QTRY_VERIFY_WITH_TIMEOUT(s.checkpointGrids().size() == 2 || !gridsFailed.isEmpty(), streetgan::test::kWaitMs);
        QVERIFY2(gridsFailed.isEmpty(), gridsFailed.isEmpty() ? "" : qPrintable(gridsFailed.at(0).at(0).toString()));
        QVERIFY(!fetch->isVisibleTo(&samples));
        QVERIFY(samples.offersSourceChoice());
        samples.showCheckpointGrids(true);
        QVERIFY(samples.showingCheckpointGrids());
        QSignalSpy shown(&samples, &SamplesPage::imageShown);
        samples.showIndex(0);
        QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && shown.last().at(0).toInt() == 0 && samples.hasImage(), streetgan::test::kWaitMs);
    }

    void startAndControlARemoteRun() {
        SshPrompter prompter(nullptr);
        prompter.hostKeyDialog = [](const streetgan::HostKeyInfo&) { return streetgan::HostKeyDecision::AcceptOnce; };
        RemoteHost host(config(), &prompter);
        QSignalSpy started(&host, &RemoteHost::runStarted);
        QSignalSpy failed(&host, &RemoteHost::failed);
        QStringList args = NewRunDialog::tinyRunArguments(host.config().root + "/started");
        args[args.indexOf("--steps") + 1] = "100000";
        args[args.indexOf("--batch") + 1] = "8";
        host.startRun(args);
        QTRY_VERIFY_WITH_TIMEOUT(started.count() == 1 || failed.count() == 1, streetgan::test::kWaitMs);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        const QString path = started.at(0).at(0).toString();
        QCOMPARE(path, host.config().root + "/started");
        RunSession s(path, host.sshOptions(), host.config().trainer, host.label());
        s.start();
        QSignalSpy connection(&s, &RunSession::connectionChanged);
        QTRY_VERIFY_WITH_TIMEOUT(s.series().rows() > 3, streetgan::test::kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!connection.isEmpty() && connection.last().at(0).toString().contains("following live"), streetgan::test::kWaitMs);

        // the connection drops (every sshd session killed; the detached trainer lives on): the app
        // says so, RemoteAttach reconnects from its offset, and no event is lost or repeated
        QVERIFY(sshd_->killSessions() > 0);
        auto sawLost = [&] {
            for (const auto& c : connection)
                if (!c.at(1).toBool() && c.at(0).toString().contains("reconnecting")) return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(sawLost(), streetgan::test::kWaitMs);
        const size_t before = s.series().rows();
        QTRY_VERIFY_WITH_TIMEOUT(connection.last().at(0).toString().contains("following live") && s.series().rows() > before + 5, streetgan::test::kWaitMs);
        for (size_t i = 1; i < s.series().rows(); ++i)
            QCOMPARE(s.series().x(XAxisMode::Step, i) - s.series().x(XAxisMode::Step, i - 1), 2.0);  // log every 2 steps

        QSignalSpy replies(&s, &RunSession::replyReceived);
        s.sendCommand("stop");
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s.series().state()), QString("stopped"), streetgan::test::kWaitMs);
        QVERIFY(!replies.isEmpty());
    }

    // Issue 41 item 6: while a followed run's connection is lost the host's row says so
    // ("reconnecting…", not "connected"), and New run greys it; once it follows live again the
    // row is back to "connected".
    void aLostConnectionShowsOnTheHostsRow() {
        SshPrompter prompter(nullptr);
        prompter.hostKeyDialog = [](const streetgan::HostKeyInfo&) { return streetgan::HostKeyDecision::AcceptOnce; };
        OpenRuns runs(&prompter);
        RemoteHost* host = runs.hosts()->hostFor(config());
        QSignalSpy started(host, &RemoteHost::runStarted);
        QSignalSpy failed(host, &RemoteHost::failed);
        QStringList args = NewRunDialog::tinyRunArguments(host->config().root + "/followed");
        args[args.indexOf("--steps") + 1] = "100000";
        args[args.indexOf("--batch") + 1] = "8";
        host->startRun(args);
        QTRY_VERIFY_WITH_TIMEOUT(started.count() == 1 || failed.count() == 1, streetgan::test::kWaitMs);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        QStringList states;
        connect(host, &RemoteHost::stateChanged, this, [&] { states << HostListModel::stateText(host); });
        RunSession* s = runs.openRemote(host, started.at(0).at(0).toString());
        QSignalSpy connection(s, &RunSession::connectionChanged);
        QTRY_VERIFY_WITH_TIMEOUT(!connection.isEmpty() && connection.last().at(0).toString().contains("following live"), streetgan::test::kWaitMs);
        QVERIFY(sshd_->killSessions() > 0);
        QTRY_VERIFY_WITH_TIMEOUT(states.contains(QString("reconnecting…")), streetgan::test::kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(connection.last().at(0).toString().contains("following live"), streetgan::test::kWaitMs);
        QVERIFY(HostListModel::stateText(host) != QString("reconnecting…"));
        QVERIFY(host->followProblem().isEmpty());
        QCOMPARE(HostListModel::cannotTrainReason(host).contains("reconnecting"), false);
        s->sendCommand("stop");
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("stopped"), streetgan::test::kWaitMs);
    }

    void refusedHostKeyIsAClearError() {
        QFile::remove(tmp_.filePath("known_hosts"));
        QFile(tmp_.filePath("known_hosts")).open(QIODevice::WriteOnly);
        SshPrompter prompter(nullptr);
        prompter.hostKeyDialog = [](const streetgan::HostKeyInfo&) { return streetgan::HostKeyDecision::Refuse; };
        RemoteHost host(config(), &prompter);
        QSignalSpy failed(&host, &RemoteHost::failed);
        host.refresh();
        QVERIFY(failed.wait(streetgan::test::kWaitMs));
        QVERIFY2(failed.at(0).at(0).toString().contains("host key", Qt::CaseInsensitive), qPrintable(failed.at(0).at(0).toString()));
    }
};

QTEST_MAIN(RemoteRunsTest)
#include "RemoteRunsTest.moc"
