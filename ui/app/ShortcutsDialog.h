// Help → Keyboard shortcuts: every action of the given menus that has a shortcut, grouped by menu
// (submenus under their own heading), then the keys of given pages (their actions with shortcuts
// and their buttons' shortcuts), then keys that widgets handle themselves. Generated from the actions and widgets themselves when shown, so
// it never disagrees with them. GUI thread only.
#pragma once

#include <QDialog>
#include <QList>
#include <QPair>
#include <QPointer>

class QMenu;
class QStandardItemModel;
class QTreeView;

namespace streetgan::ui {

class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    struct Entry {
        QString group;   ///< "File", "View › Theme", "Explorer tab"
        QString action;  ///< the action's text without mnemonics
        QString keys;    ///< its shortcuts, native text, ", "-separated
    };

    /// `pages`: a heading and a widget whose actions and buttons carry keys (e.g. the explorer).
    /// `extra`: keys a widget handles itself (no QAction to read them from), listed last; pass them
    /// from their one definition (e.g. LatentSliders::keyBindings()).
    ShortcutsDialog(const QList<QMenu*>& menus, const QList<QPair<QString, QWidget*>>& pages, const QList<Entry>& extra = {}, QWidget* parent = nullptr);

    /// What the dialog lists, in order.
    QList<Entry> entries() const { return entries_; }
    /// The list as the view shows it: a row a group, its commands and keys as its children.
    QStandardItemModel* model() const { return model_; }
    /// The plain action text (no '&' mnemonics) used in the list.
    static QString plainText(const QString& text);

private:
    void collectMenu(QMenu* menu, const QString& group);
    void collectPage(const QString& group, QWidget* page);

    QList<Entry> entries_;
    QStandardItemModel* model_;  ///< groups, each with its commands and keys (Command, Keys)
    QTreeView* tree_;
};

}  // namespace streetgan::ui
