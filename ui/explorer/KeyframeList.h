// The explorer's keyframe panel: the session's keyframes ("seed 2", "z: 64 values") with buttons
// to add one from a seed, at random or from a seed grid, and to move up/down (or drag and drop),
// duplicate and delete the selected one. It edits nothing itself: every button emits a request that ExplorerPage turns
// into one undoable session edit, and the page calls setKeyframes() with the result.
//
// Thread contract: GUI thread.
#pragma once

#include <QHash>
#include <QIcon>
#include <QImage>
#include <QJsonArray>
#include <QList>
#include <QWidget>

class QComboBox;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace streetgan::ui {

class KeyframeList : public QWidget {
    Q_OBJECT
public:
    explicit KeyframeList(QWidget* parent = nullptr);

    /// Shows `keyframes` (CLI.md's list) and selects `selected` (clamped). Emits no signal.
    void setKeyframes(const QJsonArray& keyframes, int selected);
    /// Icons of the rows, in order (fewer images leave the remaining rows without one). A row
    /// keeps its icon while its keyframe stays the same, also when it moves.
    void setThumbnails(const QList<QImage>& images);
    static constexpr int kThumbPx = 40;
    int selected() const;
    int count() const;
    void select(int row);
    /// Seed of the "Add seed" box.
    qint64 seedToAdd() const;
    void setSeedToAdd(qint64 seed);
    QListWidget* list() const { return list_; }
    QComboBox* segmentEasingBox() const { return segmentEasing_; }

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

private:
    void updateButtons();

    QListWidget* list_;
    QJsonArray keyframes_;
    QHash<QByteArray, QIcon> icons_;  ///< by keyframe (compact JSON): rows keep their image across edits
    QSpinBox* seed_;
    QPushButton *up_, *down_, *duplicate_, *remove_;
    QComboBox* segmentEasing_;
};

}  // namespace streetgan::ui
