// Draws a run's two lines in the runs sidebar: column 0 the check box, colour swatch and name
// (elided by the view) over a grey second line (host), column 1 the state badge (a coloured pill
// with the state's word) over step/total. Items other than runs (hosts, the local root) are
// drawn as usual. GUI thread.
#pragma once

#include <QStyledItemDelegate>

namespace streetgan::ui {

class RunItemDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    /// Column 0: the second line (host). Column 1: the state word; kDetailRole the step/total.
    static constexpr int kSecondLineRole = Qt::UserRole + 10;
    static constexpr int kStateRole = Qt::UserRole + 11;
    static constexpr int kDetailRole = Qt::UserRole + 12;

    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

    /// The badge colour of a run state (running, paused, finished, stopped, failed, crashed, stalled).
    static QColor stateColour(const QString& state);
};

}  // namespace streetgan::ui
