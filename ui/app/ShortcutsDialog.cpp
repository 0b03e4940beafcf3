#include "app/ShortcutsDialog.h"

#include <QAbstractButton>
#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QStandardItemModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace streetgan::ui {

namespace {

QString keysText(const QList<QKeySequence>& keys) {
    QStringList out;
    for (const QKeySequence& k : keys)
        if (!k.isEmpty()) out << k.toString(QKeySequence::NativeText);
    return out.join(", ");
}

}  // namespace

QString ShortcutsDialog::plainText(const QString& text) {
    QString t = text;
    t.replace("&&", QChar(0x1));  // a literal ampersand survives
    t.remove('&');
    t.replace(QChar(0x1), "&");
    return t;
}

ShortcutsDialog::ShortcutsDialog(const QList<QMenu*>& menus, const QList<QPair<QString, QWidget*>>& pages, const QList<Entry>& extra, QWidget* parent)
    : QDialog(parent) {
    setObjectName("shortcutsDialog");
    setWindowTitle(tr("Keyboard shortcuts"));
    for (QMenu* m : menus)
        if (m) collectMenu(m, plainText(m->title()));
    for (const auto& [group, page] : pages)
        if (page) collectPage(group, page);
    entries_ += extra;

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Every menu command with a key, and the keys of the tabs:")));
    // A group a row (its name spanning both columns), its commands and keys below it.
    model_ = new QStandardItemModel(0, 2, this);
    model_->setHorizontalHeaderLabels({tr("Command"), tr("Keys")});
    QStandardItem* groupItem = nullptr;
    for (const Entry& e : entries_) {
        if (!groupItem || groupItem->text() != e.group) {
            groupItem = new QStandardItem(e.group);
            QFont bold = groupItem->font();
            bold.setBold(true);
            groupItem->setFont(bold);
            groupItem->setEditable(false);
            model_->appendRow(groupItem);
        }
        auto* action = new QStandardItem(e.action);
        auto* keys = new QStandardItem(e.keys);
        action->setEditable(false);
        keys->setEditable(false);
        groupItem->appendRow({action, keys});
    }
    tree_ = new QTreeView;
    tree_->setObjectName("shortcutsTree");
    tree_->setModel(model_);
    tree_->setRootIsDecorated(false);
    tree_->setSelectionMode(QAbstractItemView::NoSelection);
    for (int r = 0; r < model_->rowCount(); ++r) tree_->setFirstColumnSpanned(r, {}, true);
    tree_->expandAll();
    tree_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    tree_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    layout->addWidget(tree_, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(520, 560);
}

void ShortcutsDialog::collectMenu(QMenu* menu, const QString& group) {
    for (QAction* a : menu->actions()) {
        if (a->isSeparator()) continue;
        if (QMenu* sub = a->menu()) {
            collectMenu(sub, group + QStringLiteral(" › ") + plainText(sub->title()));
            continue;
        }
        const QString keys = keysText(a->shortcuts());
        if (!keys.isEmpty()) entries_.append({group, plainText(a->text()), keys});
    }
}

void ShortcutsDialog::collectPage(const QString& group, QWidget* page) {
    for (QAction* a : page->actions()) {
        const QString keys = keysText(a->shortcuts());
        if (!keys.isEmpty()) entries_.append({group, plainText(a->text()), keys});
    }
    for (QAbstractButton* b : page->findChildren<QAbstractButton*>()) {
        const QString keys = keysText({b->shortcut()});
        // A button whose shortcut is only its text's mnemonic (Alt+letter) is not worth listing.
        if (keys.isEmpty() || b->text().contains('&')) continue;
        entries_.append({group, plainText(b->text().isEmpty() ? b->toolTip() : b->text()), keys});
    }
}

}  // namespace streetgan::ui
