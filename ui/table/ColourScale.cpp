#include "table/ColourScale.h"

#include <QFontMetrics>
#include <QLinearGradient>
#include <QPainter>

#include <algorithm>
#include <array>

#include "runs/RunPalette.h"

namespace streetgan::ui {
namespace {

// viridis at 9 evenly spaced stops (matplotlib's table), interpolated linearly between them.
constexpr std::array<std::array<int, 3>, 9> kViridis = {
    {{68, 1, 84}, {71, 44, 122}, {59, 81, 139}, {44, 113, 142}, {33, 144, 141}, {39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37}}};
constexpr int kBarWidth = 12;
constexpr double kLevels = 48;    // shades of the sequential map that rows get
constexpr int kMaxSwatches = 12;  // more categories than that: the rest summed up in one line

}  // namespace

QColor ColourScale::sequential(double t) {
    t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0) * (kViridis.size() - 1);
    const auto i = std::min(static_cast<size_t>(t), kViridis.size() - 2);
    const double f = t - static_cast<double>(i);
    const auto& a = kViridis[i];
    const auto& b = kViridis[i + 1];
    auto mix = [f](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * f)); };
    return QColor(mix(a[0], b[0]), mix(a[1], b[1]), mix(a[2], b[2]));
}

QColor ColourScale::colour(int row, const QColor& neutral) const {
    if (!active() || !axis_.hasValue(row)) return neutral;
    if (axis_.kind() == ColumnAxis::Kind::Categorical) {
        const auto& p = RunPalette::palette();
        return p[static_cast<int>(axis_.value(row)) % p.size()];
    }
    // The colour goes by the value's place on the axis (log if the axis is), never flipped: the
    // bar's bottom is always the low end.
    ColumnAxis unflipped = axis_;
    unflipped.setFlipped(false);
    return sequential(unflipped.rowPosition(row));
}

int ColourScale::legendWidth(const QFontMetrics& fm) const {
    if (!active()) return 0;
    int w = fm.horizontalAdvance(axis_.title().left(14));
    const auto ticks = axis_.ticks(5);
    for (const auto& t : ticks) w = std::max(w, kBarWidth + 6 + fm.horizontalAdvance(t.label.left(14)));
    return std::min(w, 140) + 12;
}

void ColourScale::paintLegend(QPainter& p, const QRect& rect, const QPalette& palette) const {
    if (!active()) return;
    const QFontMetrics fm = p.fontMetrics();
    p.setPen(palette.color(QPalette::WindowText));
    const QRect titleRect(rect.left(), rect.top(), rect.width(), fm.height());
    p.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(axis_.title(), Qt::ElideRight, rect.width()));
    const QRect body = rect.adjusted(0, fm.height() + 6, 0, 0);
    if (axis_.kind() == ColumnAxis::Kind::Categorical)
        paintSwatches(p, body, palette);
    else
        paintBar(p, QRect(body.left(), body.top() + fm.height() / 2, kBarWidth, std::max(20, body.height() - fm.height())), palette);
}

void ColourScale::paintBar(QPainter& p, const QRect& bar, const QPalette& palette) const {
    QLinearGradient g(bar.bottomLeft(), bar.topLeft());
    for (size_t i = 0; i < kViridis.size(); ++i)
        g.setColorAt(static_cast<double>(i) / (kViridis.size() - 1), sequential(static_cast<double>(i) / (kViridis.size() - 1)));
    p.fillRect(bar, g);
    p.setPen(palette.color(QPalette::Mid));
    p.drawRect(bar.adjusted(0, 0, -1, -1));
    ColumnAxis unflipped = axis_;
    unflipped.setFlipped(false);
    const QFontMetrics fm = p.fontMetrics();
    const int labelWidth = 140;  // legendWidth() made room for the widest label
    for (const auto& t : unflipped.ticks(std::max(2, bar.height() / (2 * fm.height())))) {
        const int y = bar.bottom() - static_cast<int>(std::lround(t.position * bar.height()));
        p.setPen(palette.color(QPalette::WindowText));
        p.drawLine(bar.right(), y, bar.right() + 3, y);
        p.drawText(QRect(bar.right() + 6, y - fm.height() / 2, labelWidth, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, t.label);
    }
}

void ColourScale::paintSwatches(QPainter& p, const QRect& rect, const QPalette& palette) const {
    const QFontMetrics fm = p.fontMetrics();
    const auto& colours = RunPalette::palette();
    const QStringList& cats = axis_.categories();
    const int lineHeight = fm.height() + 2;
    const int shown = std::min<int>({static_cast<int>(cats.size()), kMaxSwatches, std::max(1, rect.height() / lineHeight)});
    for (int i = 0; i < shown; ++i) {
        const int y = rect.top() + i * lineHeight;
        p.fillRect(QRect(rect.left(), y + 2, kBarWidth, fm.height() - 4), colours[i % colours.size()]);
        p.setPen(palette.color(QPalette::WindowText));
        const QString label = i == shown - 1 && shown < cats.size() ? QStringLiteral("+%1 more").arg(cats.size() - i) : cats[i];
        p.drawText(QRect(rect.left() + kBarWidth + 6, y, rect.width() - kBarWidth - 6, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(label, Qt::ElideRight, rect.width() - kBarWidth - 6));
    }
}

}  // namespace streetgan::ui
