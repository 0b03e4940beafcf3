// Worker of the runs across several SSH hosts (MultiHostRunLauncher): each request connects one
// SshSession per host itself, rank 0's host first, runs the launcher's start() or stop() over
// them, and closes them. Its own sessions, not the hosts' workers': a launcher drives every host
// from one thread, while each RemoteHostWorker keeps its session on its own thread. The sessions
// come from the hosts' SshOptions (HostConfig's connection, known_hosts, jump host and the GUI
// prompts), so they connect exactly as the hosts do. Each request carries a job id that comes
// back with its result. Lives in a worker QThread (MultiHostRuns'); call its methods there: they
// block for the whole start (the ranks meeting) or stop (every rank gone).
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

#include "base/remote/SshOptions.h"

namespace streetgan::ui {

class MultiHostWorker : public QObject {
    Q_OBJECT
public:
    struct Hosts {
        std::vector<SshOptions> ssh;  ///< rank 0's host first; 2 or more
        std::string trainer;          ///< the program on every host
    };
    /// Starts `trainArgs` (`--run-dir RUN` among them) as one rank group, `nprocPerNode` ranks on
    /// each host; emits runStarted with rank 0's run folder, or failed.
    void startRun(quint64 jobId, const Hosts& hosts, int nprocPerNode, const QStringList& trainArgs);
    /// Stops the run `runDir` (rank 0's) on every host of `hosts`; runStopped once no rank is left.
    void stopRun(quint64 jobId, const Hosts& hosts, const QString& runDir);

signals:
    void runStarted(quint64 jobId, const QString& runDir);
    void runStopped(quint64 jobId, const QString& runDir);
    /// One line: the launcher's (naming the host; nothing left running) or the connection's.
    void failed(quint64 jobId, const QString& message);
};

}  // namespace streetgan::ui
