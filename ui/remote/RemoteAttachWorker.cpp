#include "remote/RemoteAttachWorker.h"

#include "base/remote/RemoteError.h"
#include "base/remote/RemoteTrainerSetup.h"
#include "base/remote/SshSession.h"
#include "events/EventBuffer.h"
#include "events/EventLineParser.h"

namespace streetgan::ui {

RemoteAttachWorker::RemoteAttachWorker(std::shared_ptr<EventBuffer> buffer, SshOptions ssh, const AttachOptions& options)
    : buffer_(std::move(buffer)), attach_(std::make_unique<RemoteAttach>(ssh, options)), ssh_(std::move(ssh)), trainer_(options.remoteTrainer) {}

RemoteAttachWorker::~RemoteAttachWorker() = default;

void RemoteAttachWorker::run() {
    EventLineParser parser;
    // The protocol check costs one extra connection per opened run; a connection failure here is
    // left to RemoteAttach, which reports it (and retries) as it always did. A host without the
    // trainer may still hold a TensorBoard run of another trainer, which RemoteAttach follows over
    // SFTP: the missing trainer is the error only when that fails.
    QString missing;
    try {
        auto session = SshSession::connect(ssh_);
        const TrainerProbe p = RemoteTrainerSetup(*session).probe(trainer_);
        QString why;
        if (p.state == TrainerProbe::State::Incompatible)
            why = QString::fromStdString(RemoteTrainerSetup::protocolMismatch(session->label(), p.version, p.protocol));
        else if (p.state == TrainerProbe::State::Missing)
            missing = tr("host %1 has no working streetgan-trainer (%2; looked for %3, on PATH and in ~/.local/bin): set it up (Set up… in the hosts list)")
                          .arg(QString::fromStdString(session->label()), QString::fromStdString(p.summary()), QString::fromStdString(trainer_));
        if (!why.isEmpty()) {
            emit failed(why);
            emit finished();
            return;
        }
    } catch (const std::exception&) {}
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
        emit failed(missing.isEmpty() ? QString::fromStdString(e.what()) : missing);
    }
    emit finished();
}

}  // namespace streetgan::ui
