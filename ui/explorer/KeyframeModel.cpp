#include "explorer/KeyframeModel.h"

#include <QPixmap>
#include <QPointF>
#include <algorithm>

#include "base/latent/Easing.h"

namespace streetgan::ui {

KeyframeModel::KeyframeModel(QObject* parent) : QAbstractListModel(parent) {}

QByteArray KeyframeModel::keyOf(const SessionKeyframe& k) {
    // The keyframe's value as bytes: what it is (seed or z), the easing, then the seed or vector.
    QByteArray key;
    key += k.seed ? 's' : 'z';
    key += k.easing ? static_cast<char>('0' + static_cast<int>(*k.easing)) : '-';
    if (k.seed) {
        const quint64 seed = *k.seed;
        key.append(reinterpret_cast<const char*>(&seed), sizeof seed);
    } else {
        key.append(reinterpret_cast<const char*>(k.z.data()), static_cast<qsizetype>(k.z.size()) * static_cast<qsizetype>(sizeof(double)));
    }
    return key;
}

int KeyframeModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(rows_.size()); }

QVariant KeyframeModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const int row = index.row();
    const SessionKeyframe& k = rows_[static_cast<size_t>(row)];
    switch (role) {
        case Qt::DisplayRole: {
            QString text = k.seed ? tr("seed %1").arg(static_cast<qint64>(*k.seed)) : tr("z (%1 values)").arg(k.z.size());
            if (k.easing) text += tr("  [%1]").arg(QString::fromStdString(Easing::name(*k.easing)));
            if (k.tRange) text += tr("  [t %1 → %2]").arg(k.tRange->start).arg(k.tRange->end);
            return text;
        }
        case Qt::DecorationRole: {
            const auto it = thumbs_.constFind(keys_[row]);
            return it == thumbs_.constEnd() || it->icon.isNull() ? QVariant() : QVariant(it->icon);
        }
        case SeedRole:
            return k.seed ? QVariant(static_cast<qint64>(*k.seed)) : QVariant();
        case VectorRole:
            return QVariant::fromValue(QList<double>(k.z.begin(), k.z.end()));
        case EasingRole:
            return k.easing ? QString::fromStdString(Easing::name(*k.easing)) : QString();
        case ThumbnailRole:
            return thumbs_.value(keys_[row]).image;
        case TRangeRole:
            return k.tRange ? QVariant(QPointF(k.tRange->start, k.tRange->end)) : QVariant();
        default:
            return {};
    }
}

Qt::ItemFlags KeyframeModel::flags(const QModelIndex& index) const {
    // Drops go between rows (the root accepts them), never onto a keyframe.
    if (!index.isValid()) return Qt::ItemIsDropEnabled;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled | Qt::ItemNeverHasChildren;
}

Qt::DropActions KeyframeModel::supportedDropActions() const { return Qt::MoveAction; }

bool KeyframeModel::moveRows(const QModelIndex& sourceParent, int sourceRow, int count, const QModelIndex& destinationParent, int destinationChild) {
    const int n = static_cast<int>(rows_.size());
    if (sourceParent.isValid() || destinationParent.isValid() || count != 1 || sourceRow < 0 || sourceRow >= n || destinationChild < 0 || destinationChild > n)
        return false;
    // destinationChild is the row it goes before, counted before the move.
    const int to = destinationChild > sourceRow ? destinationChild - 1 : destinationChild;
    if (to == sourceRow) return false;
    const quint64 before = revision_;
    emit moveRequested(sourceRow, to);
    return revision_ != before;
}

void KeyframeModel::changed(int first, int last, const QList<int>& roles) {
    first = std::max(first, 0);
    last = std::min(last, static_cast<int>(rows_.size()) - 1);
    if (first <= last) emit dataChanged(index(first), index(last), roles);
}

void KeyframeModel::setKeyframes(const std::vector<SessionKeyframe>& next) {
    if (next == rows_) return;
    ++revision_;
    emit keyframesAboutToChange();
    update(next);
    emit keyframesChanged();
}

void KeyframeModel::update(const std::vector<SessionKeyframe>& next) {
    const int n = static_cast<int>(rows_.size()), m = static_cast<int>(next.size());
    const auto same = [&](int i, int j) { return rows_[static_cast<size_t>(i)] == next[static_cast<size_t>(j)]; };
    // The rows that differ: [pre, n - suf) before, [pre, m - suf) after.
    int pre = 0;
    while (pre < n && pre < m && same(pre, pre)) ++pre;
    int suf = 0;
    while (suf < n - pre && suf < m - pre && same(n - 1 - suf, m - 1 - suf)) ++suf;
    const int a = n - pre - suf, b = m - pre - suf;
    const auto keys = [](const std::vector<SessionKeyframe>& ks) {
        QList<QByteArray> out;
        out.reserve(static_cast<qsizetype>(ks.size()));
        for (const auto& k : ks) out.append(keyOf(k));
        return out;
    };
    if (a == 0) {  // rows pre..pre+b-1 inserted
        beginInsertRows(QModelIndex(), pre, pre + b - 1);
        rows_ = next;
        keys_ = keys(rows_);
        endInsertRows();
        return;
    }
    if (b == 0) {  // rows pre..pre+a-1 removed
        beginRemoveRows(QModelIndex(), pre, pre + a - 1);
        rows_ = next;
        keys_ = keys(rows_);
        endRemoveRows();
        return;
    }
    if (a == b && a >= 2) {
        // One row moved from one end of the window to the other?
        bool down = same(pre, pre + a - 1), up = same(pre + a - 1, pre);
        for (int i = 0; i < a - 1 && (down || up); ++i) {
            down = down && same(pre + 1 + i, pre + i);
            up = up && same(pre + i, pre + 1 + i);
        }
        if (down || up) {
            const int from = down ? pre : pre + a - 1;
            beginMoveRows(QModelIndex(), from, from, QModelIndex(), down ? pre + a : pre);
            rows_ = next;
            keys_ = keys(rows_);
            endMoveRows();
            return;
        }
    }
    if (a == b) {  // rows edited in place
        rows_ = next;
        keys_ = keys(rows_);
        changed(pre, pre + a - 1);
        return;
    }
    beginResetModel();
    rows_ = next;
    keys_ = keys(rows_);
    endResetModel();
}

void KeyframeModel::setThumbnails(const QList<QImage>& images) {
    if (thumbs_.size() > 1000) thumbs_.clear();
    for (int i = 0; i < keys_.size(); ++i) {
        const QImage image = i < images.size() ? images[i] : QImage();
        thumbs_.insert(keys_[i], Thumbnail{image, image.isNull() ? QIcon() : QIcon(QPixmap::fromImage(image))});
    }
    changed(0, static_cast<int>(keys_.size()) - 1, {Qt::DecorationRole, ThumbnailRole});
}

}  // namespace streetgan::ui
