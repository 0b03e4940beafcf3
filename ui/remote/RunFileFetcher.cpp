#include "remote/RunFileFetcher.h"

#include "base/remote/RemoteCache.h"
#include "base/remote/SftpClient.h"
#include "base/remote/SshSession.h"

namespace streetgan::ui {

RunFileFetcher::RunFileFetcher(QString runDir, std::optional<SshOptions> ssh) : runDir_(std::move(runDir)), ssh_(std::move(ssh)) {}

RunFileFetcher::~RunFileFetcher() {
    sftp_.reset();
    session_.reset();
}

void RunFileFetcher::fetchImage(quint64 jobId, const QString& relativePath) {
    cancel_.store(false);
    QString local = runDir_ + "/" + relativePath;
    if (ssh_) {
        try {
            if (!session_) {
                session_ = SshSession::connect(*ssh_);
                sftp_ = std::make_unique<SftpClient>(*session_);
            }
            RemoteCache cache;
            DownloadOptions o;
            o.cancel = &cancel_;
            o.progress = [&](uint64_t done, uint64_t total) { emit progress(jobId, static_cast<qint64>(done), static_cast<qint64>(total)); };
            local = QString::fromStdString(sftp_->fetchToCache(cache, (runDir_ + "/" + relativePath).toStdString(), o));
        } catch (const std::exception& e) {
            sftp_.reset();
            session_.reset();
            emit failed(jobId, tr("Cannot fetch %1: %2").arg(relativePath, QString::fromStdString(e.what())));
            return;
        }
        if (cancel_.load()) return;
    }
    QImage image(local);
    if (image.isNull()) {
        emit failed(jobId, tr("Cannot read the image %1").arg(local));
        return;
    }
    emit imageReady(jobId, relativePath, local, image);
}

}  // namespace streetgan::ui
