#include "remote/RemoteCheckpointFetcher.h"

#include "base/remote/RemoteCache.h"
#include "base/remote/SftpEventFiles.h"
#include "base/remote/SshSession.h"
#include "base/tensorboard/TensorBoardRun.h"

namespace streetgan::ui {

RemoteCheckpointFetcher::RemoteCheckpointFetcher(SshOptions ssh) : ssh_(std::move(ssh)) {}

RemoteCheckpointFetcher::~RemoteCheckpointFetcher() {
    sftp_.reset();  // before the session it runs on
    session_.reset();
}

void RemoteCheckpointFetcher::connectIfNeeded() {
    if (session_) return;
    session_ = SshSession::connect(ssh_);
    sftp_ = std::make_unique<SftpClient>(*session_);
}

void RemoteCheckpointFetcher::list(quint64 jobId, const QString& runDir) {
    try {
        connectIfNeeded();
        const std::string dir = runDir.toStdString();
        std::vector<RemoteFileInfo> files = sftp_->listRun(dir).checkpoints;
        if (files.empty() && !sftp_->exists(dir + "/events.jsonl")) {
            // Another trainer's TensorBoard run: its checkpoints wherever it keeps them, named
            // relative to the run (CheckpointCatalog::setRemote).
            SftpEventFiles events(*sftp_);
            if (!TensorBoardRun::eventFiles(events.list(dir)).empty())
                for (const auto& c : TensorBoardRun::checkpoints(events, dir)) {
                    RemoteFileInfo f;
                    f.name = c.path;  // "./NAME" too: a '/' marks a name relative to the run
                    f.size = c.size;
                    f.mtime = c.mtime;
                    f.isRegular = true;
                    files.push_back(std::move(f));
                }
        }
        emit listed(jobId, files);
    } catch (const std::exception& e) {
        sftp_.reset();
        session_.reset();
        emit failed(jobId, tr("Cannot list the checkpoints of %1: %2").arg(runDir, QString::fromStdString(e.what())));
    }
}

void RemoteCheckpointFetcher::fetch(quint64 jobId, const QString& remotePath) {
    cancel_.store(false);
    try {
        connectIfNeeded();
        RemoteCache cache;
        DownloadOptions o;
        o.cancel = &cancel_;
        o.progress = [&](uint64_t done, uint64_t total) { emit progress(jobId, static_cast<qint64>(done), static_cast<qint64>(total)); };
        DownloadResult r;
        const std::string local = sftp_->fetchToCache(cache, remotePath.toStdString(), o, &r);
        if (r.cancelled) {
            emit failed(jobId, tr("Download of %1 cancelled").arg(remotePath));
            return;
        }
        emit fetched(jobId, remotePath, QString::fromStdString(local));
    } catch (const std::exception& e) {
        sftp_.reset();
        session_.reset();
        emit failed(jobId, tr("Cannot download %1: %2").arg(remotePath, QString::fromStdString(e.what())));
    }
}

}  // namespace streetgan::ui
