#include "remote/RunFileFetcher.h"

#include <QDir>
#include <QFile>
#include <QProcess>

#include <filesystem>

#include <nlohmann/json.hpp>

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
        if (ssh_) {
            connectSftp();
            SftpEventFiles files(*sftp_);
            png = TensorBoardRun::readImage(files, runDir_.toStdString(), *ref);
        } else {
            LocalEventFiles files;
            png = TensorBoardRun::readImage(files, runDir_.toStdString(), *ref);
        }
        const std::string local = RemoteCache().pathFor("tensorboard/" + hostKey(), runDir_.toStdString() + "/" + relativePath.toStdString() + ".png");
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

std::string RunFileFetcher::hostKey() const { return ssh_ ? RemoteCache::hostKey(ssh_->host, ssh_->port.value_or(22)) : std::string("local"); }

bool RunFileFetcher::isGridPath(const QString& path) { return path.startsWith(QString::fromStdString(RemoteCache().root()) + "/img_list/"); }

void RunFileFetcher::fetchCheckpointGrids(quint64 jobId, const QString& trainer, bool download) {
    cancel_.store(false);
    try {
        const std::string dir = runDir_.toStdString();
        std::vector<TensorBoardRun::CheckpointFile> found;
        if (ssh_) {
            connectSftp();
            SftpEventFiles files(*sftp_);
            found = TensorBoardRun::checkpoints(files, dir);
        } else {
            LocalEventFiles files;
            found = TensorBoardRun::checkpoints(files, dir);
        }
        if (found.empty()) {
            QStringList folders;
            for (const std::string& f : TensorBoardRun::checkpointFolders()) folders << QString::fromStdString(f);
            emit gridsFailed(jobId, tr("This run has no checkpoints (looked in %1).").arg(folders.join(", ")));
            return;
        }
        const auto& newest = found.back();
        const QString rel = QDir::cleanPath(QString::fromStdString(newest.path));
        const QString path = QDir::cleanPath(runDir_ + "/" + rel);
        QString local = path;
        if (ssh_) {
            if (!download) {
                emit gridsOffered(jobId, rel, static_cast<qint64>(newest.size));
                return;
            }
            DownloadOptions o;
            o.cancel = &cancel_;
            o.progress = [&](uint64_t done, uint64_t total) { emit progress(jobId, static_cast<qint64>(done), static_cast<qint64>(total)); };
            DownloadResult r;
            local = QString::fromStdString(sftp_->fetchToCache(RemoteCache(), path.toStdString(), o, &r));
            if (r.cancelled) {
                emit gridsFailed(jobId, tr("Download of %1 cancelled").arg(rel));
                return;
            }
        }
        // Named after the checkpoint and its size and mtime: a checkpoint saved again (the
        // reference rewrites checkpoint_<epoch>.pt when it resumes) gets a folder of its own.
        const std::string key = path.toStdString() + "." + std::to_string(newest.size) + "-" + std::to_string(newest.mtime);
        const QString folder = QString::fromStdString(RemoteCache().pathFor("img_list/" + hostKey(), key));
        // A checkpoint the trainer refused (no grids, unreadable) is not handed to it again on the
        // next look: a local run is looked at every 30 s, and each try loads LibTorch.
        if (folder == failedFolder_) {
            emit gridsFailed(jobId, failedMessage_);
            return;
        }
        try {
            emit gridsReady(jobId, rel, extractGrids(trainer, local, folder));
        } catch (const CheckpointError& e) {  // not a cancel or a trainer that did not start: those may go next time
            failedFolder_ = folder;
            failedMessage_ = QString::fromStdString(e.what());
            throw;
        }
    } catch (const std::exception& e) {
        if (ssh_) {
            sftp_.reset();
            session_.reset();
        }
        emit gridsFailed(jobId, QString::fromStdString(e.what()));
    }
}

QStringList RunFileFetcher::extractGrids(const QString& trainer, const QString& checkpoint, const QString& folder) {
    auto readIndex = [&]() -> QStringList {
        QFile f(folder + "/img_list.json");
        if (!f.open(QIODevice::ReadOnly)) return {};
        const auto j = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
        QStringList out;
        if (j.is_object() && j.value("files", nlohmann::json()).is_array())
            for (const auto& name : j["files"])
                if (name.is_string()) out << folder + "/" + QString::fromStdString(name.get<std::string>());
        return out;
    };
    if (QStringList cached = readIndex(); !cached.isEmpty()) return cached;
    QProcess p;
    p.start(trainer, {"export", "--checkpoint", checkpoint, "--format", "img-list", "--out", folder});
    if (!p.waitForStarted(-1))
        throw IoError("cannot start " + trainer.toStdString() + ": " + p.errorString().toStdString() + "; install streetgan-trainer or set STREETGAN_TRAINER");
    // A reference checkpoint of 25 epochs at 128 px holds 325 MB of grids: seconds, not a hang;
    // only a cancel (the run closed) stops it.
    while (!p.waitForFinished(200))
        if (cancel_.load()) {
            p.kill();
            p.waitForFinished(-1);
            throw Error("cancelled");
        }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        const QStringList lines = QString::fromUtf8(p.readAllStandardError()).split('\n', Qt::SkipEmptyParts);
        // The trainer ran and refused this checkpoint (no grids, unreadable): its own one-line error.
        throw CheckpointError(lines.isEmpty() ? "streetgan-trainer export failed (exit " + std::to_string(p.exitCode()) + ")"
                                              : lines.last().trimmed().toStdString());
    }
    QStringList pngs = readIndex();
    if (pngs.isEmpty()) throw IoError("streetgan-trainer wrote no img_list.json in " + folder.toStdString());
    return pngs;
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
    const bool grid = isGridPath(relativePath);  // already here, wherever the run is
    QString local = grid ? relativePath : runDir_ + "/" + relativePath;
    if (ssh_ && !grid) {
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
