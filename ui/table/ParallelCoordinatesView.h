// The Runs table's parallel-coordinates view: one vertical axis per chosen column of any
// QAbstractItemModel (the table's proxy; values through RunsTableRoles), typically the settings
// that vary and, last, the outcome; one polyline per run across them, coloured by a chosen column
// (a colour bar legend at the right). Per axis, from its context menu or the API: a log scale
// (refused, with the reason, unless every value > 0) and flip. Brushing: a drag along an axis
// selects an interval of it (several axes: a run must be inside all of them); a click or a
// double-click on a brushed axis clears it; brushChanged / brushCleared tell the page, which
// filters the table (give this view the model upstream of that filter: it draws the runs outside
// the brush faint, so it must still see them). Highlighted runs (the table's selection, by
// KeyRole) are drawn bold on top; a run without a value on an axis goes to an "n/a" tick below
// that axis; a tooltip names the run nearest the cursor. Follows the model's changes and the
// palette (light/dark). Cost: the model is read and the polylines laid out only after a change
// (lazily, coalesced until the next paint or query); the drawn lines are cached in a pixmap, so a
// hover repaints only its overlay. GUI thread only.
#pragma once

#include <QMap>
#include <QPixmap>
#include <QPolygonF>
#include <QSet>
#include <QVector>
#include <QWidget>

#include <utility>

#include "table/ColourScale.h"
#include "table/ColumnAxis.h"
#include "table/RunRows.h"

class QAbstractItemModel;
class QMenu;

namespace streetgan::ui {

class ParallelCoordinatesView : public QWidget {
    Q_OBJECT
public:
    /// How a run's line is drawn: faint outside the brush, bold when highlighted (on top of all).
    enum class RowStyle { Faint, Normal, Highlighted };

    explicit ParallelCoordinatesView(QWidget* parent = nullptr);

    void setModel(QAbstractItemModel* model);
    QAbstractItemModel* model() const { return rows_.model(); }
    /// The model's columns shown as axes, left to right. An axis that stays keeps its log scale,
    /// flip and brush; a brush on an axis that goes is cleared (brushCleared).
    void setAxes(const QVector<int>& columns);
    QVector<int> axes() const;
    /// Lines coloured by this column's value (-1: one colour, no legend).
    void setColourColumn(int column);
    int colourColumn() const { return colourColumn_; }
    /// The column whose text names a run in the tooltip (0 by default).
    void setNameColumn(int column);

    /// Log scale on axis `column`; false (nothing changes) when refused: axisLogRefusal() says why.
    bool setAxisLog(int column, bool on);
    bool axisLog(int column) const;
    /// Why axis `column` cannot take a log scale now ("" when it can).
    QString axisLogRefusal(int column) const;
    void setAxisFlipped(int column, bool on);
    bool axisFlipped(int column) const;

    /// Brushes axis `column` to the values [lo, hi] (emits brushChanged).
    void setBrush(int column, double lo, double hi);
    /// Clears axis `column`'s brush, if it has one (emits brushCleared).
    void clearBrush(int column);
    bool hasBrush(int column) const { return brushes_.contains(column); }
    /// The brushed interval of axis `column` (values; empty pair when not brushed).
    std::pair<double, double> brush(int column) const { return brushes_.value(column); }
    /// The categories inside axis `column`'s brush when it is categorical (brushChanged's lo and hi
    /// are then category indices: a filter of the table wants these names); empty otherwise.
    QStringList brushedCategories(int column) const;
    /// Whether the model's row is inside every brush (true when there is none).
    bool rowInBrush(int row) const;
    /// The runs drawn bold on top, by their KeyRole.
    void setHighlighted(const QSet<QString>& keys);
    QSet<QString> highlighted() const { return highlighted_; }

    // Inspection (tests, the page): all in this widget's coordinates, after any pending change.
    /// Axis `column` as drawn (null when it is not an axis).
    const ColumnAxis* axis(int column) const;
    /// The x of axis `column`'s line; the y range the axes span (top = position 1).
    double axisX(int column) const;
    QRectF plotRect() const;
    /// The y where "n/a" sits below the axes.
    double missingY() const;
    /// The model's row's polyline, a point per axis; its style now.
    QPolygonF polyline(int row) const;
    RowStyle rowStyle(int row) const;
    /// The row whose line passes nearest `pos` (within a few pixels), or -1.
    int rowAt(const QPoint& pos) const;
    /// The axis whose line or label is at `pos` (its column), or -1.
    int axisAt(const QPoint& pos) const;
    /// The tooltip of a row: its name and its value on each axis.
    QString rowToolTip(int row) const;
    /// The context menu of axis `column` (log scale, flip, colour by, clear brush), owned by `parent`.
    QMenu* createAxisMenu(int column, QWidget* parent);

    QSize sizeHint() const override { return {720, 360}; }
    QSize minimumSizeHint() const override { return {240, 160}; }

signals:
    /// The user (or setBrush) brushed axis `column` to the values [lo, hi].
    void brushChanged(int column, double lo, double hi);
    void brushCleared(int column);

protected:
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void changeEvent(QEvent* e) override;
    bool event(QEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;

private:
    /// Marks the model's values (or only the layout) stale; the next paint or query redoes them.
    void invalidateData();
    void invalidateGeometry();
    void invalidatePixmap();
    /// Brings the cached values and layout up to date. Const, called by the const queries: it
    /// changes only caches of what the model and the widget's size already say.
    void ensure() const;
    void refresh();
    void readModel();
    void layoutLines();
    int indexOf(int column) const;
    double yOf(double position) const;
    double positionOfY(double y) const;
    void renderPixmap();
    void paintLines(QPainter& p) const;
    void paintAxes(QPainter& p) const;
    void paintAxisLabels(QPainter& p, int i, double spacing) const;
    void paintTicks(QPainter& p, int i, double spacing) const;
    void paintBrush(QPainter& p, int i) const;
    void paintEmpty(QPainter& p) const;
    void paintHover(QPainter& p) const;
    QString axisToolTip(int column) const;
    /// Sets the brush of the axis being dragged from the press to `y`, without telling anyone yet.
    void dragTo(double y);

    RunRows rows_;
    QVector<ColumnAxis> axes_;
    int colourColumn_ = -1, nameColumn_ = 0;
    QMap<int, std::pair<double, double>> brushes_;  // column -> [lo, hi] in values
    QSet<QString> highlighted_;

    // The caches refresh() keeps.
    bool dataDirty_ = true, geometryDirty_ = true;
    ColourScale colours_;
    QVector<QPolygonF> lines_;
    QVector<QColor> lineColours_;
    QRectF plot_;
    double naY_ = 0;
    QPixmap pixmap_;
    bool pixmapDirty_ = true;

    int hoverRow_ = -1;
    int dragColumn_ = -1;
    double dragStartY_ = 0;
    bool dragMoved_ = false;
};

}  // namespace streetgan::ui
