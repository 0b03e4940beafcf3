// Worker for one remote host: keeps an SshSession on its thread and runs `streetgan-trainer ls
// ROOT --json` and `start --detach ...` over exec channels. Each request carries a job id that
// comes back with its result. Lives in a worker QThread; call its methods there.
#pragma once

#include <QObject>
#include <QStringList>

#include <memory>

#include "base/remote/SshOptions.h"
#include "common/RunEntry.h"

namespace streetgan {
class SshSession;
}

namespace streetgan::ui {

class RemoteHostWorker : public QObject {
    Q_OBJECT
public:
    RemoteHostWorker(SshOptions ssh, QString trainer);
    ~RemoteHostWorker() override;
    void listRuns(quint64 jobId, const QString& root);
    void startRun(quint64 jobId, const QStringList& trainArgs);
    void disconnectHost();

signals:
    void connected(const QString& label);
    void runsListed(quint64 jobId, const streetgan::ui::RunEntryList& runs);
    void runStarted(quint64 jobId, const QString& runPath);
    void failed(quint64 jobId, const QString& message);

private:
    SshSession& session();
    SshOptions ssh_;
    QString trainer_;
    std::unique_ptr<SshSession> session_;
};

}  // namespace streetgan::ui
