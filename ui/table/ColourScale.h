// The colours of the Runs table's views by one column (ParallelCoordinatesView's lines,
// RunScatterView's points), and the legend that explains them: a numeric column through a
// sequential colour map (viridis: ordered, readable on light and dark backgrounds, and by the
// colour-blind), a categorical one through the runs' palette (RunPalette), a missing value or no
// colour column in a neutral colour from the widget's palette. Paints its legend (a colour bar
// with the axis's ticks, or a swatch per category) into a rectangle the view gives it.
// A value object over a ColumnAxis copy; GUI thread (painting).
#pragma once

#include <QColor>
#include <QPalette>
#include <QRect>

#include "table/ColumnAxis.h"

class QPainter;

namespace streetgan::ui {

class ColourScale {
public:
    /// `axis`: the colour column read; an axis of column -1 (the default) colours nothing.
    void setAxis(const ColumnAxis& axis) { axis_ = axis; }
    const ColumnAxis& axis() const { return axis_; }
    bool active() const { return axis_.kind() != ColumnAxis::Kind::Empty; }

    /// The row's colour; `neutral` when no column colours it or its value is missing.
    QColor colour(int row, const QColor& neutral) const;
    /// The sequential map at `t` in [0, 1].
    static QColor sequential(double t);
    /// The width the legend needs beside a view (0 when inactive).
    int legendWidth(const QFontMetrics& fm) const;
    /// The legend in `rect`: the column's title, then the colour bar (or swatches) with labels.
    void paintLegend(QPainter& p, const QRect& rect, const QPalette& palette) const;

private:
    void paintBar(QPainter& p, const QRect& bar, const QPalette& palette) const;
    void paintSwatches(QPainter& p, const QRect& rect, const QPalette& palette) const;

    ColumnAxis axis_;
};

}  // namespace streetgan::ui
