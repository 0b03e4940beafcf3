// Worker: the checkpoints of a remote run over SFTP — lists RUN/checkpoints (size, mtime) and
// downloads one on demand into the RemoteCache (resumable .part, size check, atomic rename: see
// SftpClient::download), with progress and cancel. Its own SshSession, opened on first use on
// this worker's thread. Functor connects only; results carry the job id; cancel() is an atomic
// flag (a cancelled download keeps its .part for a later resume). Lives in a worker QThread.
#pragma once

#include <QMetaType>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <vector>

#include "base/remote/SftpClient.h"
#include "base/remote/SshOptions.h"

namespace streetgan {
class SshSession;
}

Q_DECLARE_METATYPE(std::vector<streetgan::RemoteFileInfo>)

namespace streetgan::ui {

class RemoteCheckpointFetcher : public QObject {
    Q_OBJECT
public:
    explicit RemoteCheckpointFetcher(SshOptions ssh);
    ~RemoteCheckpointFetcher() override;
    /// Lists `runDir`/checkpoints on the host; answers listed() or failed().
    void list(quint64 jobId, const QString& runDir);
    /// Downloads `remotePath` into the cache; answers fetched() or failed().
    void fetch(quint64 jobId, const QString& remotePath);
    void cancel() { cancel_.store(true); }

signals:
    void listed(quint64 jobId, const std::vector<streetgan::RemoteFileInfo>& checkpoints);
    void progress(quint64 jobId, qint64 done, qint64 total);
    void fetched(quint64 jobId, const QString& remotePath, const QString& localPath);
    void failed(quint64 jobId, const QString& message);

private:
    void connectIfNeeded();

    SshOptions ssh_;
    std::unique_ptr<SshSession> session_;
    std::unique_ptr<SftpClient> sftp_;
    std::atomic<bool> cancel_{false};
};

}  // namespace streetgan::ui
