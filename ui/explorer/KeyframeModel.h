// The explorer's keyframes as an item model: one row per keyframe of the session (base's
// SessionKeyframe: a seed or an explicit z vector, and the easing of the segment leaving it), with
// its thumbnail (the walk's own frame of that keyframe, rendered by the explore worker).
//
// SessionModel owns it and is its only writer: setKeyframes() takes the session's new list and
// emits the smallest change as proper model signals (rows inserted, removed or moved, data
// changed; a reset only for edits that are none of these), so views keep their state and
// QAbstractItemModelTester holds. The display text is the keyframe's own ("seed 2",
// "z (64 values)", "  [ease-in]", "  [t 0 → 8]" for the segment's own t range); the list view puts
// the row number before it (KeyframeDelegate).
//
// Drag and drop: rows are draggable and moveRows() (what QListView's InternalMove drop calls) edits
// nothing itself; it emits moveRequested(from, to) and the receiver (ExplorerPage) turns it into
// one undoable session edit, whose setKeyframes() moves the row. moveRows() returns whether the
// row moved.
//
// Thumbnails are kept by keyframe value: a row keeps its image while its keyframe stays the same,
// also when it moves or is duplicated (a t range is not part of that value: the thumbnail is the
// keyframe itself, WalkPreview renders it at t = 0).
//
// Thread contract: GUI thread.
#pragma once

#include <QAbstractListModel>
#include <QHash>
#include <QIcon>
#include <QImage>
#include <QList>
#include <vector>

#include "base/latent/LatentSession.h"

namespace streetgan::ui {

class KeyframeModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role {
        SeedRole = Qt::UserRole + 1,  ///< qint64 seed; invalid for a z keyframe
        VectorRole,                   ///< QList<double>: the z vector; empty for a seed keyframe
        EasingRole,                   ///< QString: the segment's easing name; "" = the path's easing
        ThumbnailRole,                ///< QImage: the keyframe's frame; null until rendered
        TRangeRole,                   ///< QPointF(start, end): the segment's own t range; invalid = the path's
    };

    explicit KeyframeModel(QObject* parent = nullptr);

    /// The session's keyframes; emits the change as model signals (nothing when equal).
    void setKeyframes(const std::vector<SessionKeyframe>& keyframes);
    const std::vector<SessionKeyframe>& keyframes() const { return rows_; }
    /// Images of the rows, in order (fewer images leave the remaining rows without one).
    void setThumbnails(const QList<QImage>& images);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    Qt::DropActions supportedDropActions() const override;
    bool moveRows(const QModelIndex& sourceParent, int sourceRow, int count, const QModelIndex& destinationParent, int destinationChild) override;

signals:
    /// A view moved row `from` so that it ends at row `to` (drag and drop).
    void moveRequested(int from, int to);
    /// Around each setKeyframes() that changes something (before its first model signal, after
    /// its last): views tell their own selection changes from the user's.
    void keyframesAboutToChange();
    void keyframesChanged();

private:
    struct Thumbnail {
        QImage image;
        QIcon icon;
    };
    static QByteArray keyOf(const SessionKeyframe& k);
    /// dataChanged for rows first..last (clamped), for `roles` (all when empty).
    void changed(int first, int last, const QList<int>& roles = {});
    /// Emits the model signals of the change from rows_ to `next` and stores it.
    void update(const std::vector<SessionKeyframe>& next);

    std::vector<SessionKeyframe> rows_;
    QList<QByteArray> keys_;               ///< keyOf(rows_[i])
    QHash<QByteArray, Thumbnail> thumbs_;  ///< by keyframe value
    quint64 revision_ = 0;                 ///< bumped by every change of rows_
};

}  // namespace streetgan::ui
