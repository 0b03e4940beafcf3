// How the keyframe list draws a row: the keyframe model's text ("seed 2", "z (64 values)", the
// segment's easing) after the row's number ("1. seed 2"). The number is the view's, not the
// model's data: a keyframe's text stays the same when rows are inserted or removed before it (the
// item-model contract QAbstractItemModelTester checks), and the view repaints the numbers itself.
//
// Thread contract: GUI thread.
#pragma once

#include <QStyledItemDelegate>

namespace streetgan::ui {

class KeyframeDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    /// The text a row shows: "<row + 1>. <the model's Qt::DisplayRole>".
    static QString text(const QModelIndex& index);

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};

}  // namespace streetgan::ui
