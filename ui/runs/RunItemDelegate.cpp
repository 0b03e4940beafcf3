#include "runs/RunItemDelegate.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>

#include "base/run/Events.h"
#include "base/slurm/SlurmJobState.h"

namespace streetgan::ui {

namespace {
bool isRun(const QModelIndex& index) { return index.sibling(index.row(), 1).data(RunItemDelegate::kStateRole).isValid(); }
QFont smaller(QFont f) {
    f.setPointSizeF(f.pointSizeF() > 0 ? f.pointSizeF() * 0.88 : 8);
    return f;
}
constexpr int kPillPadX = 6;
}  // namespace

QColor RunItemDelegate::stateColour(const QString& state) {
    if (state == QLatin1String(RunState::kRunning)) return QColor(30, 140, 60);
    if (state == QLatin1String(RunState::kPaused)) return QColor(200, 140, 0);
    if (state == QLatin1String(RunState::kFinished)) return QColor(0, 105, 217);
    if (state == QLatin1String(RunState::kStopped)) return QColor(108, 117, 125);
    if (state == QLatin1String(RunState::kFailed)) return QColor(200, 35, 51);
    if (state == QLatin1String(RunState::kCrashed)) return QColor(130, 20, 30);
    if (state == QLatin1String("stalled")) return QColor(214, 90, 0);
    // A Slurm run's own states (base/slurm/SlurmJobState.h's words).
    if (state == QLatin1String(SlurmJobState::kQueued)) return QColor(111, 66, 193);
    if (state == QLatin1String(SlurmJobState::kRequeued) || state == QLatin1String(SlurmJobState::kSuspended)) return QColor(23, 162, 184);
    if (state == QLatin1String(SlurmJobState::kCancelled)) return QColor(108, 117, 125);
    if (state == QLatin1String(SlurmJobState::kTimedOut) || state == QLatin1String(SlurmJobState::kPreempted)) return QColor(170, 60, 20);
    return QColor(150, 150, 150);
}

QSize RunItemDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    if (!isRun(index)) return s;
    const QFontMetrics fm(option.font), small(smaller(option.font));
    s.setHeight(std::max(s.height(), fm.height() + small.height() + 8));
    if (index.column() == 1) {
        const int pill = small.horizontalAdvance(index.data(kStateRole).toString()) + 2 * kPillPadX;
        s.setWidth(std::max(pill, small.horizontalAdvance(index.data(kDetailRole).toString())) + 8);
    }
    return s;
}

void RunItemDelegate::paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    if (!isRun(index)) {
        QStyledItemDelegate::paint(p, option, index);
        return;
    }
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QWidget* w = opt.widget;
    QStyle* style = w ? w->style() : QApplication::style();
    const QFontMetrics fm(opt.font);
    const QFont smallFont = smaller(opt.font);
    const QFontMetrics small(smallFont);
    const QColor grey = opt.palette.color(opt.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::PlaceholderText);
    if (index.column() == 0) {
        // Check box, swatch and name by the style (name on the first line, elided), then the host.
        opt.displayAlignment = Qt::AlignLeft | Qt::AlignTop;
        const QRect full = opt.rect;
        opt.rect.adjust(0, 3, 0, 0);
        style->drawControl(QStyle::CE_ItemViewItem, &opt, p, w);
        const QRect text = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, w);
        const QString second = small.elidedText(index.data(kSecondLineRole).toString(), Qt::ElideRight, text.width() - 4);
        p->save();
        p->setFont(smallFont);
        p->setPen(grey);
        p->drawText(QRect(text.left() + 2, full.top() + 3 + fm.height(), text.width() - 4, small.height()), Qt::AlignLeft | Qt::AlignVCenter, second);
        p->restore();
        return;
    }
    // Column 1: background and selection as usual, no text; then the pill and step/total.
    opt.text.clear();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, p, w);
    const QString state = index.data(kStateRole).toString();
    const QColor c = stateColour(state);
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    p->setFont(smallFont);
    const int pillW = std::min(opt.rect.width() - 4, small.horizontalAdvance(state) + 2 * kPillPadX);
    const QRectF pill(opt.rect.left() + 2, opt.rect.top() + 3, pillW, fm.height());
    QPainterPath path;
    path.addRoundedRect(pill, pill.height() / 2, pill.height() / 2);
    p->fillPath(path, c);
    p->setPen(Qt::white);
    p->drawText(pill, Qt::AlignCenter, small.elidedText(state, Qt::ElideRight, static_cast<int>(pill.width()) - 4));
    p->setPen(grey);
    const QString detail = small.elidedText(index.data(kDetailRole).toString(), Qt::ElideLeft, opt.rect.width() - 4);
    p->drawText(QRect(opt.rect.left() + 2, opt.rect.top() + 3 + fm.height(), opt.rect.width() - 4, small.height()), Qt::AlignLeft | Qt::AlignVCenter, detail);
    p->restore();
}

}  // namespace streetgan::ui
