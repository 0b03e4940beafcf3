#include "app/CheckOutlineStyle.h"

#include <QPainter>
#include <QStyleFactory>
#include <QStyleOption>

namespace streetgan::ui {

CheckOutlineStyle::CheckOutlineStyle() : QProxyStyle(QStyleFactory::create("Fusion")) { setObjectName(kObjectName); }

void CheckOutlineStyle::drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter, const QWidget* widget) const {
    QProxyStyle::drawPrimitive(element, option, painter, widget);
    if (element != PE_IndicatorCheckBox && element != PE_IndicatorItemViewItemCheck) return;
    if (option->palette.color(QPalette::Base).lightness() >= 128) return;  // light palette: Fusion's outline shows
    // Fusion's box is option->rect less one pixel at the right and bottom, with rounded corners.
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    QColor outline = option->palette.color(QPalette::Text);
    outline.setAlpha(option->state & State_Enabled ? 150 : 70);
    painter->setPen(QPen(outline, 1));
    painter->setBrush(Qt::NoBrush);
    const QRectF box = QRectF(option->rect).adjusted(0.5, 0.5, -1.5, -1.5);
    painter->drawRoundedRect(box, 1.5, 1.5);
    painter->restore();
}

}  // namespace streetgan::ui
