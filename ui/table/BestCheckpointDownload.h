// The Runs table's one click on a remote run's best checkpoint: the file is downloaded from its
// host into the RemoteCache (RemoteCheckpointFetcher: resumable .part, size check, atomic rename;
// a file already there at the remote size and mtime is not downloaded again), then handed out as a
// local file, which the table opens as it opens a local run's best checkpoint. While it downloads,
// this strip shows what, from where, a progress bar and Cancel; it is hidden otherwise.
// Each download connects afresh (its own SshSession on a worker thread of its own, ended with
// it): a host that went away fails at once with SSH's one line, and is reached again once back.
// One download at a time: a new one cancels the one running (whose answers are dropped).
// GUI thread.
#pragma once

#include <QString>
#include <QWidget>

class QLabel;
class QProgressBar;
class QThread;

namespace streetgan::ui {

class RemoteCheckpointFetcher;
class RemoteHost;

class BestCheckpointDownload : public QWidget {
    Q_OBJECT
public:
    explicit BestCheckpointDownload(QWidget* parent = nullptr);
    ~BestCheckpointDownload() override;

    /// Downloads `remotePath` (absolute on `host`) of the run named `run`; fetched or failed answers.
    void start(RemoteHost* host, const QString& run, const QString& remotePath);
    /// Stops the download (its .part is kept for the next one to resume); failed says so at once.
    void cancel();
    bool isRunning() const { return fetcher_ != nullptr; }
    /// What the strip says now ("gamma: best.pt from me@gpubox, 12 of 48 MB").
    QString text() const;
    QProgressBar* progressBar() const { return bar_; }

signals:
    /// The checkpoint is on this computer at `localPath`.
    void fetched(const QString& run, const QString& localPath);
    /// One line: the run, the file and why (the host cannot be reached, the file is gone, cancelled).
    void failed(const QString& message);

private:
    void finish();

    QLabel* label_;
    QProgressBar* bar_;
    QThread* thread_ = nullptr;
    RemoteCheckpointFetcher* fetcher_ = nullptr;
    quint64 job_ = 0;
    QString run_, file_, host_;
};

}  // namespace streetgan::ui
