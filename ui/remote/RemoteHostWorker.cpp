#include "remote/RemoteHostWorker.h"

#include <nlohmann/json.hpp>

#include "base/daemon/RunStatus.h"
#include "base/remote/RemoteError.h"
#include "base/remote/RemoteTrainerSetup.h"
#include "base/remote/ShellQuote.h"
#include "base/remote/SshSession.h"

namespace streetgan::ui {

RemoteHostWorker::RemoteHostWorker(SshOptions ssh, QString trainer) : ssh_(std::move(ssh)), trainer_(std::move(trainer)) {}
RemoteHostWorker::~RemoteHostWorker() = default;

SshSession& RemoteHostWorker::session() {
    if (!session_) {
        session_ = SshSession::connect(ssh_);
        emit connected(QString::fromStdString(session_->label()));
    }
    return *session_;
}

void RemoteHostWorker::disconnectHost() { session_.reset(); }

void RemoteHostWorker::listRuns(quint64 jobId, const QString& root) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            const std::string cmd = ShellQuote::join({trainer_.toStdString(), "ls", root.toStdString(), "--json"});
            const ExecResult r = session().exec(cmd);
            if (!r.ok()) {
                emit failed(jobId,
                            tr("Listing %1 on %2 failed: %3").arg(root, QString::fromStdString(session().label()), QString::fromStdString(r.err).trimmed()));
                return;
            }
            RunEntryList runs;
            for (const RunInfo& info : RunStatus::listFromJson(nlohmann::json::parse(r.out))) {
                RunEntry run;
                run.name = QString::fromStdString(info.name);
                run.path = QString::fromStdString(info.path);
                run.state = QString::fromStdString(info.state);
                run.step = info.step;
                run.totalSteps = info.totalSteps;
                run.updated = info.updated;
                runs.push_back(run);
            }
            emit runsListed(jobId, runs);
            return;
        } catch (const ConnectionLostError& e) {
            session_.reset();  // reconnect once
            if (attempt == 1) emit failed(jobId, QString::fromStdString(e.what()));
        } catch (const std::exception& e) {
            session_.reset();
            emit failed(jobId, QString::fromStdString(e.what()));
            return;
        }
    }
}

void RemoteHostWorker::startRun(quint64 jobId, const QStringList& trainArgs) {
    try {
        std::vector<std::string> words{trainer_.toStdString(), "start", "--detach"};
        for (const QString& a : trainArgs) words.push_back(a.toStdString());
        const ExecResult r = session().exec(ShellQuote::join(words));
        if (!r.ok()) {
            emit failed(jobId, tr("The remote trainer refused to start: %1").arg(QString::fromStdString(r.err).trimmed()));
            return;
        }
        emit runStarted(jobId, QString::fromStdString(r.out).trimmed());
    } catch (const std::exception& e) {
        session_.reset();
        emit failed(jobId, QString::fromStdString(e.what()));
    }
}

void RemoteHostWorker::probeTrainer(quint64 jobId) {
    try {
        const TrainerProbe p = RemoteTrainerSetup(session()).probe(trainer_.toStdString());
        emit trainerProbed(jobId, TrainerStatus::fromProbe(p, QString::fromStdString(session().label())));
    } catch (const std::exception& e) {
        session_.reset();
        emit failed(jobId, QString::fromStdString(e.what()));
    }
}

}  // namespace streetgan::ui
