#include "remote/RemoteAttachWorker.h"

#include "base/remote/RemoteError.h"
#include "events/EventBuffer.h"
#include "events/EventLineParser.h"

namespace streetgan::ui {

RemoteAttachWorker::RemoteAttachWorker(std::shared_ptr<EventBuffer> buffer, SshOptions ssh, AttachOptions options)
    : buffer_(std::move(buffer)), attach_(std::make_unique<RemoteAttach>(std::move(ssh), std::move(options))) {}

RemoteAttachWorker::~RemoteAttachWorker() = default;

void RemoteAttachWorker::run() {
    EventLineParser parser;
    try {
        attach_->run(
            [&](const AttachMessage& m) {
                EventBatch batch;
                parser.parseProtocol(m.line, batch);
                buffer_->append(std::move(batch));
            },
            [&](const AttachStatus& s) { emit connectionChanged(static_cast<int>(s.state), QString::fromStdString(s.message)); });
    } catch (const HostKeyError& e) {
        emit failed(tr("The host key was not accepted: %1").arg(QString::fromStdString(e.what())));
    } catch (const AuthError& e) {
        emit failed(tr("Authentication failed: %1. Check the user name and key in Connect to host.").arg(QString::fromStdString(e.what())));
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
    emit finished();
}

}  // namespace streetgan::ui
