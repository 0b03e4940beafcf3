// The checkpoint browser's table: one row per checkpoint (CheckpointInfo: its losses and the sliced
// Wasserstein distance the trainer measured at its step) with what the page learns about it later: its fixed-noise thumbnail, the Parzen log-likelihood
// (queued, running, value or error), a download state for a remote run and a one-line error (a checkpoint the worker cannot open). setRows() merges by path, so
// thumbnails and Parzen values survive a refresh of a live run unless the file changed (size or mtime). GUI thread only.
#pragma once

#include <QAbstractTableModel>
#include <QHash>
#include <QImage>
#include <QList>

#include "checkpoints/CheckpointCatalog.h"

namespace streetgan::ui {

class CheckpointTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Thumbnail, Name, Epoch, Step, Time, Size, LossD, LossG, Swd, Parzen, ColumnCount };
    enum class ParzenState { None, Queued, Running, Done, Failed };
    /// Edge of the thumbnails shown in the table, in pixels.
    static constexpr int kThumbnailEdge = 72;

    struct Row {
        CheckpointInfo info;
        /// The fixed-noise grid scaled to the table's thumbnail (kThumbnailEdge at the screen's pixel
        /// ratio): ~20 KB a checkpoint instead of the full grid's ~300 KB, for runs of hundreds of them.
        QImage thumbnail;
        QSize renderedSize;  ///< the grid as the worker rendered it
        QString error;       ///< one line: the checkpoint cannot be opened / downloaded
        QString localPath;   ///< where it can be rendered ("" for a remote file not downloaded yet)
        QString progress;    ///< download progress text, "" when none
        ParzenState parzen = ParzenState::None;
        double parzenValue = CheckpointInfo::kNaN, parzenStdError = CheckpointInfo::kNaN;
        QString parzenError;
    };

    explicit CheckpointTableModel(QObject* parent = nullptr);

    /// Replaces the run's rows (reference rows stay at the end); keeps per-row state by path.
    void setRows(const QList<CheckpointInfo>& rows);
    /// A followed run's changes (CheckpointCatalog::takeChanges(): rows in the catalog's order, the
    /// paths of files gone): each row updated in place (its state kept unless its file changed),
    /// inserted where the order puts it (new ones at the end in one insert), or removed; work in
    /// proportion to the changes, not to the rows (issue 48: the whole list was merged, and the
    /// table's rows all changed, for each new checkpoint of a run of thousands). Returns the first
    /// row appended when the changes only appended rows at the end of the run's rows or updated
    /// rows in place with their files unchanged (runRows() when none was appended), else -1.
    int applyChanges(const QList<CheckpointInfo>& rows, const QStringList& removed);
    /// The run's rows, the first ones (reference rows follow them).
    int runRows() const;
    /// Adds (or finds) a reference checkpoint row; returns its row index.
    int addReference(const CheckpointInfo& info);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const Row& row(int r) const { return rows_[r]; }
    int rowOf(const QString& path) const;  ///< -1 when absent; O(1)
    const QList<Row>& rows() const { return rows_; }

    /// What the worker's `open` learnt about a reference checkpoint (-1: unknown).
    void setEpochStep(const QString& path, qint64 epoch, qint64 step);
    void setThumbnail(const QString& path, const QImage& image);
    /// Rows holding a thumbnail.
    int thumbnails() const { return thumbnails_; }
    /// Bounds the thumbnails held (issue 48: a run of thousands of checkpoints): while more than
    /// `kept` rows hold one, drops those farthest from rows [first, last] (what the table shows).
    /// Returns the paths of the rows dropped; their other state stays.
    QStringList dropThumbnails(int first, int last, int kept);
    void setError(const QString& path, const QString& error);
    void setLocalPath(const QString& path, const QString& localPath);
    void setProgress(const QString& path, const QString& text);
    void setParzen(const QString& path, ParzenState state, double value = CheckpointInfo::kNaN, double stdError = CheckpointInfo::kNaN,
                   const QString& error = {});

private:
    void changed(int r, int firstColumn, int lastColumn);
    void reindex();
    void reindexFrom(int first);
    void removeRowAt(int r);
    int updateInPlace(int r, const CheckpointInfo& info, int runRows);
    QList<Row> rows_;
    QHash<QString, int> rowOfPath_;  ///< info.path -> row: setRows() merges thousands of rows by path
    int thumbnails_ = 0;
};

}  // namespace streetgan::ui
