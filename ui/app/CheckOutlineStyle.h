// The app's style: Fusion, plus a visible outline around check boxes (in dialogs and in item views
// such as the runs sidebar) when the palette is dark. Fusion draws that outline in the window
// colour darkened by 40 %, which on a dark palette is nearly the base colour: an unchecked box
// disappears. GUI thread (a QStyle).
#pragma once

#include <QProxyStyle>

namespace streetgan::ui {

class CheckOutlineStyle : public QProxyStyle {
    Q_OBJECT
public:
    CheckOutlineStyle();
    /// The name ThemeManager recognises the style by (QStyle::name() reports the base style's).
    static constexpr const char* kObjectName = "streetganCheckOutlineStyle";
    void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter, const QWidget* widget = nullptr) const override;
};

}  // namespace streetgan::ui
