#include "remote/TrainerSetupWorker.h"

#include "base/remote/RemoteTrainerSetup.h"
#include "base/remote/SshSession.h"

namespace streetgan::ui {

void TrainerSetupWorker::run(const TrainerSetupRequest& request) {
    try {
        auto session = SshSession::connect(ssh_);
        emit line(tr("connected to %1").arg(QString::fromStdString(session->label())));
        SetupOptions o;
        o.prefix = request.prefix.toStdString();
        o.workDir = request.workDir.toStdString();
        o.onLine = [this](const std::string& l) { emit line(QString::fromStdString(l)); };
        o.onUpload = [this](uint64_t done, uint64_t total) { emit uploadProgress(static_cast<qint64>(done), static_cast<qint64>(total)); };
        o.cancel = &cancel_;
        RemoteTrainerSetup setup(*session, o);
        const std::string file = request.file.toStdString();
        SetupResult r;
        switch (request.method) {
            case TrainerSetupRequest::NoRoot:
                r = setup.installDeb(file);
                break;
            case TrainerSetupRequest::SudoApt:
                r = setup.installDebWithSudo(file, [this](const std::string& prompt) -> std::optional<std::string> {
                    if (!sudoPassword) return std::nullopt;
                    return sudoPassword(prompt, cancel_);
                });
                break;
            case TrainerSetupRequest::Source:
                r = setup.buildFromSource(file, request.environment);
                break;
            case TrainerSetupRequest::Bundle:
                r = setup.installBundle(file, request.python.toStdString());
                break;
        }
        emit finished(r.ok, r.cancelled, QString::fromStdString(r.message), QString::fromStdString(r.trainer));
        if (r.ok) emit probed(TrainerStatus::fromProbe(setup.probe(r.trainer), QString::fromStdString(session->label())));
    } catch (const std::exception& e) {
        emit finished(false, cancel_.load(), QString::fromStdString(e.what()), {});
    }
}

void TrainerSetupWorker::survey(const std::string& remembered) {
    try {
        auto session = SshSession::connect(ssh_);
        RemoteTrainerSetup setup(*session);
        emit probed(TrainerStatus::fromProbe(setup.probe(remembered), QString::fromStdString(session->label())));
        emit surveyed(setup.probePlatform(), QString::fromStdString(session->label()));
    } catch (const std::exception& e) {
        emit surveyFailed(QString::fromStdString(e.what()));
    }
}

}  // namespace streetgan::ui
