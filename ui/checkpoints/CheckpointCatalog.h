// The checkpoints of one run as table rows: reads the run's events.jsonl (`checkpoint` events give
// step, epoch, path and time; the losses at save time are those of the last `metrics` event at or
// before the checkpoint's step; the SWD that of the `metric` event of the checkpoint's step, which
// the trainer logs when its background evaluation is done) and the file system (checkpoints/checkpoint_<epoch>.pt and
// checkpoint_<epoch>_step<step>.pt, CheckpointName: size, mtime). Rows are the checkpoint files: an event whose file is
// gone (pruned) is dropped, a file without an event still appears (epoch and step from its name). A remote run is described by its RunSeries (the
// attach stream) and the SFTP listing instead. Plain value type, no threads, no signals: the page
// reads on a worker thread and hands a copy back. Not thread-safe; copy between threads.
#pragma once

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

namespace streetgan {
struct RemoteFileInfo;
}

namespace streetgan::ui {

class RunSeries;

/// One checkpoint file and what the run said about it.
struct CheckpointInfo {
    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    QString path;                  ///< absolute path: local, or on the remote host for a remote run
    QString relativePath;          ///< relative to the run directory ("" for a reference checkpoint)
    qint64 step = -1, epoch = -1;  ///< -1: unknown
    double time = kNaN;            ///< wall time of the checkpoint event (s since the epoch)
    qint64 size = -1;
    QDateTime modified;
    double lossD = kNaN, lossG = kNaN, dX = kNaN, dGz = kNaN;
    double swd = kNaN;       ///< sliced Wasserstein distance x 1e3 of the metric event at its step
    bool reference = false;  ///< added by the user, not a file of the run
    bool remote = false;     ///< `path` is on the remote host; download before rendering

    QString name() const;
    /// Event time, else the file's modification time.
    QDateTime savedAt() const;
};

/// A checkpoint offered by the evolution and side-by-side pickers: a label and a local path.
struct CheckpointChoice {
    QString label;
    QString path;
    bool operator==(const CheckpointChoice& o) const { return label == o.label && path == o.path; }
};

class CheckpointCatalog {
public:
    /// Feeds one line of events.jsonl; anything but a complete JSON object is ignored (torn last
    /// line, other writers).
    void addEventLine(std::string_view line);
    /// Reads `eventsPath` from byte `fromOffset` up to the end of its last complete line and feeds
    /// every line; returns the offset reached (where a later call continues). A missing file
    /// reads as empty. Throws IoError when the file exists but cannot be read.
    qint64 readEvents(const QString& eventsPath, qint64 fromOffset = 0);
    /// Lists `runDir`/checkpoints' checkpoint files (size, mtime); replaces an earlier scan. For
    /// another trainer's TensorBoard run, every .pt/.pth in TensorBoardRun::checkpointFolders().
    void scanLocal(const QString& runDir);
    /// Stats only the files of the checkpoint events read since the last scan (a followed run's new
    /// checkpoints): work in proportion to what is new, where scanLocal() lists the whole folder
    /// (which also finds files pruned or written without an event).
    void scanNew(const QString& runDir);
    /// A remote run: checkpoint events and losses from the attach stream's series, files from the
    /// SFTP listing (remote paths under `runDir`: names of checkpoints/, or paths relative to the
    /// run when they hold a '/', a TensorBoard run's).
    void setRemote(const QString& runDir, const RunSeries& series, const std::vector<RemoteFileInfo>& files);

    /// One row per checkpoint file, oldest first (CheckpointName's order: epoch, then step, an
    /// epoch's own file after its step files when its step is unknown).
    QList<CheckpointInfo> rows() const;
    qint64 checkpointEvents() const { return events_; }
    /// Checkpoint files found so far.
    qsizetype files() const { return files_.size(); }

    /// What changed since the last takeChanges(): the rows (as rows() makes them, in its order) whose
    /// event, file or SWD is new or changed, and the paths (CheckpointInfo::path) of files gone.
    struct Changes {
        QList<CheckpointInfo> rows;
        QStringList removed;
    };
    Changes takeChanges();
    /// rows()'s order: epoch, then step (an epoch's own file whose step no event gave last), then path.
    static bool before(const CheckpointInfo& a, const CheckpointInfo& b);

    /// The epoch in a name "checkpoint_<epoch>.pt" or "checkpoint_<epoch>_step<step>.pt"; -1 when
    /// the name has another form.
    static qint64 epochFromName(const QString& fileName);
    /// The step in a name "checkpoint_<epoch>_step<step>.pt"; -1 for any other name.
    static qint64 stepFromName(const QString& fileName);

private:
    struct Losses {
        qint64 step = -1;
        double lossD = CheckpointInfo::kNaN, lossG = CheckpointInfo::kNaN, dX = CheckpointInfo::kNaN, dGz = CheckpointInfo::kNaN;
    };
    struct FileEntry {
        QString path;
        qint64 size = -1;
        QDateTime modified;
    };
    CheckpointInfo rowOf(const QString& relativePath, const FileEntry& file) const;
    void replaceFiles(QHash<QString, FileEntry> found);

    QHash<QString, CheckpointInfo> byPath_;  ///< relative path -> the latest event for it
    QHash<QString, FileEntry> files_;        ///< relative path -> file
    QSet<QString> touched_;                  ///< relative paths whose row changed since takeChanges()
    QStringList removed_;                    ///< paths of files gone since takeChanges()
    QStringList unscanned_;                  ///< relative paths of events read since the last scan
    QHash<qint64, QString> pathOfStep_;      ///< a checkpoint event's step -> its relative path (for a later SWD)
    Losses last_;
    QHash<qint64, double> swdByStep_;  ///< metric events' SWD by step (they come after the checkpoint)
    bool remote_ = false;
    qint64 events_ = 0;
};

}  // namespace streetgan::ui
