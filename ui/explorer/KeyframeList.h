// The explorer's keyframe panel: a list view on the session's KeyframeModel ("1. seed 2",
// "2. z (64 values)", thumbnails) with buttons to add one from a seed, at random or from a seed
// grid, and to move up/down, duplicate and delete the selected one, and the selected segment's
// easing and t range (its own [start, end], or the path's: WalkRule.h). It edits nothing itself: every button emits a request that ExplorerPage turns into one
// undoable session edit; drag and drop reorders through the model (KeyframeModel::moveRequested).
//
// Selection: a row number. When the model changes (an edit, undo or redo), the same row number
// stays selected (clamped; the first row when none was), without selectionChanged(): that signal
// means the user (or select()) picked a keyframe.
//
// Thread contract: GUI thread.
#pragma once

#include <QPointF>
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QListView;
class QPushButton;
class QSpinBox;
class QVBoxLayout;

namespace streetgan::ui {

class KeyframeModel;

class KeyframeList : public QWidget {
    Q_OBJECT
public:
    explicit KeyframeList(QWidget* parent = nullptr);

    /// The model shown (SessionModel's; it must outlive this view).
    void setModel(KeyframeModel* model);
    KeyframeModel* model() const { return model_; }
    static constexpr int kThumbPx = 40;
    int selected() const;
    int count() const;
    /// Selects `row` (-1: none); emits selectionChanged() when that changes the selection.
    void select(int row);
    /// Seed of the "Add seed" box.
    qint64 seedToAdd() const;
    void setSeedToAdd(qint64 seed);
    QListView* list() const { return list_; }
    /// The text row `row` shows ("1. seed 2").
    QString rowText(int row) const;
    QComboBox* segmentEasingBox() const { return segmentEasing_; }
    QDoubleSpinBox* segmentTStartBox() const { return tStart_; }
    QDoubleSpinBox* segmentTEndBox() const { return tEnd_; }
    QPushButton* segmentTResetButton() const { return tReset_; }
    /// The path's t range: what the segment boxes show for a segment without its own.
    void setPathTRange(double start, double end);

signals:
    void addSeedRequested(qint64 seed);
    void addRandomRequested();
    void addFromGridRequested();
    void moveRequested(int row, int delta);
    void duplicateRequested(int row);
    void removeRequested(int row);
    void selectionChanged(int row);
    /// Easing of the segment that starts at `row`: an Easing name, or "" for the path's easing.
    void segmentEasingRequested(int row, const QString& easing);
    /// The segment that starts at `row` gets its own t range / goes back to the path's.
    void segmentTRangeRequested(int row, double start, double end);
    void segmentTRangeCleared(int row);

private:
    QVBoxLayout* buildSegmentRows();
    void updateButtons();
    /// The selected segment's t range, own or the path's; `own` tells which.
    QPointF segmentRange(bool* own = nullptr) const;
    void editSegmentRange(bool startEdited, double value);
    void beginSync();
    void endSync();

    KeyframeModel* model_ = nullptr;
    QListView* list_;
    QSpinBox* seed_;
    QPushButton *up_, *down_, *duplicate_, *remove_;
    QComboBox* segmentEasing_;
    QDoubleSpinBox *tStart_, *tEnd_;
    QPushButton* tReset_;
    QPointF pathRange_{0.0, 1.0};
    int syncing_ = 0;   ///< > 0 while the model changes: selection changes are not the user's
    int keepRow_ = -1;  ///< the row selected when the model started changing
};

}  // namespace streetgan::ui
