// Desktop notifications of the app: org.freedesktop.Notifications.Notify over the session D-Bus
// (app name "StreetGAN Studio", icon "streetgan", a "default" and an "open-run" action, urgency
// critical for a crash), and the server's ActionInvoked/NotificationClosed signals: a click emits
// activated(runKey). No session bus or no notification server on it (the call fails): a tray
// balloon (QSystemTrayIcon, when a tray exists; a click on it activates too), else the status bar
// given. Nothing at all while AppSettings::notificationsEnabled() is off. Calls are asynchronous
// (a slow or absent server never blocks the GUI). GUI thread.
#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

class QStatusBar;
class QSystemTrayIcon;

namespace streetgan::ui {

class DesktopNotifier : public QObject {
    Q_OBJECT
public:
    /// Where a notification went.
    enum class Channel { None, Bus, Tray, StatusBar };
    Q_ENUM(Channel)

    static constexpr char kService[] = "org.freedesktop.Notifications";
    static constexpr char kPath[] = "/org/freedesktop/Notifications";

    /// `statusBar` (may be null) shows what neither the bus nor a tray can.
    explicit DesktopNotifier(QStatusBar* statusBar, QObject* parent = nullptr);

    /// Notifies about the run `runKey` (given back by activated()); `critical`: a crash.
    void notify(const QString& runKey, const QString& summary, const QString& body, bool critical);
    /// Where the last notification went (None: off in the settings, or none yet).
    Channel lastChannel() const { return lastChannel_; }

signals:
    /// A notification of `runKey` was clicked (its default or "Open run" action).
    void activated(const QString& runKey);
    /// A notify() was delivered on `channel` (asynchronously for the bus; None: notifications off).
    void delivered(streetgan::ui::DesktopNotifier::Channel channel, const QString& runKey);

private slots:
    void onActionInvoked(uint id, const QString& action);
    void onNotificationClosed(uint id, uint reason);

private:
    void fallback(const QString& runKey, const QString& summary, const QString& body, bool critical);
    void done(Channel channel, const QString& runKey);

    QPointer<QStatusBar> statusBar_;
    QSystemTrayIcon* tray_ = nullptr;
    QString trayKey_;               // the run of the tray's last message
    QHash<uint, QString> runOfId_;  // notification ids (the server's) -> run keys
    Channel lastChannel_ = Channel::None;
    bool listening_ = false;
};

}  // namespace streetgan::ui
