// The checkpoint browser: for the selected run (local, or remote through SFTP) a table of its
// checkpoints (epoch, step, save time, size, losses at save time, Parzen log-likelihood computed
// on demand in the background, a thumbnail of each checkpoint's fixed-noise grid), an evolution
// view (the same z through the checkpoints, exportable as a GIF), two checkpoints side by side on
// the same z, and "open in explorer". Reference Python checkpoints can be added (file dialog,
// drag and drop of .pt/.pth files). All generator work goes through the explore worker
// (RenderClient); events.jsonl is read on a short-lived worker thread; remote checkpoints are
// listed and downloaded by a RemoteCheckpointFetcher on its own thread; Parzen runs as an eval
// child process (ParzenRunner). GUI thread; nothing here blocks it.
#pragma once

#include <QHash>
#include <QPointer>
#include <QSet>
#include <QWidget>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "base/remote/SftpClient.h"
#include "base/remote/SshOptions.h"
#include "checkpoints/CheckpointCatalog.h"

class QHBoxLayout;
class QLabel;
class QMimeData;
class QPushButton;
class QTabWidget;
class QTableView;
class QThread;
class QTimer;

namespace streetgan::ui {

class CheckpointTableModel;
class EvolutionPanel;
class ParzenRunner;
class RemoteCheckpointFetcher;
class RenderClient;
class RunSession;
class SideBySidePanel;

class CheckpointBrowserPage : public QWidget {
    Q_OBJECT
public:
    /// `trainer`: the streetgan-trainer binary for Parzen evals (empty: TrainerLocator);
    /// `parzenCache`: the Parzen cache file (empty: the app's cache folder).
    explicit CheckpointBrowserPage(QWidget* parent = nullptr, QString trainer = {}, QString parzenCache = {});
    ~CheckpointBrowserPage() override;

    /// Binds the page to a run (nullptr: none). A remote session needs `ssh` (the host's
    /// RemoteHost::sshOptions()) to list and download its checkpoints.
    void setSession(RunSession* session, std::optional<SshOptions> ssh = std::nullopt);
    /// Adds a checkpoint from outside the run (a reference Python checkpoint, another run's file).
    void addReferenceCheckpoint(const QString& path);
    /// Re-reads the run's checkpoints now (a local run's folder listed whole).
    void refresh();
    /// A followed local run's folder is listed whole (files pruned or written without an event)
    /// at most this often; between, a new checkpoint costs what is new (CheckpointCatalog::scanNew).
    static constexpr int kFullScanMs = 30000;
    /// ... unless the folder holds at most this many checkpoints (a run pruning to its last few):
    /// then listing it is cheap, and a pruned file's row goes at once.
    static constexpr int kFullScanFiles = 200;

    /// Queues Parzen evaluations for the rows (local files; remote ones are downloaded first).
    void computeParzen(const QList<int>& rows);
    void cancelParzen();
    /// Emits openInExplorer() for `row` (remote: after the download).
    void openRowInExplorer(int row);
    /// Downloads a remote row's checkpoint (no-op for local rows).
    void download(int row);
    /// Downloads every remote checkpoint not on this machine yet (the evolution view and side by
    /// side offer a checkpoint once it is local).
    void downloadAll();

    CheckpointTableModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    EvolutionPanel* evolution() const { return evolution_; }
    SideBySidePanel* sideBySide() const { return sideBySide_; }
    ParzenRunner* parzen() const { return parzen_; }
    QString statusText() const;
    /// Thumbnails are rendered for the rows on screen and `margin` rows either side, and at most
    /// `kept` are held (the farthest from the screen are dropped, and rendered again when scrolled
    /// back to): a run's thousands of checkpoints cost a screenful of images, not one each.
    /// Defaults kThumbnailMargin and kThumbnailsKept; tests use small ones.
    void setThumbnailWindow(int margin, int kept);
    static constexpr int kThumbnailMargin = 24;
    static constexpr int kThumbnailsKept = 200;

signals:
    void openInExplorer(const QString& checkpointPath);
    void statusMessage(const QString& message);
    /// The table was rebuilt from the run (tests, the main window's title).
    void catalogLoaded(int rows);
    void thumbnailReady(const QString& checkpointPath);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    QHBoxLayout* buildTools();
    void wireTable();
    void wireParzen();
    void wireRender();
    void startFetcher(RunSession* session);
    void setStatus(const QString& message);
    void reloadLocal(bool fullScan);
    void reloadRemote();
    void onCatalog(quint64 job, const CheckpointCatalog::Changes& changes, qint64 offset, bool fullScan, const QString& error);
    void applyRows(const QList<CheckpointInfo>& rows);
    void applyChanges(const CheckpointCatalog::Changes& changes, bool fullScan);
    void applyCachedParzen(const QList<CheckpointInfo>& rows);
    void fitColumns(int first, int last);
    void requestThumbnails();
    std::pair<int, int> thumbnailRows() const;
    void keepThumbnailBudget();
    void requestThumbnail(const QString& path, const QString& localPath);
    void updateChoices();
    void appendChoices(int fromRow);
    CheckpointChoice choiceOf(const CheckpointInfo& info, const QString& localPath) const;
    QList<int> selectedRows() const;
    static QStringList checkpointFiles(const QMimeData* mime);

    QPointer<RunSession> session_;
    std::optional<SshOptions> ssh_;
    RenderClient* render_;
    ParzenRunner* parzen_;
    CheckpointTableModel* model_;
    QTableView* table_;
    QTabWidget* tabs_;
    EvolutionPanel* evolution_;
    SideBySidePanel* sideBySide_;
    QLabel* status_;
    QPushButton* parzenButton_;
    QPushButton* cancelParzenButton_;
    QPushButton* explorerButton_;
    QPushButton* downloadAllButton_;

    /// Local run: what was read so far. Only the one reading thread at a time uses it (reading_),
    /// never the GUI thread: it is not copied for each read (issue 48: thousands of checkpoints).
    std::shared_ptr<CheckpointCatalog> catalog_;
    qint64 eventsOffset_ = 0;  ///< local run: events.jsonl read up to here
    quint64 catalogJob_ = 0;
    bool reading_ = false, rereadWanted_ = false, fullScanWanted_ = false;
    QTimer* fullScanTimer_;
    size_t seenCheckpointEvents_ = 0;

    QHash<qint64, QString> thumbnailJobs_;        ///< render id -> checkpoint path (table key)
    QHash<qint64, QString> openJobs_;             ///< render id -> reference checkpoint path
    QHash<QString, QString> thumbnailRequested_;  ///< checkpoint path -> the file's key when requested (its mtime)
    int thumbnailMargin_ = kThumbnailMargin, thumbnailsKept_ = kThumbnailsKept;

    // Remote runs.
    QThread* remoteThread_ = nullptr;
    RemoteCheckpointFetcher* fetcher_ = nullptr;
    quint64 remoteJob_ = 0;
    bool listFailed_ = false;            ///< the last remote listing failed: listed again when the run's connection is back
    QHash<quint64, QString> downloads_;  ///< fetch job -> remote path
    QSet<QString> parzenAfterDownload_, explorerAfterDownload_;
};

}  // namespace streetgan::ui
