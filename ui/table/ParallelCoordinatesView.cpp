#include "table/ParallelCoordinatesView.h"

#include <QAbstractItemModel>
#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

#include "table/LineRaster.h"

namespace streetgan::ui {
namespace {

constexpr double kHoverPx = 6;      // a line this near the cursor is the hovered run
constexpr double kAxisGrabPx = 10;  // a press this near an axis' line starts a brush
constexpr double kDragPx = 3;       // a press that moves less is a click (it clears the brush)
constexpr int kFaintAlpha = 38, kNormalAlpha = 200;

QColor withAlpha(QColor c, int alpha) {
    c.setAlpha(alpha);
    return c;
}

QFont smaller(QFont f) {
    if (f.pointSizeF() > 0) f.setPointSizeF(std::max(6.0, f.pointSizeF() - 1));
    return f;
}

}  // namespace

ParallelCoordinatesView::ParallelCoordinatesView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);  // the cached pixmap covers every pixel
    setFocusPolicy(Qt::ClickFocus);
}

void ParallelCoordinatesView::setModel(QAbstractItemModel* model) {
    if (rows_.model() == model) return;
    rows_.setModel(model, this, [this] { invalidateData(); });
    hoverRow_ = -1;
    invalidateData();
}

void ParallelCoordinatesView::setAxes(const QVector<int>& columns) {
    QVector<ColumnAxis> next;
    for (int c : columns) {
        const int i = indexOf(c);
        next.push_back(i >= 0 ? axes_[i] : ColumnAxis(c));
    }
    axes_ = next;
    for (int c : brushes_.keys())
        if (indexOf(c) < 0) {
            brushes_.remove(c);
            emit brushCleared(c);
        }
    invalidateData();
}

QVector<int> ParallelCoordinatesView::axes() const {
    QVector<int> out;
    for (const auto& a : axes_) out << a.column();
    return out;
}

void ParallelCoordinatesView::setColourColumn(int column) {
    colourColumn_ = column;
    invalidateData();
}

void ParallelCoordinatesView::setNameColumn(int column) {
    nameColumn_ = column;
    invalidateData();
}

int ParallelCoordinatesView::indexOf(int column) const {
    for (int i = 0; i < axes_.size(); ++i)
        if (axes_[i].column() == column) return i;
    return -1;
}

bool ParallelCoordinatesView::setAxisLog(int column, bool on) {
    ensure();
    const int i = indexOf(column);
    if (i < 0 || !axes_[i].setLog(on)) return false;
    invalidateGeometry();
    return true;
}

bool ParallelCoordinatesView::axisLog(int column) const {
    const ColumnAxis* a = axis(column);
    return a && a->isLog();
}

QString ParallelCoordinatesView::axisLogRefusal(int column) const {
    const ColumnAxis* a = axis(column);
    return a ? a->logRefusal() : QStringLiteral("column %1 is not an axis of the view").arg(column);
}

void ParallelCoordinatesView::setAxisFlipped(int column, bool on) {
    const int i = indexOf(column);
    if (i < 0) return;
    axes_[i].setFlipped(on);
    invalidateGeometry();
}

bool ParallelCoordinatesView::axisFlipped(int column) const {
    const ColumnAxis* a = axis(column);
    return a && a->isFlipped();
}

void ParallelCoordinatesView::setBrush(int column, double lo, double hi) {
    if (indexOf(column) < 0 || std::isnan(lo) || std::isnan(hi)) return;
    brushes_[column] = {std::min(lo, hi), std::max(lo, hi)};
    invalidatePixmap();
    emit brushChanged(column, std::min(lo, hi), std::max(lo, hi));
}

void ParallelCoordinatesView::clearBrush(int column) {
    if (!brushes_.remove(column)) return;
    invalidatePixmap();
    emit brushCleared(column);
}

QStringList ParallelCoordinatesView::brushedCategories(int column) const {
    const ColumnAxis* a = axis(column);
    if (!a || a->kind() != ColumnAxis::Kind::Categorical || !hasBrush(column)) return {};
    const auto [lo, hi] = brush(column);
    QStringList out;
    for (int i = 0; i < a->categories().size(); ++i)
        if (i >= lo && i <= hi) out << a->categories()[i];
    return out;
}

bool ParallelCoordinatesView::rowInBrush(int row) const {
    ensure();
    for (auto it = brushes_.constBegin(); it != brushes_.constEnd(); ++it) {
        const int i = indexOf(it.key());
        if (i < 0) continue;
        const double v = axes_[i].value(row);
        if (std::isnan(v) || v < it.value().first || v > it.value().second) return false;
    }
    return true;
}

void ParallelCoordinatesView::setHighlighted(const QSet<QString>& keys) {
    if (keys == highlighted_) return;
    highlighted_ = keys;
    invalidatePixmap();
}

const ColumnAxis* ParallelCoordinatesView::axis(int column) const {
    ensure();
    const int i = indexOf(column);
    return i >= 0 ? &axes_[i] : nullptr;
}

double ParallelCoordinatesView::axisX(int column) const {
    ensure();
    const int i = indexOf(column);
    if (i < 0) return ColumnAxis::kMissing;
    if (axes_.size() == 1) return plot_.center().x();
    return plot_.left() + plot_.width() * i / (axes_.size() - 1);
}

QRectF ParallelCoordinatesView::plotRect() const {
    ensure();
    return plot_;
}

double ParallelCoordinatesView::missingY() const {
    ensure();
    return naY_;
}

QPolygonF ParallelCoordinatesView::polyline(int row) const {
    ensure();
    return row >= 0 && row < lines_.size() ? lines_[row] : QPolygonF();
}

ParallelCoordinatesView::RowStyle ParallelCoordinatesView::rowStyle(int row) const {
    ensure();
    if (row >= 0 && row < rows_.count() && highlighted_.contains(rows_.key(row))) return RowStyle::Highlighted;
    return rowInBrush(row) ? RowStyle::Normal : RowStyle::Faint;
}

double ParallelCoordinatesView::yOf(double position) const { return std::isnan(position) ? naY_ : plot_.bottom() - position * plot_.height(); }

double ParallelCoordinatesView::positionOfY(double y) const { return std::clamp((plot_.bottom() - y) / std::max(1.0, plot_.height()), 0.0, 1.0); }

// ---- caches ----------------------------------------------------------------------------------

void ParallelCoordinatesView::invalidateData() {
    dataDirty_ = true;
    invalidateGeometry();
}

void ParallelCoordinatesView::invalidateGeometry() {
    geometryDirty_ = true;
    invalidatePixmap();
}

void ParallelCoordinatesView::invalidatePixmap() {
    pixmapDirty_ = true;
    update();
}

void ParallelCoordinatesView::ensure() const {
    if (dataDirty_ || geometryDirty_) const_cast<ParallelCoordinatesView*>(this)->refresh();
}

void ParallelCoordinatesView::refresh() {
    if (dataDirty_) readModel();
    if (geometryDirty_) layoutLines();
    pixmapDirty_ = true;
}

void ParallelCoordinatesView::readModel() {
    dataDirty_ = false;
    geometryDirty_ = true;
    QAbstractItemModel* model = rows_.model();
    rows_.read(nameColumn_);
    ColumnAxis colour(colourColumn_);
    for (auto& a : axes_) {
        if (model)
            a.read(*model);
        else
            a.clear();
    }
    if (model) colour.read(*model);
    colours_.setAxis(colour);
    if (hoverRow_ >= rows_.count()) hoverRow_ = -1;
}

void ParallelCoordinatesView::layoutLines() {
    geometryDirty_ = false;
    const QFontMetricsF fm(font()), small(smaller(font()));
    // Room: two lines of axis title above, the "n/a" tick below, the first axis' tick labels on
    // the left, the colour legend on the right.
    double left = 24;
    if (!axes_.isEmpty())
        for (const auto& t : axes_.front().ticks(8)) left = std::max(left, std::min(110.0, small.horizontalAdvance(t.label) + 14));
    const double legend = colours_.legendWidth(fontMetrics());
    const double top = 2 * fm.height() + 12, bottom = 2 * fm.height() + 6;
    plot_ = QRectF(left, top, std::max(10.0, width() - left - (legend > 0 ? legend + 56 : 36)), std::max(10.0, height() - top - bottom));
    naY_ = plot_.bottom() + 1.4 * fm.height();
    // The colour goes log with the axis of the same column.
    ColumnAxis colour = colours_.axis();
    const int ci = indexOf(colour.column());
    colour.setLog(ci >= 0 && axes_[ci].isLog());
    colours_.setAxis(colour);
    const int n = rows_.count();
    lines_.resize(n);
    lineColours_.resize(n);
    const QColor neutral = palette().color(QPalette::Highlight);
    QVector<double> xs;
    for (const auto& a : axes_) xs << axisX(a.column());
    for (int r = 0; r < n; ++r) {
        QPolygonF& line = lines_[r];
        line.resize(axes_.size());
        for (int i = 0; i < axes_.size(); ++i) line[i] = QPointF(xs[i], yOf(axes_[i].rowPosition(r)));
        lineColours_[r] = colours_.colour(r, neutral);
    }
}

// ---- painting --------------------------------------------------------------------------------

void ParallelCoordinatesView::paintEvent(QPaintEvent*) {
    ensure();
    if (pixmapDirty_ || pixmap_.size() != size() * devicePixelRatioF()) renderPixmap();
    QPainter p(this);
    p.drawPixmap(0, 0, pixmap_);
    paintHover(p);
}

void ParallelCoordinatesView::renderPixmap() {
    pixmapDirty_ = false;
    pixmap_ = QPixmap(size() * devicePixelRatioF());
    pixmap_.setDevicePixelRatio(devicePixelRatioF());
    pixmap_.fill(palette().color(QPalette::Base));
    QPainter p(&pixmap_);
    p.setRenderHint(QPainter::Antialiasing);
    if (axes_.isEmpty() || rows_.count() == 0) {
        paintEmpty(p);
        return;
    }
    paintLines(p);
    paintAxes(p);
    if (colours_.active()) {
        const int w = colours_.legendWidth(fontMetrics());
        colours_.paintLegend(p, QRect(width() - w - 8, static_cast<int>(plot_.top()), w, static_cast<int>(plot_.height())), palette());
    }
}

void ParallelCoordinatesView::paintEmpty(QPainter& p) const {
    p.setPen(palette().color(QPalette::PlaceholderText));
    const QString text = rows_.count() == 0 ? tr("No runs to compare") : tr("No columns chosen to compare");
    p.drawText(rect(), Qt::AlignCenter, text);
}

// Faint lines first, then the runs inside the brush (both rasterized by LineRaster, drawn in one
// call: see there why), then the highlighted ones on top of all, bold, with QPainter.
void ParallelCoordinatesView::paintLines(QPainter& p) const {
    QVector<int> bold;
    LineRaster layer(pixmap_.size(), pixmap_.devicePixelRatio());
    for (RowStyle pass : {RowStyle::Faint, RowStyle::Normal})
        for (int r = 0; r < lines_.size(); ++r) {
            const RowStyle s = rowStyle(r);
            if (s == RowStyle::Highlighted && pass == RowStyle::Faint) bold << r;
            if (s == pass) layer.draw(lines_[r], lineColours_[r].rgb(), pass == RowStyle::Faint ? kFaintAlpha : kNormalAlpha);
        }
    p.drawImage(QPointF(0, 0), layer.image());
    // A halo in the background colour sets the bold lines apart from those they cross.
    for (int r : bold) {
        p.setPen(QPen(palette().color(QPalette::Base), 5.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        p.drawPolyline(lines_[r]);
        p.setPen(QPen(lineColours_[r], 3, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        p.drawPolyline(lines_[r]);
    }
}

void ParallelCoordinatesView::paintAxes(QPainter& p) const {
    const double spacing = axes_.size() > 1 ? plot_.width() / (axes_.size() - 1) : plot_.width();
    for (int i = 0; i < axes_.size(); ++i) {
        const double x = axisX(axes_[i].column());
        p.setPen(QPen(palette().color(QPalette::WindowText), 1));
        p.drawLine(QPointF(x, plot_.top()), QPointF(x, plot_.bottom()));
        paintBrush(p, i);
        paintTicks(p, i, spacing);
        paintAxisLabels(p, i, spacing);
    }
}

void ParallelCoordinatesView::paintAxisLabels(QPainter& p, int i, double spacing) const {
    const ColumnAxis& a = axes_[i];
    const double x = axisX(a.column());
    const QFontMetricsF fm(font());
    const double w = std::max(40.0, spacing - 6);
    // Inside the widget, and clear of the legend's column on the right.
    const double right = colours_.active() ? plot_.right() + 28 : width();
    const double lx = std::clamp(x - w / 2, 0.0, std::max(0.0, right - w));
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(palette().color(QPalette::WindowText));
    const QRectF title(lx, 4, w, fm.height());
    p.drawText(title, Qt::AlignCenter, QFontMetricsF(bold).elidedText(a.title(), Qt::ElideMiddle, w));
    QStringList state;
    if (a.isLog()) state << tr("log");
    if (a.isFlipped()) state << tr("flipped");
    if (hasBrush(a.column())) state << tr("brushed");
    p.setFont(smaller(font()));
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(QRectF(lx, 4 + fm.height(), w, fm.height()), Qt::AlignCenter,
               QFontMetricsF(p.font()).elidedText(state.join(QStringLiteral(" · ")), Qt::ElideRight, w));
    p.setFont(font());
}

void ParallelCoordinatesView::paintTicks(QPainter& p, int i, double spacing) const {
    const ColumnAxis& a = axes_[i];
    const double x = axisX(a.column());
    p.setFont(smaller(font()));
    const QFontMetricsF fm(p.font());
    const double labelWidth = i == 0 ? plot_.left() - 8 : std::max(24.0, spacing / 2 - 8);
    const auto ticks = a.ticks(std::clamp(static_cast<int>(plot_.height() / (2.5 * fm.height())), 2, 8));
    // Categories beyond what fits: every k-th labelled.
    const int every = std::max<int>(1, static_cast<int>(std::ceil(ticks.size() * fm.height() * 1.1 / std::max(1.0, plot_.height()))));
    const QColor halo = withAlpha(palette().color(QPalette::Base), 210);
    auto tick = [&](double y, const QString& label) {
        p.setPen(palette().color(QPalette::WindowText));
        p.drawLine(QPointF(x - 4, y), QPointF(x, y));
        const QString text = fm.elidedText(label, Qt::ElideRight, labelWidth);
        const double tw = fm.horizontalAdvance(text);
        const QRectF r(x - 6 - tw, y - fm.height() / 2, tw, fm.height());
        p.fillRect(r.adjusted(-2, 0, 2, 0), halo);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(r, Qt::AlignRight | Qt::AlignVCenter, text);
    };
    for (int k = 0; k < ticks.size(); k += every) tick(yOf(ticks[k].position), ticks[k].label);
    for (int r = 0; r < a.rows(); ++r)
        if (!a.hasValue(r)) {
            tick(naY_, QStringLiteral("n/a"));
            break;
        }
    p.setFont(font());
}

void ParallelCoordinatesView::paintBrush(QPainter& p, int i) const {
    const ColumnAxis& a = axes_[i];
    if (!hasBrush(a.column())) return;
    const auto [lo, hi] = brushes_.value(a.column());
    // A brush made on a linear scale may reach below 0, where a log scale has no position: the low end.
    auto pos = [&a](double v) { return std::clamp(std::isnan(a.position(v)) ? (a.isFlipped() ? 1.0 : 0.0) : a.position(v), 0.0, 1.0); };
    const double y0 = yOf(pos(lo)), y1 = yOf(pos(hi));
    const double x = axisX(a.column());
    const QRectF r(x - 7, std::min(y0, y1), 14, std::max(2.0, std::abs(y1 - y0)));
    const QColor c = palette().color(QPalette::Highlight);
    p.setPen(QPen(c, 1.5));
    p.setBrush(withAlpha(c, 70));
    p.drawRoundedRect(r, 3, 3);
    p.setBrush(Qt::NoBrush);
}

void ParallelCoordinatesView::paintHover(QPainter& p) const {
    if (hoverRow_ < 0 || hoverRow_ >= lines_.size()) return;
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(palette().color(QPalette::WindowText), 2.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p.drawPolyline(lines_[hoverRow_]);
}

// ---- interaction -----------------------------------------------------------------------------

int ParallelCoordinatesView::rowAt(const QPoint& pos) const {
    ensure();
    if (axes_.isEmpty() || lines_.isEmpty()) return -1;
    // The segment between the two axes around the cursor (or the one axis it is on).
    int i = 0;
    while (i + 1 < axes_.size() && lines_[0][i + 1].x() < pos.x()) ++i;
    const int j = std::min<int>(i + 1, axes_.size() - 1);
    int best = -1;
    double bestDist = kHoverPx;
    for (int r = 0; r < lines_.size(); ++r) {
        const QPointF a = lines_[r][i], b = lines_[r][j];
        const double t = b.x() > a.x() ? std::clamp((pos.x() - a.x()) / (b.x() - a.x()), 0.0, 1.0) : 0.0;
        const double d = std::abs(a.y() + t * (b.y() - a.y()) - pos.y());
        // <=: of lines equally near, the one drawn last (on top).
        if (d <= bestDist && (best < 0 || rowStyle(r) >= rowStyle(best))) best = r, bestDist = d;
    }
    if (pos.x() < lines_[0][0].x() - kHoverPx || pos.x() > lines_[0][axes_.size() - 1].x() + kHoverPx) return -1;
    return best;
}

int ParallelCoordinatesView::axisAt(const QPoint& pos) const {
    ensure();
    const double spacing = axes_.size() > 1 ? plot_.width() / (axes_.size() - 1) : plot_.width();
    const double reach = std::clamp(spacing / 2, kAxisGrabPx, 60.0);
    for (const auto& a : axes_)
        if (std::abs(pos.x() - axisX(a.column())) <= reach && pos.y() <= naY_ + fontMetrics().height()) return a.column();
    return -1;
}

QString ParallelCoordinatesView::rowToolTip(int row) const {
    ensure();
    if (row < 0 || row >= rows_.count()) return {};
    QStringList lines{rows_.name(row)};
    for (const auto& a : axes_) lines << QStringLiteral("%1: %2").arg(a.title(), a.text(row));
    if (colours_.active() && indexOf(colourColumn_) < 0) lines << QStringLiteral("%1: %2").arg(colours_.axis().title(), colours_.axis().text(row));
    return lines.join('\n');
}

QString ParallelCoordinatesView::axisToolTip(int column) const {
    const ColumnAxis* a = axis(column);
    if (!a) return {};
    QString text = a->title() + (a->isLog() ? tr(" (log scale)") : QString()) + (a->isFlipped() ? tr(" (flipped)") : QString());
    if (hasBrush(column)) text += tr("\nbrushed: %1 to %2").arg(ColumnAxis::format(brush(column).first), ColumnAxis::format(brush(column).second));
    return text + tr("\nDrag along the axis to brush it, click to clear; right-click for log scale and flip.");
}

bool ParallelCoordinatesView::event(QEvent* e) {
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    auto* help = static_cast<QHelpEvent*>(e);
    ensure();
    const int row = rowAt(help->pos());
    QString text = row >= 0 ? rowToolTip(row) : QString();
    if (text.isEmpty() && help->pos().y() < plot_.top()) text = axisToolTip(axisAt(help->pos()));
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(help->globalPos(), text, this);
    return true;
}

void ParallelCoordinatesView::mousePressEvent(QMouseEvent* e) {
    ensure();
    dragColumn_ = -1;
    if (e->button() != Qt::LeftButton) return QWidget::mousePressEvent(e);
    const QPointF pos = e->position();
    if (pos.y() < plot_.top() - kAxisGrabPx || pos.y() > plot_.bottom() + kAxisGrabPx) return;
    for (const auto& a : axes_)
        if (std::abs(pos.x() - axisX(a.column())) <= kAxisGrabPx) {
            dragColumn_ = a.column();
            dragStartY_ = pos.y();
            dragMoved_ = false;
            return;
        }
}

void ParallelCoordinatesView::mouseMoveEvent(QMouseEvent* e) {
    if (dragColumn_ >= 0) {
        if (std::abs(e->position().y() - dragStartY_) >= kDragPx) dragMoved_ = true;
        if (dragMoved_) dragTo(e->position().y());
        return;
    }
    const int row = rowAt(e->position().toPoint());
    if (row != hoverRow_) {
        hoverRow_ = row;
        update();
    }
}

void ParallelCoordinatesView::dragTo(double y) {
    const int i = indexOf(dragColumn_);
    if (i < 0) return;
    const double a = axes_[i].valueAt(positionOfY(dragStartY_)), b = axes_[i].valueAt(positionOfY(y));
    brushes_[dragColumn_] = {std::min(a, b), std::max(a, b)};
    invalidatePixmap();
}

void ParallelCoordinatesView::mouseReleaseEvent(QMouseEvent* e) {
    const int column = std::exchange(dragColumn_, -1);
    if (e->button() != Qt::LeftButton || column < 0) return QWidget::mouseReleaseEvent(e);
    if (!dragMoved_) {
        clearBrush(column);
        return;
    }
    dragTo(e->position().y());
    const auto [lo, hi] = brushes_.value(column);
    emit brushChanged(column, lo, hi);
}

void ParallelCoordinatesView::mouseDoubleClickEvent(QMouseEvent* e) {
    const int column = axisAt(e->position().toPoint());
    if (column >= 0) clearBrush(column);
}

void ParallelCoordinatesView::leaveEvent(QEvent*) {
    if (hoverRow_ < 0) return;
    hoverRow_ = -1;
    update();
}

QMenu* ParallelCoordinatesView::createAxisMenu(int column, QWidget* parent) {
    auto* menu = new QMenu(parent);
    menu->setToolTipsVisible(true);
    const ColumnAxis* a = axis(column);
    if (!a) return menu;
    QAction* log = menu->addAction(tr("Log scale"), this, [this, column](bool on) { setAxisLog(column, on); });
    log->setCheckable(true);
    log->setChecked(a->isLog());
    const QString refusal = a->logRefusal();
    if (!a->isLog() && !refusal.isEmpty()) {
        // Refused: the reason in the menu itself, where the user looks (a tooltip too, for a long one).
        log->setEnabled(false);
        log->setToolTip(refusal);
        menu->addAction(QStringLiteral("    ") + QFontMetrics(menu->font()).elidedText(refusal, Qt::ElideRight, 380))->setEnabled(false);
    }
    QAction* flip = menu->addAction(tr("Flip"), this, [this, column](bool on) { setAxisFlipped(column, on); });
    flip->setCheckable(true);
    flip->setChecked(a->isFlipped());
    QAction* colour = menu->addAction(tr("Colour lines by '%1'").arg(a->title()), this, [this, column](bool on) { setColourColumn(on ? column : -1); });
    colour->setCheckable(true);
    colour->setChecked(colourColumn_ == column);
    menu->addSeparator();
    menu->addAction(tr("Clear brush"), this, [this, column] { clearBrush(column); })->setEnabled(hasBrush(column));
    return menu;
}

void ParallelCoordinatesView::contextMenuEvent(QContextMenuEvent* e) {
    const int column = axisAt(e->pos());
    if (column < 0) return;
    QMenu* menu = createAxisMenu(column, this);
    menu->exec(e->globalPos());
    delete menu;
}

void ParallelCoordinatesView::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    invalidateGeometry();
}

void ParallelCoordinatesView::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange) invalidateGeometry();
}

}  // namespace streetgan::ui
