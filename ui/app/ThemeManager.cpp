#include "app/ThemeManager.h"

#include <QApplication>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusVariant>
#include <QStyle>
#include <QStyleFactory>

#include "app/CheckOutlineStyle.h"
#include "app/IconSet.h"

namespace streetgan::ui {

namespace {

const char* const kPortalService = "org.freedesktop.portal.Desktop";
const char* const kPortalPath = "/org/freedesktop/portal/desktop";
const char* const kPortalSettings = "org.freedesktop.portal.Settings";

/// The portal's Read wraps the value in one or two variants (older portals two): unwrap them all.
QVariant unwrap(QVariant v) {
    while (v.canConvert<QDBusVariant>() && v.userType() == qMetaTypeId<QDBusVariant>()) v = v.value<QDBusVariant>().variant();
    return v;
}

bool gtkThemeIsDark() {
    const QString gtk = qEnvironmentVariable("GTK_THEME").toLower();
    return gtk.contains(":dark") || gtk.contains("-dark");
}

}  // namespace

ThemeManager::ThemeManager(IconSet* icons, QObject* parent) : QObject(parent), icons_(icons) {
    readDesktopPreference();
    if (portal_)
        QDBusConnection::sessionBus().connect(kPortalService, kPortalPath, kPortalSettings, "SettingChanged", this,
                                              SLOT(onPortalSettingChanged(QString, QString, QDBusVariant)));
}

QStringList ThemeManager::modes() { return {"system", "light", "dark"}; }

void ThemeManager::readDesktopPreference() {
    desktopDark_ = gtkThemeIsDark();
    QDBusConnection bus = QDBusConnection::sessionBus();
    // Only a portal already running is asked (no D-Bus activation, which can take seconds at start).
    if (!bus.isConnected() || !bus.interface() || !bus.interface()->isServiceRegistered(kPortalService)) return;
    QDBusMessage call = QDBusMessage::createMethodCall(kPortalService, kPortalPath, kPortalSettings, "Read");
    call << QStringLiteral("org.freedesktop.appearance") << QStringLiteral("color-scheme");
    const QDBusMessage reply = bus.call(call, QDBus::Block, 1000);
    if (reply.type() != QDBusMessage::ReplyMessage || reply.arguments().isEmpty()) return;  // old portal: no such key
    portal_ = true;
    desktopDark_ = unwrap(reply.arguments().first()).toUInt() == 1;
}

void ThemeManager::onPortalSettingChanged(const QString& ns, const QString& key, const QDBusVariant& value) {
    if (ns != QLatin1String("org.freedesktop.appearance") || key != QLatin1String("color-scheme")) return;
    desktopDark_ = unwrap(value.variant()).toUInt() == 1;
    if (mode_ == QLatin1String("system")) apply();
}

bool ThemeManager::setMode(const QString& mode) {
    if (!modes().contains(mode)) return false;
    mode_ = mode;
    apply();
    return true;
}

void ThemeManager::apply() {
    const bool dark = mode_ == QLatin1String("dark") || (mode_ == QLatin1String("system") && desktopDark_);
    if (applied_ && dark == dark_) return;
    applied_ = true;
    dark_ = dark;
    // Fusion everywhere: the platform styles ignore a custom palette in places, Fusion draws with it.
    // CheckOutlineStyle is Fusion with check boxes that stay visible on the dark palette.
    if (QApplication::style()->objectName() != QLatin1String(CheckOutlineStyle::kObjectName)) QApplication::setStyle(new CheckOutlineStyle);
    QApplication::setPalette(dark ? darkPalette() : lightPalette());
    if (icons_) {
        // The desktop theme's icons are drawn for the desktop's own choice: use them only while it holds.
        icons_->setUseThemeIcons(dark == desktopDark_);
        icons_->refresh();
    }
    emit applied(dark);
}

QPalette ThemeManager::lightPalette() {
    QStyle* fusion = QStyleFactory::create("Fusion");
    QPalette p = fusion->standardPalette();
    delete fusion;
    return p;
}

QPalette ThemeManager::darkPalette() {
    const QColor window(45, 45, 48), base(30, 30, 32), text(230, 230, 230), disabled(128, 128, 128), highlight(42, 130, 218);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(53, 53, 56));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 90, 90));
    p.setColor(QPalette::Light, QColor(75, 75, 80));
    p.setColor(QPalette::Midlight, QColor(62, 62, 66));
    p.setColor(QPalette::Mid, QColor(40, 40, 42));
    p.setColor(QPalette::Dark, QColor(25, 25, 26));
    p.setColor(QPalette::Shadow, QColor(10, 10, 10));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(100, 170, 255));
    p.setColor(QPalette::LinkVisited, QColor(170, 140, 255));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(80, 80, 80));
    p.setColor(QPalette::Disabled, QPalette::HighlightedText, disabled);
    return p;
}

}  // namespace streetgan::ui
