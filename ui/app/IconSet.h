// The icons of the main window's actions: the desktop theme's icon (freedesktop names such as
// document-new, media-playback-start) when the theme has one and theme icons are wanted, else the
// bundled SVG (resources/icons/actions, light and dark stroke variants) matching the current
// palette, so icons stay visible in dark mode. Actions given to attach() get their icon again on
// refresh() (ThemeManager calls it after a theme change). GUI thread only.
#pragma once

#include <QIcon>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>

class QAction;

namespace streetgan::ui {

class IconSet : public QObject {
    Q_OBJECT
public:
    explicit IconSet(QObject* parent = nullptr);

    /// The icon named `name` (a freedesktop icon name that has a bundled fallback).
    QIcon icon(const QString& name) const;
    /// The bundled icon for a dark (`dark` true) or light palette; null when `name` is not bundled.
    static QIcon bundled(const QString& name, bool dark);
    /// The bundled icon names.
    static QStringList names();
    /// Gives `action` the icon `name` now and again on each refresh().
    void attach(QAction* action, const QString& name);
    /// Whether the desktop theme's icons are used when it has them (they are drawn for the desktop's
    /// own light/dark choice, so ThemeManager turns this off when the app is forced to the other one).
    void setUseThemeIcons(bool on);
    bool useThemeIcons() const { return useTheme_; }
    /// Re-sets every attached action's icon (palette or theme changed).
    void refresh();

private:
    bool useTheme_ = true;
    QList<QPair<QPointer<QAction>, QString>> attached_;
};

}  // namespace streetgan::ui
