// Worker: follows a remote run through core's RemoteAttach (SSH exec of `streetgan-trainer attach`,
// reconnects from the last offset by itself). Its raw protocol lines go through the same
// EventLineParser as a local attach's. Before attaching it compares the host trainer's protocol
// with the app's (RemoteTrainerSetup::probe) and fails with one clear line when they differ or
// when there is no trainer. run() blocks the worker thread until the run ends or
// stop() is called; stop() and sendCommand() are thread-safe.
#pragma once

#include <QObject>
#include <QString>

#include <memory>

#include "base/remote/RemoteAttach.h"

namespace streetgan::ui {

class EventBuffer;

class RemoteAttachWorker : public QObject {
    Q_OBJECT
public:
    RemoteAttachWorker(std::shared_ptr<EventBuffer> buffer, SshOptions ssh, const AttachOptions& options);
    ~RemoteAttachWorker() override;
    void run();
    void stop() { attach_->stop(); }
    void sendCommand(const nlohmann::json& command) { attach_->sendCommand(command); }

signals:
    void connectionChanged(int state, const QString& message);
    void failed(const QString& message);
    void finished();

private:
    std::shared_ptr<EventBuffer> buffer_;
    std::unique_ptr<RemoteAttach> attach_;
    SshOptions ssh_;
    std::string trainer_;
};

}  // namespace streetgan::ui
