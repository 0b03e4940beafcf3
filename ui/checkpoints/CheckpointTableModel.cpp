#include "checkpoints/CheckpointTableModel.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <QGuiApplication>
#include <QLocale>
#include <QPixmap>

namespace streetgan::ui {

namespace {

QString lossText(double v) { return std::isfinite(v) ? QString::number(v, 'f', 4) : QStringLiteral("—"); }

bool sameFile(const CheckpointInfo& a, const CheckpointInfo& b) { return a.size == b.size && a.modified == b.modified; }

}  // namespace

CheckpointTableModel::CheckpointTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void CheckpointTableModel::setRows(const QList<CheckpointInfo>& rows) {
    QList<Row> next;
    next.reserve(rows.size());
    for (const CheckpointInfo& info : rows) {
        Row r;
        const int old = rowOf(info.path);
        if (old >= 0 && !rows_[old].info.reference && sameFile(rows_[old].info, info)) r = rows_[old];
        r.info = info;
        if (!info.remote) r.localPath = info.path;
        next << r;
    }
    QList<Row> references;
    for (const Row& r : rows_)
        if (r.info.reference) references << r;
    const qsizetype before = rows_.size() - references.size();  // the run's rows (references are last)
    // A followed run's new checkpoints come at the end: its rows so far stay, updated in place, and
    // the new ones are inserted after them. A reset for each checkpoint made the table lay out all
    // its rows again, thousands in a long run (issue 48: CPU that grew with the run).
    bool grows = next.size() >= before;
    for (qsizetype i = 0; grows && i < before; ++i) grows = next[i].info.path == rows_[i].info.path;
    if (!grows) {
        beginResetModel();
        rows_ = std::move(next);
        rows_ += references;
        reindex();
        endResetModel();
        return;
    }
    for (qsizetype i = 0; i < before; ++i) rows_[i] = std::move(next[i]);
    if (before > 0) emit dataChanged(index(0, 0), index(static_cast<int>(before) - 1, ColumnCount - 1));
    if (next.size() > before) {
        beginInsertRows({}, static_cast<int>(before), static_cast<int>(next.size()) - 1);
        for (qsizetype i = before; i < next.size(); ++i) rows_.insert(i, std::move(next[i]));
        reindex();
        endInsertRows();
    } else {
        reindex();
    }
}

int CheckpointTableModel::runRows() const {
    int n = static_cast<int>(rows_.size());
    while (n > 0 && rows_[n - 1].info.reference) --n;
    return n;
}

void CheckpointTableModel::reindexFrom(int first) {
    for (int i = first; i < rows_.size(); ++i) rowOfPath_.insert(rows_[i].info.path, i);
}

void CheckpointTableModel::removeRowAt(int r) {
    beginRemoveRows({}, r, r);
    thumbnails_ -= rows_[r].thumbnail.isNull() ? 0 : 1;
    rowOfPath_.remove(rows_[r].info.path);
    rows_.removeAt(r);
    reindexFrom(r);
    endRemoveRows();
}

// Row r gets `info`: 1 when it stays in its place with its file unchanged, 0 when it stays with its
// state dropped (the file changed), -1 when it no longer sorts there (left for the caller to move).
int CheckpointTableModel::updateInPlace(int r, const CheckpointInfo& info, int runRows) {
    const bool ordered =
        (r == 0 || !CheckpointCatalog::before(info, rows_[r - 1].info)) && (r + 1 >= runRows || !CheckpointCatalog::before(rows_[r + 1].info, info));
    if (!ordered) return -1;
    Row& row = rows_[r];
    const bool same = sameFile(row.info, info);
    if (!same) {
        thumbnails_ -= row.thumbnail.isNull() ? 0 : 1;
        row = Row{};
    }
    row.info = info;
    if (!info.remote) row.localPath = info.path;
    changed(r, 0, ColumnCount - 1);
    return same ? 1 : 0;
}

int CheckpointTableModel::applyChanges(const QList<CheckpointInfo>& rows, const QStringList& removed) {
    bool onlyAppended = true;
    for (const QString& path : removed) {
        const int r = rowOf(path);
        if (r < 0 || rows_[r].info.reference) continue;
        removeRowAt(r);
        onlyAppended = false;
    }
    const int firstAppended = runRows();
    QList<Row> batch;  // rows that go after the run's last row, in order: inserted at once
    const auto flush = [&] {
        if (batch.isEmpty()) return;
        const int at = runRows();
        beginInsertRows({}, at, at + static_cast<int>(batch.size()) - 1);
        for (qsizetype i = 0; i < batch.size(); ++i) rows_.insert(at + i, std::move(batch[i]));
        reindexFrom(at);
        endInsertRows();
        batch.clear();
    };
    for (const CheckpointInfo& info : rows) {
        if (const int old = rowOf(info.path); old >= 0) {
            if (rows_[old].info.reference) continue;  // the user's reference row stays as added
            const int kept = updateInPlace(old, info, runRows());
            onlyAppended = onlyAppended && kept == 1;
            if (kept >= 0) continue;
            removeRowAt(old);  // it sorts elsewhere now: inserted again below
        }
        Row r;
        r.info = info;
        if (!info.remote) r.localPath = info.path;
        const int run = runRows();
        const CheckpointInfo* last = !batch.isEmpty() ? &batch.back().info : run > 0 ? &rows_[run - 1].info : nullptr;
        if (!last || !CheckpointCatalog::before(info, *last)) {
            batch << std::move(r);
            continue;
        }
        flush();
        onlyAppended = false;
        const auto at = std::upper_bound(rows_.cbegin(), rows_.cbegin() + runRows(), info,
                                         [](const CheckpointInfo& a, const Row& b) { return CheckpointCatalog::before(a, b.info); });
        const int pos = static_cast<int>(at - rows_.cbegin());
        beginInsertRows({}, pos, pos);
        rows_.insert(pos, std::move(r));
        reindexFrom(pos);
        endInsertRows();
    }
    flush();
    return onlyAppended ? firstAppended : -1;
}

void CheckpointTableModel::reindex() {
    rowOfPath_.clear();
    rowOfPath_.reserve(rows_.size());
    thumbnails_ = 0;
    for (int i = 0; i < rows_.size(); ++i) {
        rowOfPath_.insert(rows_[i].info.path, i);
        thumbnails_ += rows_[i].thumbnail.isNull() ? 0 : 1;
    }
}

QStringList CheckpointTableModel::dropThumbnails(int first, int last, int kept) {
    QStringList dropped;
    if (thumbnails_ <= kept) return dropped;
    // Rows by distance from the shown ones, farthest first; ties (equally far above and below)
    // drop the rows above first, as a live run's newest checkpoints are at the end.
    std::vector<std::pair<int, int>> far;  // (distance, row)
    for (int i = 0; i < rows_.size(); ++i)
        if (!rows_[i].thumbnail.isNull()) far.emplace_back(i < first ? first - i : (i > last ? i - last : 0), i);
    std::sort(far.begin(), far.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    for (const auto& [distance, r] : far) {
        if (thumbnails_ <= kept || distance == 0) break;
        rows_[r].thumbnail = QImage();
        --thumbnails_;
        dropped << rows_[r].info.path;
        changed(r, Thumbnail, Thumbnail);
    }
    return dropped;
}

int CheckpointTableModel::addReference(const CheckpointInfo& info) {
    const int old = rowOf(info.path);
    if (old >= 0) return old;
    const int r = static_cast<int>(rows_.size());
    beginInsertRows({}, r, r);
    Row row;
    row.info = info;
    row.info.reference = true;
    row.localPath = info.path;
    rows_ << row;
    rowOfPath_.insert(row.info.path, r);
    endInsertRows();
    return r;
}

void CheckpointTableModel::clear() {
    beginResetModel();
    rows_.clear();
    reindex();
    endResetModel();
}

int CheckpointTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(rows_.size()); }
int CheckpointTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

int CheckpointTableModel::rowOf(const QString& path) const { return rowOfPath_.value(path, -1); }

QVariant CheckpointTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size()) return {};
    const Row& r = rows_[index.row()];
    const CheckpointInfo& c = r.info;
    const int col = index.column();
    if (role == Qt::DecorationRole && col == Thumbnail && !r.thumbnail.isNull()) return QPixmap::fromImage(r.thumbnail);
    if (role == Qt::TextAlignmentRole && col >= Epoch && col != Time) return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        if (col == Parzen && r.parzen == ParzenState::Failed) return r.parzenError;
        if (!r.error.isEmpty()) return r.error;
        return c.path;
    }
    if (role == Qt::UserRole) return c.path;
    if (role != Qt::DisplayRole) return {};
    switch (col) {
        case Thumbnail:
            if (!r.error.isEmpty()) return tr("error");
            if (!r.progress.isEmpty()) return r.progress;
            return r.thumbnail.isNull() ? (c.remote && r.localPath.isEmpty() ? tr("remote") : tr("…")) : QVariant();
        case Name:
            return r.error.isEmpty() ? (c.reference ? tr("%1 (reference)").arg(c.name()) : c.name()) : tr("%1: %2").arg(c.name(), r.error);
        case Epoch:
            return c.epoch >= 0 ? QVariant(c.epoch) : QVariant(QStringLiteral("—"));
        case Step:
            return c.step >= 0 ? QVariant(c.step) : QVariant(QStringLiteral("—"));
        case Time: {
            const QDateTime t = c.savedAt();
            return t.isValid() ? t.toString(QStringLiteral("yyyy-MM-dd hh:mm:ss")) : QStringLiteral("—");
        }
        case Size:
            return c.size >= 0 ? QLocale().formattedDataSize(c.size) : QStringLiteral("—");
        case LossD:
            return lossText(c.lossD);
        case LossG:
            return lossText(c.lossG);
        case Swd:
            return std::isfinite(c.swd) ? QVariant(QString::number(c.swd, 'f', 2)) : QVariant(QStringLiteral("—"));
        case Parzen:
            switch (r.parzen) {
                case ParzenState::None:
                    return QStringLiteral("—");
                case ParzenState::Queued:
                    return tr("queued");
                case ParzenState::Running:
                    return tr("computing…");
                case ParzenState::Done:
                    return QStringLiteral("%1 ± %2").arg(r.parzenValue, 0, 'f', 2).arg(r.parzenStdError, 0, 'f', 2);
                case ParzenState::Failed:
                    return tr("failed (see tooltip)");  // the one-line error is long
            }
    }
    return {};
}

QVariant CheckpointTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Thumbnail:
            return tr("Fixed noise");
        case Name:
            return tr("Checkpoint");
        case Epoch:
            return tr("Epoch");
        case Step:
            return tr("Step");
        case Time:
            return tr("Saved");
        case Size:
            return tr("Size");
        case LossD:
            return tr("loss D");
        case LossG:
            return tr("loss G");
        case Swd:
            return tr("SWD ×10³");
        case Parzen:
            return tr("Parzen log-lik.");
    }
    return {};
}

void CheckpointTableModel::changed(int r, int firstColumn, int lastColumn) { emit dataChanged(index(r, firstColumn), index(r, lastColumn)); }

void CheckpointTableModel::setEpochStep(const QString& path, qint64 epoch, qint64 step) {
    const int r = rowOf(path);
    if (r < 0) return;
    rows_[r].info.epoch = epoch;
    rows_[r].info.step = step;
    changed(r, Epoch, Step);
}

void CheckpointTableModel::setThumbnail(const QString& path, const QImage& image) {
    const int r = rowOf(path);
    if (r < 0) return;
    // Kept at the size shown, not as rendered: the table is the only reader of the thumbnail.
    const qreal dpr = qGuiApp ? qGuiApp->devicePixelRatio() : 1.0;
    const int edge = qRound(kThumbnailEdge * dpr);
    QImage shown = image.width() > edge || image.height() > edge ? image.scaled(edge, edge, Qt::KeepAspectRatio, Qt::SmoothTransformation) : image;
    shown.setDevicePixelRatio(dpr);
    thumbnails_ += rows_[r].thumbnail.isNull() ? 1 : 0;
    rows_[r].thumbnail = shown;
    rows_[r].renderedSize = image.size();
    rows_[r].error.clear();
    changed(r, Thumbnail, Name);
}

void CheckpointTableModel::setError(const QString& path, const QString& error) {
    const int r = rowOf(path);
    if (r < 0) return;
    rows_[r].error = error;
    rows_[r].progress.clear();
    changed(r, Thumbnail, Name);
}

void CheckpointTableModel::setLocalPath(const QString& path, const QString& localPath) {
    const int r = rowOf(path);
    if (r < 0) return;
    rows_[r].localPath = localPath;
    rows_[r].progress.clear();
    changed(r, Thumbnail, Thumbnail);
}

void CheckpointTableModel::setProgress(const QString& path, const QString& text) {
    const int r = rowOf(path);
    if (r < 0) return;
    rows_[r].progress = text;
    changed(r, Thumbnail, Thumbnail);
}

void CheckpointTableModel::setParzen(const QString& path, ParzenState state, double value, double stdError, const QString& error) {
    const int r = rowOf(path);
    if (r < 0) return;
    Row& row = rows_[r];
    row.parzen = state;
    row.parzenValue = value;
    row.parzenStdError = stdError;
    row.parzenError = error;
    changed(r, Parzen, Parzen);
}

}  // namespace streetgan::ui
