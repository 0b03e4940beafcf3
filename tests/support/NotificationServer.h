// The observer side of desktop notifications for tests: a minimal org.freedesktop.Notifications
// server (Notify, GetCapabilities, GetServerInformation, CloseNotification; the ActionInvoked and
// NotificationClosed signals) on a D-Bus connection of its own to the session bus (normally a
// PrivateSessionBus), recording every Notify. It is what a desktop's notification daemon is to the
// app, not a stand-in for the app's code. Calls arrive on the thread that made it (the test's GUI
// thread), so the code under test must call asynchronously (DesktopNotifier does). Header-only; list
// it in the test's SOURCES (AUTOMOC).
#pragma once

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QList>
#include <QObject>
#include <QStringList>
#include <QVariantMap>

namespace streetgan::test {

class NotificationServer : public QObject {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")
public:
    struct Call {
        uint id = 0;
        QString app, icon, summary, body;
        QStringList actions;
        QVariantMap hints;
        int timeout = 0;
    };

    /// Connects to the bus at `address` (its own connection, named "notification-server").
    explicit NotificationServer(const QString& address) : connection_(QDBusConnection::connectToBus(address, "notification-server")) {}
    ~NotificationServer() override {
        stop();
        QDBusConnection::disconnectFromBus("notification-server");
    }

    /// Serves org.freedesktop.Notifications (owns the name); false when that fails.
    bool start() {
        if (!connection_.isConnected()) return false;
        connection_.registerObject("/org/freedesktop/Notifications", this, QDBusConnection::ExportScriptableSlots | QDBusConnection::ExportScriptableSignals);
        return connection_.registerService("org.freedesktop.Notifications");
    }
    /// Gives the name up: the bus has no notification server any more.
    void stop() {
        connection_.unregisterService("org.freedesktop.Notifications");
        connection_.unregisterObject("/org/freedesktop/Notifications");
    }

    const QList<Call>& calls() const { return calls_; }
    /// The calls whose summary or body contains `text`.
    QList<Call> callsWith(const QString& text) const {
        QList<Call> out;
        for (const Call& c : calls_)
            if (c.summary.contains(text) || c.body.contains(text)) out << c;
        return out;
    }

public slots:
    Q_SCRIPTABLE uint Notify(const QString& appName, uint replacesId, const QString& appIcon, const QString& summary, const QString& body,
                             const QStringList& actions, const QVariantMap& hints, int expireTimeout) {
        Call c;
        c.id = replacesId ? replacesId : ++lastId_;
        c.app = appName;
        c.icon = appIcon;
        c.summary = summary;
        c.body = body;
        c.actions = actions;
        c.hints = hints;
        c.timeout = expireTimeout;
        calls_ << c;
        return c.id;
    }
    Q_SCRIPTABLE QStringList GetCapabilities() { return {"actions", "body"}; }
    Q_SCRIPTABLE QString GetServerInformation(QString& vendor, QString& version, QString& specVersion) {
        vendor = "StreetGAN tests";
        version = "1";
        specVersion = "1.2";
        return "notification-server";
    }
    Q_SCRIPTABLE void CloseNotification(uint id) { emit NotificationClosed(id, 3); }

signals:
    /// Emitting them sends the D-Bus signals (as a user's click or a closed notification would).
    Q_SCRIPTABLE void ActionInvoked(uint id, const QString& actionKey);
    Q_SCRIPTABLE void NotificationClosed(uint id, uint reason);

private:
    QDBusConnection connection_;
    QList<Call> calls_;
    uint lastId_ = 0;
};

}  // namespace streetgan::test
