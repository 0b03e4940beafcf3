// The Runs table page filling up (bench/bench_runs_table_gui.sh makes the runs; not a test, it
// asserts nothing): a RunsTablePage shown (offscreen or Xvfb) is given LOCAL (its workspace) and,
// with --sshd, a host whose runs folder is REMOTE, reached through a private OpenSSH server on
// 127.0.0.1 (tests/support/SshdFixture: `streetgan-trainer ls REMOTE --table --json` over SSH). A
// 5 ms QTimer heartbeat on the GUI thread measures the longest stall while the table fills.
// Prints one JSON line: runs expected and shown, fill_s (start -> the table holds them all),
// local_s / remote_s (each source listed), max_stall_ms and stalls_over_50ms, then the same for a
// second listing (refill_s: what changed only, RunRecordCache).
// Usage: bench_runs_table_gui LOCAL [--remote REMOTE --sshd DIR] [--trainer BIN]
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSettings>
#include <QTimer>

#include <cstdio>
#include <memory>

#include "remote/HostListModel.h"
#include "remote/RemoteHost.h"
#include "support/SshdFixture.h"
#include "table/RunsTableModel.h"
#include "table/RunsTablePage.h"

using namespace streetgan;
using namespace streetgan::ui;

namespace {

int runFolders(const QString& root) {
    if (root.isEmpty()) return 0;
    int n = 0;
    for (const QString& d : QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        if (QFile::exists(root + "/" + d + "/events.jsonl") || QFile::exists(root + "/" + d + "/run.json")) ++n;
    return n;
}

struct Heartbeat {
    QElapsedTimer clock;
    qint64 last = 0, maxGap = 0;
    int over50 = 0;
    void tick() {
        const qint64 now = clock.elapsed();
        const qint64 gap = now - last;
        maxGap = std::max(maxGap, gap);
        if (gap > 50) ++over50;
        last = now;
    }
    void reset() {
        clock.restart();
        last = 0;
        maxGap = 0;
        over50 = 0;
    }
};

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QCommandLineParser cli;
    cli.addPositionalArgument("local", "the workspace folder of runs");
    cli.addOption({"remote", "a runs folder read through the private sshd", "dir"});
    cli.addOption({"sshd", "a folder for the private sshd (keys, config)", "dir"});
    cli.addOption({"trainer", "streetgan-trainer for the remote side", "bin", STREETGAN_TRAINER});
    cli.process(app);
    const QString local = QDir(cli.positionalArguments().value(0)).absolutePath();
    const QString remote = cli.isSet("remote") ? QDir(cli.value("remote")).absolutePath() : QString();
    QDir().mkpath(QDir::tempPath());
    const QString settingsDir = QDir::temp().filePath(QString("bench-runs-table-%1").arg(QCoreApplication::applicationPid()));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir);
    const int expected = runFolders(local) + runFolders(remote);

    std::unique_ptr<test::SshdFixture> sshd;
    HostConfig host;
    if (!remote.isEmpty()) {
        const QString dir = QDir(cli.value("sshd")).absolutePath();
        QDir(dir).removeRecursively();
        QDir().mkpath(dir + "/server");
        test::SshdFixture::generateKey((dir + "/id_user").toStdString());
        QFile::copy(dir + "/id_user.pub", dir + "/authorized_keys");
        sshd = std::make_unique<test::SshdFixture>((dir + "/server").toStdString(), (dir + "/authorized_keys").toStdString());
        QFile known(dir + "/known_hosts");
        known.open(QIODevice::WriteOnly);
        known.write(QByteArray::fromStdString(sshd->knownHostsLine() + "\n"));
        known.close();
        host.host = "127.0.0.1";
        host.port = sshd->port();
        host.keyFile = dir + "/id_user";
        host.knownHosts = dir + "/known_hosts";
        host.configFile = "none";
        host.root = remote;
        host.trainer = cli.value("trainer");
    }

    HostListModel hosts(nullptr);
    auto* page = new RunsTablePage;
    page->resize(1400, 900);
    page->show();
    page->setHostModel(&hosts);
    Heartbeat beat;
    QTimer heart;
    QObject::connect(&heart, &QTimer::timeout, [&] { beat.tick(); });
    heart.start(5);
    double localS = -1, remoteS = -1;
    QElapsedTimer clock;
    QObject::connect(page, &RunsTablePage::sourceListed, [&](const QString& source, int) { (source.isEmpty() ? localS : remoteS) = clock.elapsed() / 1000.0; });
    QObject::connect(page, &RunsTablePage::statusMessage, [](const QString& m) { std::fprintf(stderr, "%s\n", qPrintable(m)); });

    auto fill = [&](bool first) {
        localS = remoteS = -1;
        beat.reset();
        clock.restart();
        RemoteHost* h = nullptr;
        if (first) {
            page->setWorkspace(local);
            if (!remote.isEmpty()) h = hosts.hostFor(host);
            if (h) h->listRecords();
        } else {
            page->refresh();
        }
        const bool needsRemote = !remote.isEmpty();
        while ((page->model()->rowCount() < expected || localS < 0 || (needsRemote && remoteS < 0)) && clock.elapsed() < 600000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        return clock.elapsed() / 1000.0;
    };
    const double fillS = fill(true);
    const qint64 stall = beat.maxGap;
    const int over = beat.over50;
    const double localFirst = localS, remoteFirst = remoteS;
    const double refillS = fill(false);
    std::printf(
        "{\"runs_expected\":%d,\"runs_shown\":%d,\"columns\":%d,\"fill_s\":%.3f,\"local_s\":%.3f,\"remote_s\":%.3f,\"max_stall_ms\":%lld,"
        "\"stalls_over_50ms\":%d,\"refill_s\":%.3f,\"refill_max_stall_ms\":%lld}\n",
        expected, page->model()->rowCount(), page->model()->columnCount(), fillS, localFirst, remoteFirst, static_cast<long long>(stall), over, refillS,
        static_cast<long long>(beat.maxGap));
    delete page;
    QDir(settingsDir).removeRecursively();
    return 0;
}
