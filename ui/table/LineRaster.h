// Many thin translucent polylines (ParallelCoordinatesView's runs) rasterized by hand into one
// transparent image, which the view then draws with a single call. Qt's raster engine hands each
// batch of a line's spans to a thread pool: drawn with QPainter, 1,000 runs over 12 axes took
// ~0.4 s (on every step of a brush drag); this way, a few milliseconds. Each segment is a
// pixel-wide antialiased line stepped along its major axis, its coverage split between the two
// pixels across it (Xiaolin Wu's lines); colours blend source-over, premultiplied, in drawing order.
// A value object; any thread (it touches only its own QImage).
#pragma once

#include <QImage>
#include <QPolygonF>
#include <QSize>

namespace streetgan::ui {

class LineRaster {
public:
    /// An image of `size` device pixels, transparent; polylines come in logical pixels (x `dpr`).
    LineRaster(const QSize& size, qreal dpr);
    /// Blends `line` in `colour` at opacity `alpha` (0...255).
    void draw(const QPolygonF& line, QRgb colour, int alpha);
    const QImage& image() const { return image_; }

private:
    void segment(QPointF a, QPointF b, QRgb colour, int alpha);
    /// Blends one pixel: (m, n) along and across the segment's major axis (x, y unless `steep`).
    void plot(bool steep, int m, int n, QRgb colour, int alpha);

    QImage image_;
    uchar* bits_;
    qsizetype stride_;
    qreal dpr_;
};

}  // namespace streetgan::ui
