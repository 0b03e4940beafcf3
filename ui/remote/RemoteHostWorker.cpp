#include "remote/RemoteHostWorker.h"

#include <nlohmann/json.hpp>

#include "base/follow/RunRecordCache.h"
#include "base/follow/RunStatus.h"
#include "base/follow/TensorBoardDiscovery.h"
#include "base/launch/LaunchError.h"
#include "base/launch/SshRunLauncher.h"
#include "base/launch/SshShell.h"
#include "base/remote/RemoteError.h"
#include "base/remote/RemoteTrainerSetup.h"
#include "base/remote/SftpClient.h"
#include "base/remote/SftpEventFiles.h"
#include "base/remote/ShellQuote.h"
#include "base/remote/SshSession.h"
#include "base/slurm/SlurmRunLauncher.h"
#include "base/tensorboard/TensorBoardRun.h"

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

void RemoteHostWorker::disconnectHost() {
    session_.reset();
    home_.clear();
}

std::string RemoteHostWorker::home() {
    if (!home_.empty()) return home_;
    // From $HOME (SshShell, as listRuns); -P: as SFTP and the trainer see it.
    const ExecResult r = SshShell(session()).run("pwd -P");
    std::string h = r.out.substr(0, r.out.find('\n'));
    if (!r.ok() || h.empty() || h[0] != '/') throw std::runtime_error("cannot find the home folder on " + session().label() + ": " + r.err);
    return home_ = h;
}

void RemoteHostWorker::findTensorBoardFolders(quint64 jobId) {
    try {
        const std::string h = home();
        SftpClient sftp(session());
        SftpEventFiles files(sftp);
        const TensorBoardDiscovery::Result r = TensorBoardDiscovery::find(files, h);
        RemoteFolderList found;
        for (const auto& f : r.folders) {
            RemoteFolder folder;
            folder.path = QString::fromStdString(f.path);
            for (const auto& name : f.runs) folder.runs << QString::fromStdString(name);
            folder.newest = f.newest;
            found << folder;
        }
        emit tensorBoardFoldersFound(jobId, QString::fromStdString(h), found, r.listed, r.cut, QString());
    } catch (const std::exception& e) {
        if (dynamic_cast<const ConnectionLostError*>(&e)) session_.reset();
        emit tensorBoardFoldersFound(jobId, QString::fromStdString(home_), {}, 0, false, QString::fromStdString(e.what()));
    }
}

void RemoteHostWorker::listFolder(quint64 jobId, const QString& path) {
    RemoteFolder folder;
    try {
        std::string p = path.toStdString();
        if (p.empty() || p == "~")
            p = home();
        else if (p.rfind("~/", 0) == 0)
            p = home() + p.substr(1);
        else if (p[0] != '/')
            p = home() + "/" + p;
        while (p.size() > 1 && p.back() == '/') p.pop_back();
        folder.path = QString::fromStdString(p);
        SftpClient sftp(session());
        SftpEventFiles files(sftp);
        const auto entries = files.list(p);
        for (const auto& e : entries)
            if (e.folder && !e.name.empty() && e.name[0] != '.') folder.folders << QString::fromStdString(e.name);
        folder.folders.sort(Qt::CaseInsensitive);
        folder.eventFiles = static_cast<int>(TensorBoardRun::eventFiles(entries).size());
        folder.ourRun = TensorBoardRun::holdsOurRun(entries);
    } catch (const std::exception& e) {
        if (dynamic_cast<const ConnectionLostError*>(&e)) session_.reset();
        folder.error = QString::fromStdString(e.what());
    }
    emit folderListed(jobId, folder);
}

// One exec: the home folder (physical, as the trainer's getcwd() sees it) on the first line, then
// the listing. A relative runs folder is under $HOME (`cd` first: sshd's login folder is the
// passwd entry's home, which is $HOME but for a test sshd that sets another). A runs folder that does not exist yet is a host with no runs (the first start
// creates it), not an error; a file in its place or an unreadable folder still reaches `ls`,
// whose one-line error is the message. The listed paths are made absolute against that login
// folder, so that a run listed as "streetgan-runs/x" and the same run started there (which
// `start` prints absolute) are one run, with one key, in the app.
std::string RemoteHostWorker::lsCommand(const std::string& r, const std::vector<std::string>& args) const {
    std::vector<std::string> ls{trainer_.toStdString(), "ls", r};
    ls.insert(ls.end(), args.begin(), args.end());
    const std::string script = "pwd -P; if [ -e " + ShellQuote::quote(r) + " ] || [ -L " + ShellQuote::quote(r) + " ]; then exec " + ShellQuote::join(ls) +
                               "; else echo '{\"runs\":[]}'; fi";
    return SshShell::wrap(script);  // sh from $HOME, whatever the login shell is (fish, tcsh)
}

void RemoteHostWorker::listRuns(quint64 jobId, const QString& root) {
    const std::string r = root.toStdString();
    const std::string cmd = lsCommand(r, {"--json"});
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            const ExecResult res = session().exec(cmd);
            const size_t eol = res.out.find('\n');
            const std::string home = eol == std::string::npos ? res.out : res.out.substr(0, eol);
            if (!home.empty() && home[0] == '/') home_ = home;  // home() needs no round trip of its own then
            std::vector<RunInfo> infos;
            if (!res.ok()) {
                QString err = QString::fromStdString(res.err).trimmed();
                if (res.exitStatus && *res.exitStatus == 127) {  // the shell's "command not found"
                    err = tr("%1 is not installed there (the host's state says how to set it up)").arg(trainer_);
                    // Other trainers' runs can still be followed, over SFTP (whose relative paths
                    // start at the login folder: the root is made absolute against home first).
                    infos = tensorBoardRuns(r.empty() || r[0] == '/' || home.empty() ? r : home + "/" + r);
                }
                if (infos.empty()) {
                    emit failed(jobId, tr("Listing %1 on %2 failed: %3").arg(root, QString::fromStdString(session().label()), err), true);
                    return;
                }
            } else {
                infos = RunStatus::listFromJson(nlohmann::json::parse(eol == std::string::npos ? res.out : res.out.substr(eol + 1)));
            }
            RunEntryList runs;
            for (const RunInfo& info : infos) {
                RunEntry run = RunEntry::fromInfo(info);
                if (!info.path.empty() && info.path[0] != '/' && !home.empty()) run.path = QString::fromStdString(home + "/" + info.path);
                runs.push_back(run);
            }
            emit runsListed(jobId, runs);
            return;
        } catch (const ConnectionLostError& e) {
            session_.reset();  // reconnect once
            if (attempt == 1) emit failed(jobId, QString::fromStdString(e.what()), false);
        } catch (const std::exception& e) {
            session_.reset();
            emit failed(jobId, QString::fromStdString(e.what()), false);
            return;
        }
    }
}

// The same exec as listRuns (from the login folder; no runs folder yet is no runs), with
// --table. One exec for every run's settings and outcomes: a host of hundreds of runs answers in
// one round trip. Paths are made absolute against the login folder (listRuns' rule: one key per run).
void RemoteHostWorker::listRecords(quint64 jobId, const QString& root) {
    const std::string cmd = lsCommand(root.toStdString(), {"--table", "--json"});
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            const ExecResult res = session().exec(cmd);
            const size_t eol = res.out.find('\n');
            const std::string home = eol == std::string::npos ? res.out : res.out.substr(0, eol);
            if (!res.ok() && res.exitStatus && *res.exitStatus == 127) {
                // No trainer there: the TensorBoard runs of the runs folder, as listRuns lists them.
                const std::string r = root.toStdString();
                emit recordsListed(jobId, tensorBoardRecords(r.empty() || r[0] == '/' || home.empty() ? r : home + "/" + r));
                return;
            }
            if (!res.ok()) {
                const QString err = QString::fromStdString(res.err).trimmed();
                emit failed(jobId, tr("Listing the runs table of %1 on %2 failed: %3").arg(root, QString::fromStdString(session().label()), err), true);
                return;
            }
            const nlohmann::json doc = nlohmann::json::parse(eol == std::string::npos ? std::string() : res.out.substr(eol + 1), nullptr, false);
            if (doc.is_discarded() || !doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array()) {
                emit failed(jobId,
                            tr("%1 on %2 answered `ls --table --json` with something else than {\"runs\":[...]}: update it (File → Set up streetgan-trainer on "
                               "a host…).")
                                .arg(trainer_, QString::fromStdString(session().label())),
                            true);
                return;
            }
            RunRecordList records;
            for (const nlohmann::json& j : doc["runs"]) {
                RunRecord rec = RunRecord::fromJson(j);
                if (!rec.info.path.empty() && rec.info.path[0] != '/' && !home.empty() && home[0] == '/') rec.info.path = home + "/" + rec.info.path;
                records << rec;
            }
            emit recordsListed(jobId, records);
            return;
        } catch (const ConnectionLostError& e) {
            session_.reset();  // reconnect once
            if (attempt == 1) emit failed(jobId, QString::fromStdString(e.what()), false);
        } catch (const std::exception& e) {
            session_.reset();
            emit failed(jobId, QString::fromStdString(e.what()), false);
            return;
        }
    }
}

std::vector<RunInfo> RemoteHostWorker::tensorBoardRuns(const std::string& root) {
    try {
        SftpClient sftp(session());
        SftpEventFiles files(sftp);
        return RunStatus::listTensorBoard(files, root);
    } catch (const ConnectionLostError&) {
        throw;
    } catch (const std::exception&) {  // no such folder, no SFTP: none
        return {};
    }
}

RunRecordList RemoteHostWorker::tensorBoardRecords(const std::string& root) {
    if (!records_ || root != recordsRoot_) records_ = std::make_unique<RunRecordCache>();  // another folder: nothing to reuse
    recordsRoot_ = root;
    std::vector<RunRecord> found;
    try {
        SftpClient sftp(session());
        SftpEventFiles files(sftp);
        found = records_->listTensorBoard(files, root);
    } catch (const ConnectionLostError&) {
        throw;
    } catch (const std::exception&) {  // no such folder, no SFTP: none (listRuns' rule)
        return {};
    }
    return RunRecordList(found.begin(), found.end());
}

// Through the launcher seam (SshRunLauncher on this worker's session): TrainerCommandLine builds
// `start --detach ARGS`, SshShell runs it with sh from $HOME, as the listing resolves a relative
// runs folder.
void RemoteHostWorker::startRun(quint64 jobId, const QStringList& trainArgs) {
    std::vector<std::string> args;
    for (const QString& a : trainArgs) args.push_back(a.toStdString());
    try {
        SshRunLauncher launcher(session(), trainer_.toStdString());
        emit runStarted(jobId, QString::fromStdString(launcher.start(args)));
    } catch (const LaunchError& e) {
        // The host answered: the trainer's own line (or, when it is not there, the launcher's).
        const std::string said = e.notRun() || e.trainerMessage().empty() ? e.what() : e.trainerMessage();
        emit failed(jobId, tr("The remote trainer refused to start: %1").arg(QString::fromStdString(said)), true);
    } catch (const std::exception& e) {
        session_.reset();
        emit failed(jobId, QString::fromStdString(e.what()), false);
    }
}

void RemoteHostWorker::launchFailed(quint64 jobId, const QString& doing, const std::exception& e) {
    if (dynamic_cast<const LaunchError*>(&e)) {
        emit failed(jobId, tr("%1: %2").arg(doing, QString::fromStdString(e.what())), true);
        return;
    }
    session_.reset();
    emit failed(jobId, QString::fromStdString(e.what()), false);
}

// A Slurm login node: the launcher's shell is this worker's session (SshShell, from $HOME, as
// startRun), so a relative runs folder means the same for the listing and the job.
void RemoteHostWorker::submitRun(quint64 jobId, const QStringList& trainArgs, const SlurmJobSpec& job) {
    std::vector<std::string> args;
    for (const QString& a : trainArgs) args.push_back(a.toStdString());
    try {
        SlurmRunLauncher launcher(std::make_unique<SshShell>(session()), TrainerCommandLine(trainer_.toStdString()), job);
        emit runSubmitted(jobId, QString::fromStdString(launcher.start(args)));
    } catch (const std::exception& e) {
        launchFailed(jobId, tr("The job was not submitted"), e);
    }
}

void RemoteHostWorker::cancelRun(quint64 jobId, const QString& runDir) {
    try {
        SlurmRunLauncher launcher(std::make_unique<SshShell>(session()), TrainerCommandLine(trainer_.toStdString()), SlurmJobSpec{});
        launcher.stop(runDir.toStdString());
        emit runCancelled(jobId, runDir);
    } catch (const std::exception& e) {
        launchFailed(jobId, tr("The job was not cancelled"), e);
    }
}

void RemoteHostWorker::probeTrainer(quint64 jobId) {
    try {
        const TrainerProbe p = RemoteTrainerSetup(session()).probe(trainer_.toStdString());
        emit trainerProbed(jobId, TrainerStatus::fromProbe(p, QString::fromStdString(session().label())));
    } catch (const std::exception& e) {
        session_.reset();
        emit failed(jobId, QString::fromStdString(e.what()), false);
    }
}

}  // namespace streetgan::ui
