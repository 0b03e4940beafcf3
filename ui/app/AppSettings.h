// What the app remembers between starts (QSettings, organisation "StreetGAN", application
// "StreetGAN Studio"): the workspace folder, recent runs, recent hosts (no secrets), the cost
// price, the window layout. Tests point QSettings elsewhere (QSettings::setPath or another
// organisation name). GUI thread.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include "remote/RemoteHost.h"

namespace streetgan::ui {

class AppSettings {
public:
    static constexpr int kMaxRecent = 10;
    QString workspace() const;
    void setWorkspace(const QString& dir);
    QStringList recentRuns() const;
    void addRecentRun(const QString& dir);
    QList<HostConfig> recentHosts() const;
    void addRecentHost(const HostConfig& host);
    double pricePerHour() const;
    void setPricePerHour(double dollars);
    QByteArray windowGeometry() const;
    QByteArray windowState() const;
    void setWindowLayout(const QByteArray& geometry, const QByteArray& state);
};

}  // namespace streetgan::ui
