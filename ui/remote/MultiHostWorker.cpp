#include "remote/MultiHostWorker.h"

#include <memory>

#include "base/launch/MultiHostRunLauncher.h"
#include "base/launch/SshShell.h"
#include "base/remote/SshSession.h"

namespace streetgan::ui {

namespace {

// The sessions and the launcher over them; the sessions are declared first, so they outlive it.
struct Connected {
    std::vector<std::unique_ptr<SshSession>> sessions;
    std::unique_ptr<MultiHostRunLauncher> launcher;
};

// Every host is connected before anything starts (the CLI's `remote --host A --host B` rule): a
// host that cannot be reached is its SshSession line, and nothing runs anywhere. A host's address
// for the others is its host name as SSH resolved it (an alias's HostName).
Connected connectAll(const MultiHostWorker::Hosts& h, const MultiHostRunLauncher::Options& o) {
    Connected c;
    std::vector<MultiHostRunLauncher::Host> hosts;
    for (const SshOptions& ssh : h.ssh) {
        c.sessions.push_back(SshSession::connect(ssh));
        hosts.push_back({std::make_unique<SshShell>(*c.sessions.back()), c.sessions.back()->target().hostName});
    }
    c.launcher = std::make_unique<MultiHostRunLauncher>(std::move(hosts), h.trainer, o);
    return c;
}

}  // namespace

void MultiHostWorker::startRun(quint64 jobId, const Hosts& hosts, int nprocPerNode, const QStringList& trainArgs) {
    std::vector<std::string> args;
    for (const QString& a : trainArgs) args.push_back(a.toStdString());
    try {
        MultiHostRunLauncher::Options o;
        o.nprocPerNode = nprocPerNode;
        Connected c = connectAll(hosts, o);
        emit runStarted(jobId, QString::fromStdString(c.launcher->start(args)));
    } catch (const std::exception& e) {  // LaunchError, RemoteError, ConfigError: one line each
        emit failed(jobId, QString::fromStdString(e.what()));
    }
}

void MultiHostWorker::stopRun(quint64 jobId, const Hosts& hosts, const QString& runDir) {
    try {
        Connected c = connectAll(hosts, {});
        c.launcher->stop(runDir.toStdString());
        emit runStopped(jobId, runDir);
    } catch (const std::exception& e) {
        emit failed(jobId, QString::fromStdString(e.what()));
    }
}

}  // namespace streetgan::ui
