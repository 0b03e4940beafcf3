// Worker: turns a run file (a sample grid, relative to the run directory) into a QImage off the
// GUI thread: read from disk for a local run; for a remote run downloaded first through core's
// SftpClient into the RemoteCache (its own SshSession, on this thread). Job ids come back with
// results; cancel() is an atomic flag that stops a download.
#pragma once

#include <QImage>
#include <QObject>
#include <QString>

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

signals:
    void imageReady(quint64 jobId, const QString& relativePath, const QString& localPath, const QImage& image);
    void progress(quint64 jobId, qint64 done, qint64 total);
    void failed(quint64 jobId, const QString& message);

private:
    bool fetchTensorBoardImage(quint64 jobId, const QString& relativePath);
    void connectSftp();
    QString runDir_;
    std::optional<SshOptions> ssh_;
    std::unique_ptr<SshSession> session_;
    std::unique_ptr<SftpClient> sftp_;
    std::atomic<bool> cancel_{false};
};

}  // namespace streetgan::ui
