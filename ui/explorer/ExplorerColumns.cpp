#include "explorer/ExplorerColumns.h"

#include <QHBoxLayout>
#include <QSplitter>
#include <QTabWidget>
#include <algorithm>

namespace streetgan::ui {
namespace {

// The preview's comfortable width beside two side panels (its controls in one row, the frame at
// ~4x the demo's 128 px); below that the side panels become tabs rather than squeeze it.
constexpr int kComfortableCentre = 520;

}  // namespace

ExplorerColumns::ExplorerColumns(QWidget* left, const QString& leftTitle, QWidget* centre, QWidget* right, const QString& rightTitle, QWidget* parent)
    : QWidget(parent), left_(left), centre_(centre), right_(right), leftTitle_(leftTitle), rightTitle_(rightTitle) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    // The tab widget stays in the splitter, hidden while three columns show; the side panels move.
    tabs_ = new QTabWidget;
    tabs_->setObjectName("explorerSideTabs");
    tabs_->setDocumentMode(true);
    tabs_->hide();
    QSizePolicy grow = centre->sizePolicy();
    grow.setHorizontalStretch(1);  // the preview takes what the side panels leave
    centre->setSizePolicy(grow);
    split_ = new QSplitter(Qt::Horizontal);
    split_->addWidget(tabs_);
    split_->addWidget(left);
    split_->addWidget(centre);
    split_->addWidget(right);
    split_->setChildrenCollapsible(false);
    layout->addWidget(split_);
}

int ExplorerColumns::threeColumnWidth() const {
    return left_->minimumWidth() + right_->minimumWidth() + 2 * split_->handleWidth() + std::max(kComfortableCentre, centre_->minimumSizeHint().width());
}

QSize ExplorerColumns::minimumSizeHint() const {
    const QSize now = QWidget::minimumSizeHint();
    if (compact_) return now;
    const int side = std::max({left_->minimumWidth(), right_->minimumWidth(), tabs_->minimumSizeHint().width()});
    return {side + split_->handleWidth() + centre_->minimumSizeHint().width(), now.height()};
}

void ExplorerColumns::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    arrange();
}

void ExplorerColumns::arrange() {
    const bool compact = width() < threeColumnWidth();
    if (compact == compact_) return;
    compact_ = compact;
    if (compact) {
        const bool rightFocused = QWidget::focusWidget() && right_->isAncestorOf(QWidget::focusWidget());
        tabs_->addTab(left_, leftTitle_);
        tabs_->addTab(right_, rightTitle_);
        tabs_->setCurrentWidget(rightFocused ? right_ : left_);
        tabs_->show();
        // The side column at its minimum: the preview gets the rest.
        const int side = std::max(left_->minimumWidth(), right_->minimumWidth());
        split_->setSizes({side, std::max(1, split_->width() - side - split_->handleWidth())});
    } else {
        split_->insertWidget(1, left_);  // out of the tabs (the tab widget drops the page)
        split_->insertWidget(3, right_);
        left_->show();
        right_->show();
        tabs_->hide();
    }
}

}  // namespace streetgan::ui
