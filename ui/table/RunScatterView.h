// The Runs table's scatter: one column (a setting, x) against another (an outcome, y) of any
// QAbstractItemModel (the table's proxy; values through RunsTableRoles), a point per run that has
// both values (how many have not is said in a corner), each axis linear or log (refused, with the
// reason, unless every value > 0; from the context menu or the API), points coloured by an
// optional column (legend at the right), highlighted runs (the table's selection, by KeyRole)
// drawn larger on top, a hover tooltip naming the run, and a click on a point emitting its key.
// Painted by hand over ColumnAxis, like ParallelCoordinatesView, so both views scale, tick and
// refuse a log scale by the same rule. Follows the model's changes (re-read lazily, coalesced
// until the next paint or query) and the palette; the points are drawn into a cached pixmap, so
// a hover repaints only its ring. GUI thread only.
#pragma once

#include <QPixmap>
#include <QPointF>
#include <QRectF>
#include <QSet>
#include <QVector>
#include <QWidget>

#include "table/ColourScale.h"
#include "table/ColumnAxis.h"
#include "table/RunRows.h"

class QAbstractItemModel;
class QMenu;

namespace streetgan::ui {

class RunScatterView : public QWidget {
    Q_OBJECT
public:
    explicit RunScatterView(QWidget* parent = nullptr);

    void setModel(QAbstractItemModel* model);
    QAbstractItemModel* model() const { return rows_.model(); }
    /// The model's column along x (a setting) and along y (an outcome); -1: none.
    void setColumns(int x, int y);
    int xColumn() const { return x_.column(); }
    int yColumn() const { return y_.column(); }
    /// Points coloured by this column's value (-1: one colour, no legend).
    void setColourColumn(int column);
    /// The column whose text names a run in the tooltip (0 by default).
    void setNameColumn(int column);
    /// Log scale on the x (Qt::Horizontal) or y axis; false (nothing changes) when refused:
    /// logRefusal() says why.
    bool setLog(Qt::Orientation axis, bool on);
    bool isLog(Qt::Orientation axis) const { return axis == Qt::Horizontal ? xAxis().isLog() : yAxis().isLog(); }
    QString logRefusal(Qt::Orientation axis) const { return axis == Qt::Horizontal ? xAxis().logRefusal() : yAxis().logRefusal(); }
    /// The runs drawn larger on top, by their KeyRole.
    void setHighlighted(const QSet<QString>& keys);

    // Inspection (tests, the page): in this widget's coordinates, after any pending change.
    const ColumnAxis& xAxis() const;
    const ColumnAxis& yAxis() const;
    /// The area the points are drawn in.
    QRectF plotRect() const;
    /// Where the model's row is drawn (NaN coordinates when it lacks x or y).
    QPointF pointOf(int row) const;
    /// The radius the row's point is drawn with (larger when highlighted).
    double radiusOf(int row) const;
    /// The row whose point is under `pos` (the nearest within a few pixels), or -1.
    int rowAt(const QPoint& pos) const;
    /// Runs without a point (a missing x or y).
    int missingCount() const;
    QString rowToolTip(int row) const;
    /// The context menu (log x, log y), owned by `parent`.
    QMenu* createMenu(QWidget* parent);

    QSize sizeHint() const override { return {480, 360}; }
    QSize minimumSizeHint() const override { return {200, 160}; }

signals:
    /// The user clicked the point of the run with this key.
    void rowClicked(const QString& key);

protected:
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void changeEvent(QEvent* e) override;
    bool event(QEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;

private:
    void invalidateData();
    void invalidateGeometry();
    /// Brings the values and the points' layout up to date. Const, called by the const queries:
    /// it changes only caches of what the model and the widget's size already say.
    void ensure() const;
    void refresh();
    void readModel();
    void layoutPoints();
    QPointF map(double px, double py) const;
    void renderPixmap();
    void paintGrid(QPainter& p) const;
    void paintAxisTitles(QPainter& p) const;
    void paintPoints(QPainter& p) const;
    void paintEmpty(QPainter& p) const;

    RunRows rows_;
    ColumnAxis x_, y_;
    int colourColumn_ = -1, nameColumn_ = 0;
    QSet<QString> highlighted_;

    // The caches refresh() keeps.
    bool dataDirty_ = true, geometryDirty_ = true, pixmapDirty_ = true;
    ColourScale colours_;
    QVector<QPointF> points_;
    QVector<QColor> pointColours_;
    QRectF plot_;
    QPixmap pixmap_;

    int hoverRow_ = -1;
    int pressRow_ = -1;
};

}  // namespace streetgan::ui
