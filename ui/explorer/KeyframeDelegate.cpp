#include "explorer/KeyframeDelegate.h"

namespace streetgan::ui {

QString KeyframeDelegate::text(const QModelIndex& index) { return tr("%1. %2").arg(index.row() + 1).arg(index.data(Qt::DisplayRole).toString()); }

void KeyframeDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    option->text = text(index);
}

}  // namespace streetgan::ui
