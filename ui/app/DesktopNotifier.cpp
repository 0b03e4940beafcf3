#include "app/DesktopNotifier.h"

#include <QApplication>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTimer>
#include <QVariantMap>

#include "app/AppSettings.h"

namespace streetgan::ui {
namespace {

constexpr char kInterface[] = "org.freedesktop.Notifications";
constexpr char kAppName[] = "StreetGAN Studio";
constexpr char kIcon[] = "streetgan";                     // resources/org.streetgan.Studio.desktop's Icon=
constexpr char kDesktopEntry[] = "org.streetgan.Studio";  // lets the server group and theme us
constexpr char kOpenAction[] = "open-run";
constexpr int kTimeoutMs = 5000;  // a server that does not answer in 5 s: the fallback shows it
constexpr int kStatusBarMs = 30000;

}  // namespace

DesktopNotifier::DesktopNotifier(QStatusBar* statusBar, QObject* parent) : QObject(parent), statusBar_(statusBar) {}

void DesktopNotifier::notify(const QString& runKey, const QString& summary, const QString& body, bool critical) {
    if (!AppSettings().notificationsEnabled()) {  // read each time: the Settings dialog changes it
        done(Channel::None, runKey);
        return;
    }
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected()) {
        fallback(runKey, summary, body, critical);
        return;
    }
    if (!listening_) {
        // Connected to the service name: only the server that owns it is listened to.
        listening_ = bus.connect(kService, kPath, kInterface, "ActionInvoked", this, SLOT(onActionInvoked(uint, QString)));
        bus.connect(kService, kPath, kInterface, "NotificationClosed", this, SLOT(onNotificationClosed(uint, uint)));
    }
    QDBusMessage m = QDBusMessage::createMethodCall(kService, kPath, kInterface, "Notify");
    QVariantMap hints;
    hints.insert("urgency", QVariant::fromValue<uchar>(critical ? 2 : 1));  // a byte: 0 low, 1 normal, 2 critical
    hints.insert("desktop-entry", QString(kDesktopEntry));
    m << QString(kAppName) << uint(0) << QString(kIcon) << summary << body << QStringList{"default", tr("Open run"), kOpenAction, tr("Open run")} << hints
      << int(-1);
    auto* watcher = new QDBusPendingCallWatcher(bus.asyncCall(m, kTimeoutMs), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, watcher, runKey, summary, body, critical] {
        watcher->deleteLater();
        const QDBusPendingReply<uint> reply = *watcher;
        if (reply.isError()) {  // no server (ServiceUnknown), or it failed: show it another way
            fallback(runKey, summary, body, critical);
            return;
        }
        runOfId_.insert(reply.value(), runKey);
        done(Channel::Bus, runKey);
    });
}

void DesktopNotifier::fallback(const QString& runKey, const QString& summary, const QString& body, bool critical) {
    if (QSystemTrayIcon::isSystemTrayAvailable() && QSystemTrayIcon::supportsMessages()) {
        if (!tray_) {
            tray_ = new QSystemTrayIcon(QApplication::windowIcon(), this);
            tray_->setToolTip(kAppName);
            connect(tray_, &QSystemTrayIcon::messageClicked, this, [this] {
                if (!trayKey_.isEmpty()) emit activated(trayKey_);
            });
        }
        trayKey_ = runKey;
        tray_->show();  // a balloon needs a visible icon
        tray_->showMessage(summary, body, critical ? QSystemTrayIcon::Critical : QSystemTrayIcon::Information, 15000);
        done(Channel::Tray, runKey);
        return;
    }
    if (statusBar_) {
        statusBar_->showMessage(body, kStatusBarMs);
        done(Channel::StatusBar, runKey);
        return;
    }
    done(Channel::None, runKey);
}

void DesktopNotifier::done(Channel channel, const QString& runKey) {
    lastChannel_ = channel;
    emit delivered(channel, runKey);
}

void DesktopNotifier::onActionInvoked(uint id, const QString& action) {
    const auto it = runOfId_.constFind(id);
    if (it == runOfId_.constEnd()) return;  // another app's, or an old one of ours
    if (action == "default" || action == kOpenAction) emit activated(*it);
}

void DesktopNotifier::onNotificationClosed(uint id, uint) { runOfId_.remove(id); }

}  // namespace streetgan::ui
