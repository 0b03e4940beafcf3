#include "table/RunScatterView.h"

#include <QAbstractItemModel>
#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <utility>

namespace streetgan::ui {
namespace {

constexpr double kInset = 10;  // points at the ends of a range stay clear of the frame
constexpr double kRadius = 4, kHighlightedRadius = 7, kHoverPx = 6;

QColor withAlpha(QColor c, int alpha) {
    c.setAlpha(alpha);
    return c;
}

}  // namespace

RunScatterView::RunScatterView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);  // the cached pixmap covers every pixel
}

void RunScatterView::setModel(QAbstractItemModel* model) {
    if (rows_.model() == model) return;
    rows_.setModel(model, this, [this] { invalidateData(); });
    hoverRow_ = pressRow_ = -1;
    invalidateData();
}

void RunScatterView::setColumns(int x, int y) {
    // A column that stays on its axis keeps its log scale.
    if (x != x_.column()) x_ = ColumnAxis(x);
    if (y != y_.column()) y_ = ColumnAxis(y);
    invalidateData();
}

void RunScatterView::setColourColumn(int column) {
    colourColumn_ = column;
    invalidateData();
}

void RunScatterView::setNameColumn(int column) {
    nameColumn_ = column;
    invalidateData();
}

bool RunScatterView::setLog(Qt::Orientation axis, bool on) {
    ensure();
    if (!(axis == Qt::Horizontal ? x_ : y_).setLog(on)) return false;
    invalidateGeometry();
    return true;
}

void RunScatterView::setHighlighted(const QSet<QString>& keys) {
    if (keys == highlighted_) return;
    highlighted_ = keys;
    pixmapDirty_ = true;
    update();
}

const ColumnAxis& RunScatterView::xAxis() const {
    ensure();
    return x_;
}

const ColumnAxis& RunScatterView::yAxis() const {
    ensure();
    return y_;
}

QRectF RunScatterView::plotRect() const {
    ensure();
    return plot_;
}

QPointF RunScatterView::pointOf(int row) const {
    ensure();
    return row >= 0 && row < points_.size() ? points_[row] : QPointF(ColumnAxis::kMissing, ColumnAxis::kMissing);
}

double RunScatterView::radiusOf(int row) const {
    ensure();
    return highlighted_.contains(rows_.key(row)) ? kHighlightedRadius : kRadius;
}

int RunScatterView::missingCount() const {
    ensure();
    return static_cast<int>(std::count_if(points_.begin(), points_.end(), [](const QPointF& p) { return std::isnan(p.x()); }));
}

int RunScatterView::rowAt(const QPoint& pos) const {
    ensure();
    int best = -1;
    double bestDist = 0;
    for (int r = 0; r < points_.size(); ++r) {
        if (std::isnan(points_[r].x())) continue;
        const double d = std::hypot(points_[r].x() - pos.x(), points_[r].y() - pos.y());
        // <=: of points equally near, the one drawn last (on top); highlighted ones are.
        if (d <= radiusOf(r) + kHoverPx && (best < 0 || d < bestDist || (d == bestDist && radiusOf(r) >= radiusOf(best)))) best = r, bestDist = d;
    }
    return best;
}

QString RunScatterView::rowToolTip(int row) const {
    ensure();
    if (row < 0 || row >= rows_.count()) return {};
    QStringList lines{rows_.name(row), QStringLiteral("%1: %2").arg(x_.title(), x_.text(row)), QStringLiteral("%1: %2").arg(y_.title(), y_.text(row))};
    if (colours_.active() && colourColumn_ != x_.column() && colourColumn_ != y_.column())
        lines << QStringLiteral("%1: %2").arg(colours_.axis().title(), colours_.axis().text(row));
    return lines.join('\n');
}

// ---- caches ----------------------------------------------------------------------------------

void RunScatterView::invalidateData() {
    dataDirty_ = true;
    invalidateGeometry();
}

void RunScatterView::invalidateGeometry() {
    geometryDirty_ = pixmapDirty_ = true;
    update();
}

void RunScatterView::ensure() const {
    if (dataDirty_ || geometryDirty_) const_cast<RunScatterView*>(this)->refresh();
}

void RunScatterView::refresh() {
    if (dataDirty_) readModel();
    if (geometryDirty_) layoutPoints();
    pixmapDirty_ = true;
}

void RunScatterView::readModel() {
    dataDirty_ = false;
    geometryDirty_ = true;
    QAbstractItemModel* model = rows_.model();
    rows_.read(nameColumn_);
    ColumnAxis colour(colourColumn_);
    for (ColumnAxis* a : {&x_, &y_, &colour}) {
        if (model)
            a->read(*model);
        else
            a->clear();
    }
    colours_.setAxis(colour);
    if (hoverRow_ >= rows_.count()) hoverRow_ = -1;
}

void RunScatterView::layoutPoints() {
    geometryDirty_ = false;
    const QFontMetricsF fm(font());
    double tickWidth = 20;
    for (const auto& t : y_.ticks(8)) tickWidth = std::max(tickWidth, std::min(120.0, fm.horizontalAdvance(t.label)));
    const double left = fm.height() + tickWidth + 16, top = fm.height() + 10, bottom = 2 * fm.height() + 14;
    const double legend = colours_.legendWidth(fontMetrics());
    plot_ = QRectF(left, top, std::max(20.0, width() - left - (legend > 0 ? legend + 28 : 16)), std::max(20.0, height() - top - bottom));
    // The colour goes log with the axis of the same column.
    ColumnAxis colour = colours_.axis();
    colour.setLog((colour.column() == x_.column() && x_.isLog()) || (colour.column() == y_.column() && y_.isLog()));
    colours_.setAxis(colour);
    const int n = rows_.count();
    points_.resize(n);
    pointColours_.resize(n);
    const QColor neutral = palette().color(QPalette::Highlight);
    for (int r = 0; r < n; ++r) {
        const double px = x_.rowPosition(r), py = y_.rowPosition(r);
        points_[r] = std::isnan(px) || std::isnan(py) ? QPointF(ColumnAxis::kMissing, ColumnAxis::kMissing) : map(px, py);
        pointColours_[r] = colours_.colour(r, neutral);
    }
}

QPointF RunScatterView::map(double px, double py) const {
    return {plot_.left() + kInset + px * (plot_.width() - 2 * kInset), plot_.bottom() - kInset - py * (plot_.height() - 2 * kInset)};
}

// ---- painting --------------------------------------------------------------------------------

void RunScatterView::paintEvent(QPaintEvent*) {
    ensure();
    if (pixmapDirty_ || pixmap_.size() != size() * devicePixelRatioF()) renderPixmap();
    QPainter p(this);
    p.drawPixmap(0, 0, pixmap_);
    if (hoverRow_ < 0 || hoverRow_ >= points_.size() || std::isnan(points_[hoverRow_].x())) return;
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(palette().color(QPalette::WindowText), 1.5));
    p.setBrush(Qt::NoBrush);
    const double r = radiusOf(hoverRow_) + 3;
    p.drawEllipse(points_[hoverRow_], r, r);
}

void RunScatterView::renderPixmap() {
    pixmapDirty_ = false;
    pixmap_ = QPixmap(size() * devicePixelRatioF());
    pixmap_.setDevicePixelRatio(devicePixelRatioF());
    pixmap_.fill(palette().color(QPalette::Base));
    QPainter p(&pixmap_);
    p.setRenderHint(QPainter::Antialiasing);
    if (rows_.count() == 0 || x_.column() < 0 || y_.column() < 0) {
        paintEmpty(p);
        return;
    }
    paintGrid(p);
    paintAxisTitles(p);
    paintPoints(p);
    if (colours_.active()) {
        const int w = colours_.legendWidth(fontMetrics());
        colours_.paintLegend(p, QRect(width() - w - 8, static_cast<int>(plot_.top()), w, static_cast<int>(plot_.height())), palette());
    }
}

void RunScatterView::paintEmpty(QPainter& p) const {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, rows_.count() == 0 ? tr("No runs to compare") : tr("Choose a setting and an outcome to plot"));
}

void RunScatterView::paintGrid(QPainter& p) const {
    const QFontMetricsF fm(font());
    const QColor grid = withAlpha(palette().color(QPalette::Text), 35), text = palette().color(QPalette::Text);
    p.setPen(withAlpha(palette().color(QPalette::WindowText), 140));
    p.drawRect(plot_);
    const auto xt = x_.ticks(std::clamp(static_cast<int>(plot_.width() / 90), 2, 10));
    // Category labels that would run together: every k-th one.
    const int every = std::max(1, static_cast<int>(std::ceil(xt.size() * 90.0 / std::max(1.0, plot_.width()))));
    for (int k = 0; k < xt.size(); ++k) {
        const double x = map(xt[k].position, 0).x();
        p.setPen(grid);
        p.drawLine(QPointF(x, plot_.top()), QPointF(x, plot_.bottom()));
        if (k % every != 0 && x_.kind() == ColumnAxis::Kind::Categorical) continue;
        p.setPen(text);
        const double w = 86.0 * every;
        p.drawText(QRectF(x - w / 2, plot_.bottom() + 3, w, fm.height()), Qt::AlignCenter, fm.elidedText(xt[k].label, Qt::ElideRight, w));
    }
    for (const auto& t : y_.ticks(std::clamp(static_cast<int>(plot_.height() / (2.5 * fm.height())), 2, 8))) {
        const double y = map(0, t.position).y();
        p.setPen(grid);
        p.drawLine(QPointF(plot_.left(), y), QPointF(plot_.right(), y));
        p.setPen(text);
        const double w = plot_.left() - fm.height() - 10;
        p.drawText(QRectF(plot_.left() - 4 - w, y - fm.height() / 2, w, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   fm.elidedText(t.label, Qt::ElideRight, w));
    }
}

void RunScatterView::paintAxisTitles(QPainter& p) const {
    const QFontMetricsF fm(font());
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(palette().color(QPalette::WindowText));
    auto title = [](const ColumnAxis& a) { return a.title() + (a.isLog() ? QStringLiteral(" (log)") : QString()); };
    p.drawText(QRectF(plot_.left(), height() - fm.height() - 4, plot_.width(), fm.height()), Qt::AlignCenter,
               QFontMetricsF(bold).elidedText(title(x_), Qt::ElideMiddle, plot_.width()));
    p.save();
    p.translate(4, plot_.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-plot_.height() / 2, 0, plot_.height(), fm.height()), Qt::AlignCenter,
               QFontMetricsF(bold).elidedText(title(y_), Qt::ElideMiddle, plot_.height()));
    p.restore();
    p.setFont(font());
    if (const int missing = missingCount(); missing > 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRectF(plot_.left(), 2, plot_.width(), fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   tr("%n run(s) without both values not shown", "", missing));
    }
}

// The other runs first, then the highlighted ones, larger and outlined, on top.
void RunScatterView::paintPoints(QPainter& p) const {
    QVector<int> top;
    for (int r = 0; r < points_.size(); ++r) {
        if (std::isnan(points_[r].x())) continue;
        if (highlighted_.contains(rows_.key(r))) {
            top << r;
            continue;
        }
        p.setPen(QPen(pointColours_[r].darker(140), 1));
        p.setBrush(withAlpha(pointColours_[r], 210));
        p.drawEllipse(points_[r], kRadius, kRadius);
    }
    for (int r : top) {
        p.setPen(QPen(palette().color(QPalette::WindowText), 2));
        p.setBrush(pointColours_[r]);
        p.drawEllipse(points_[r], kHighlightedRadius, kHighlightedRadius);
    }
    p.setBrush(Qt::NoBrush);
}

// ---- interaction -----------------------------------------------------------------------------

bool RunScatterView::event(QEvent* e) {
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    auto* help = static_cast<QHelpEvent*>(e);
    const QString text = rowToolTip(rowAt(help->pos()));
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(help->globalPos(), text, this);
    return true;
}

void RunScatterView::mousePressEvent(QMouseEvent* e) {
    pressRow_ = e->button() == Qt::LeftButton ? rowAt(e->position().toPoint()) : -1;
    QWidget::mousePressEvent(e);
}

void RunScatterView::mouseReleaseEvent(QMouseEvent* e) {
    const int row = std::exchange(pressRow_, -1);
    // A click: pressed and released on the same point.
    if (e->button() == Qt::LeftButton && row >= 0 && rowAt(e->position().toPoint()) == row) emit rowClicked(rows_.key(row));
    QWidget::mouseReleaseEvent(e);
}

void RunScatterView::mouseMoveEvent(QMouseEvent* e) {
    const int row = rowAt(e->position().toPoint());
    if (row == hoverRow_) return;
    hoverRow_ = row;
    update();
}

void RunScatterView::leaveEvent(QEvent*) {
    if (hoverRow_ < 0) return;
    hoverRow_ = -1;
    update();
}

QMenu* RunScatterView::createMenu(QWidget* parent) {
    auto* menu = new QMenu(parent);
    menu->setToolTipsVisible(true);
    for (Qt::Orientation o : {Qt::Horizontal, Qt::Vertical}) {
        const ColumnAxis& a = o == Qt::Horizontal ? xAxis() : yAxis();
        const QString name = o == Qt::Horizontal ? tr("Log scale on x ('%1')").arg(a.title()) : tr("Log scale on y ('%1')").arg(a.title());
        QAction* log = menu->addAction(name, this, [this, o](bool on) { setLog(o, on); });
        log->setCheckable(true);
        log->setChecked(a.isLog());
        const QString refusal = a.logRefusal();
        if (a.isLog() || refusal.isEmpty()) continue;
        // Refused: the reason in the menu itself, where the user looks (a tooltip too, for a long one).
        log->setEnabled(false);
        log->setToolTip(refusal);
        menu->addAction(QStringLiteral("    ") + QFontMetrics(menu->font()).elidedText(refusal, Qt::ElideRight, 380))->setEnabled(false);
    }
    return menu;
}

void RunScatterView::contextMenuEvent(QContextMenuEvent* e) {
    QMenu* menu = createMenu(this);
    menu->exec(e->globalPos());
    delete menu;
}

void RunScatterView::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    invalidateGeometry();
}

void RunScatterView::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange) invalidateGeometry();
}

}  // namespace streetgan::ui
