#include "app/AppSettings.h"

#include <QSettings>

namespace streetgan::ui {

QString AppSettings::workspace() const { return QSettings().value("workspace").toString(); }
void AppSettings::setWorkspace(const QString& dir) { QSettings().setValue("workspace", dir); }

QStringList AppSettings::recentRuns() const { return QSettings().value("recentRuns").toStringList(); }

void AppSettings::addRecentRun(const QString& dir) {
    QStringList l = recentRuns();
    l.removeAll(dir);
    l.prepend(dir);
    while (l.size() > kMaxRecent) l.removeLast();
    QSettings().setValue("recentRuns", l);
}

QList<HostConfig> AppSettings::recentHosts() const {
    QList<HostConfig> out;
    for (const QVariant& v : QSettings().value("recentHosts").toList()) out << HostConfig::fromVariant(v.toMap());
    return out;
}

void AppSettings::addRecentHost(const HostConfig& host) {
    QVariantList l;
    l << host.toVariant();
    for (const HostConfig& h : recentHosts())
        if (h.label() != host.label() && l.size() < kMaxRecent) l << h.toVariant();
    QSettings().setValue("recentHosts", l);
}

double AppSettings::pricePerHour() const { return QSettings().value("cost/pricePerHour", 3.06).toDouble(); }
void AppSettings::setPricePerHour(double d) { QSettings().setValue("cost/pricePerHour", d); }
QByteArray AppSettings::windowGeometry() const { return QSettings().value("window/geometry").toByteArray(); }
QByteArray AppSettings::windowState() const { return QSettings().value("window/state").toByteArray(); }

void AppSettings::setWindowLayout(const QByteArray& geometry, const QByteArray& state) {
    QSettings s;
    s.setValue("window/geometry", geometry);
    s.setValue("window/state", state);
}

}  // namespace streetgan::ui
