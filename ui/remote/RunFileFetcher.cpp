#include "remote/RunFileFetcher.h"

#include <filesystem>

#include "base/remote/RemoteCache.h"
#include "base/remote/SftpClient.h"
#include "base/remote/SftpEventFiles.h"
#include "base/remote/SshSession.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"

namespace streetgan::ui {

RunFileFetcher::RunFileFetcher(QString runDir, std::optional<SshOptions> ssh) : runDir_(std::move(runDir)), ssh_(std::move(ssh)) {}

RunFileFetcher::~RunFileFetcher() {
    sftp_.reset();
    session_.reset();
}

// An image inside a TensorBoard event file (TensorBoardRun::imagePath): its record is read, here
// or over SFTP, and the PNG kept in the cache (RemoteCache's folder, under "tensorboard/"), so
// that it has a file like any sample grid.
bool RunFileFetcher::fetchTensorBoardImage(quint64 jobId, const QString& relativePath) {
    const auto ref = TensorBoardRun::parseImagePath(relativePath.toStdString());
    if (!ref) return false;
    try {
        std::string png;
        std::string host = "local";
        if (ssh_) {
            connectSftp();
            SftpEventFiles files(*sftp_);
            png = TensorBoardRun::readImage(files, runDir_.toStdString(), *ref);
            host = RemoteCache::hostKey(ssh_->host, ssh_->port.value_or(22));
        } else {
            LocalEventFiles files;
            png = TensorBoardRun::readImage(files, runDir_.toStdString(), *ref);
        }
        const std::string local = RemoteCache().pathFor("tensorboard/" + host, runDir_.toStdString() + "/" + relativePath.toStdString() + ".png");
        std::error_code ec;
        std::filesystem::create_directories(std::filesystem::path(local).parent_path(), ec);
        AtomicFile::write(local, png);
        QImage image;
        if (!image.loadFromData(reinterpret_cast<const uchar*>(png.data()), static_cast<int>(png.size())))
            throw IoError("the image in " + relativePath.toStdString() + " is not a PNG Qt can read");
        emit imageReady(jobId, relativePath, QString::fromStdString(local), image);
    } catch (const std::exception& e) {
        if (ssh_) {
            sftp_.reset();
            session_.reset();
        }
        emit failed(jobId, tr("Cannot read the image %1: %2").arg(relativePath, QString::fromStdString(e.what())));
    }
    return true;
}

void RunFileFetcher::connectSftp() {
    if (!session_) {
        session_ = SshSession::connect(*ssh_);
        sftp_ = std::make_unique<SftpClient>(*session_);
    }
}

void RunFileFetcher::fetchImage(quint64 jobId, const QString& relativePath) {
    cancel_.store(false);
    if (fetchTensorBoardImage(jobId, relativePath)) return;
    QString local = runDir_ + "/" + relativePath;
    if (ssh_) {
        try {
            connectSftp();
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
