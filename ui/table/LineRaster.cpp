#include "table/LineRaster.h"

#include <cmath>
#include <utility>

namespace streetgan::ui {

LineRaster::LineRaster(const QSize& size, qreal dpr) : image_(size, QImage::Format_ARGB32_Premultiplied), dpr_(dpr) {
    image_.setDevicePixelRatio(dpr);
    image_.fill(Qt::transparent);
    bits_ = image_.bits();
    stride_ = image_.bytesPerLine();
}

void LineRaster::draw(const QPolygonF& line, QRgb colour, int alpha) {
    for (int i = 0; i + 1 < line.size(); ++i) segment(line[i] * dpr_, line[i + 1] * dpr_, colour, alpha);
}

void LineRaster::segment(QPointF a, QPointF b, QRgb colour, int alpha) {
    const bool steep = std::abs(b.y() - a.y()) > std::abs(b.x() - a.x());
    if (steep) a = a.transposed(), b = b.transposed();
    if (a.x() > b.x()) std::swap(a, b);
    const double slope = b.x() > a.x() ? (b.y() - a.y()) / (b.x() - a.x()) : 0;
    const int last = static_cast<int>(std::floor(b.x() - 0.5));
    // Each pixel centre (m + 0.5) along the major axis from a to b; its coverage across.
    for (int m = static_cast<int>(std::ceil(a.x() - 0.5)); m <= last; ++m) {
        const double across = a.y() + (m + 0.5 - a.x()) * slope - 0.5;
        const int n = static_cast<int>(std::floor(across));
        const double f = across - n;
        plot(steep, m, n, colour, static_cast<int>(std::lround(alpha * (1 - f))));
        plot(steep, m, n + 1, colour, static_cast<int>(std::lround(alpha * f)));
    }
}

void LineRaster::plot(bool steep, int m, int n, QRgb c, int a) {
    const int x = steep ? n : m, y = steep ? m : n;
    if (a <= 0 || x < 0 || y < 0 || x >= image_.width() || y >= image_.height()) return;
    auto* px = reinterpret_cast<QRgb*>(bits_ + y * stride_) + x;
    const int keep = 255 - a;
    *px = qRgba((qRed(c) * a + qRed(*px) * keep) / 255, (qGreen(c) * a + qGreen(*px) * keep) / 255, (qBlue(c) * a + qBlue(*px) * keep) / 255,
                a + qAlpha(*px) * keep / 255);
}

}  // namespace streetgan::ui
