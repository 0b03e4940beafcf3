// Worker: turns a run file (a sample grid, relative to the run directory) into a QImage off the
// GUI thread: read from disk for a local run; for a remote run downloaded first through core's
// SftpClient into the RemoteCache (its own SshSession, on this thread). Job ids come back with
// results; cancel() is an atomic flag that stops a download.
//
// Also the img_list grids of a TensorBoard run's newest checkpoint (the reference keeps its
// fixed-noise grids there, one per saved epoch, instead of sample files): the checkpoint is found
// (TensorBoardRun::checkpoints), downloaded for a remote run when asked to, and its grids written
// as PNGs by `streetgan-trainer export --format img-list` (LibTorch reads the checkpoint; the app
// does not link it) into a cache folder named after the checkpoint's path, size and mtime, which
// a later call reuses.
#pragma once

#include <QImage>
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>
#include <optional>

#include "base/remote/SshOptions.h"

namespace streetgan {
class SshSession;
class SftpClient;
}  // namespace streetgan

namespace streetgan::ui {

class RunFileFetcher : public QObject {
    Q_OBJECT
public:
    /// Local run: `ssh` empty.
    RunFileFetcher(QString runDir, std::optional<SshOptions> ssh);
    ~RunFileFetcher() override;
    void fetchImage(quint64 jobId, const QString& relativePath);
    void cancel() { cancel_.store(true); }
    /// The newest checkpoint of a TensorBoard run: its grids (gridsReady) when it is local or
    /// `download` is set, else gridsOffered (a remote file to download first); gridsFailed when
    /// there is no checkpoint or it holds no grids. `trainer`: the local streetgan-trainer.
    void fetchCheckpointGrids(quint64 jobId, const QString& trainer, bool download);
    /// Whether `path` names an extracted grid (fetchImage reads it from the cache as it is).
    static bool isGridPath(const QString& path);

signals:
    /// `checkpoint`: relative to the run; `pngs`: absolute paths of its grids, oldest first.
    void gridsReady(quint64 jobId, const QString& checkpoint, const QStringList& pngs);
    void gridsOffered(quint64 jobId, const QString& checkpoint, qint64 size);
    void gridsFailed(quint64 jobId, const QString& message);
    void imageReady(quint64 jobId, const QString& relativePath, const QString& localPath, const QImage& image);
    void progress(quint64 jobId, qint64 done, qint64 total);
    void failed(quint64 jobId, const QString& message);

private:
    bool fetchTensorBoardImage(quint64 jobId, const QString& relativePath);
    /// Runs the trainer's img-list export of `checkpoint` into `folder` (unless a complete one is
    /// there); the grids' paths. Throws CheckpointError with the trainer's message when it refuses
    /// the checkpoint, Error when it cannot run or is cancelled.
    QStringList extractGrids(const QString& trainer, const QString& checkpoint, const QString& folder);
    std::string hostKey() const;
    /// The last checkpoint (its grids' folder) whose extraction failed, and why.
    QString failedFolder_, failedMessage_;
    void connectSftp();
    QString runDir_;
    std::optional<SshOptions> ssh_;
    std::unique_ptr<SshSession> session_;
    std::unique_ptr<SftpClient> sftp_;
    std::atomic<bool> cancel_{false};
};

}  // namespace streetgan::ui
