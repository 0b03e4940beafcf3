// Light or dark look of the whole app: mode "system" follows the desktop, "light" and "dark" force
// one. Qt 6.4 has no QStyleHints::colorScheme, so the desktop's choice is read from the XDG desktop
// portal over D-Bus (org.freedesktop.portal.Settings, "org.freedesktop.appearance" "color-scheme":
// 1 = prefer dark) and followed live through its SettingChanged signal; without a portal, a
// GTK_THEME containing ":dark" or "-dark" means dark, anything else light. Applied as the Fusion
// style with Fusion's light palette or a dark palette (application-wide: every widget, the plots
// included, gets a PaletteChange), then the attached IconSet is refreshed. GUI thread only.
#pragma once

#include <QObject>
#include <QPalette>
#include <QStringList>

class QDBusVariant;

namespace streetgan::ui {

class IconSet;

class ThemeManager : public QObject {
    Q_OBJECT
public:
    /// `icons` (may be null) is refreshed after each change.
    explicit ThemeManager(IconSet* icons, QObject* parent = nullptr);

    /// "system", "light", "dark".
    static QStringList modes();
    /// Applies `mode`; false (and nothing changes) for an unknown one.
    bool setMode(const QString& mode);
    QString mode() const { return mode_; }
    /// Whether the dark palette is in use now.
    bool isDark() const { return dark_; }
    /// The desktop's preference as last read (portal, else GTK_THEME).
    bool desktopPrefersDark() const { return desktopDark_; }
    /// Whether the desktop portal answered (its changes are then followed).
    bool portalAvailable() const { return portal_; }

    static QPalette darkPalette();
    static QPalette lightPalette();

signals:
    /// After a palette change (mode chosen, or the desktop switched while following it).
    void applied(bool dark);

private slots:
    void onPortalSettingChanged(const QString& ns, const QString& key, const QDBusVariant& value);

private:
    void readDesktopPreference();
    void apply();

    IconSet* icons_;
    QString mode_ = "system";
    bool dark_ = false;
    bool applied_ = false;
    bool desktopDark_ = false;
    bool portal_ = false;
};

}  // namespace streetgan::ui
