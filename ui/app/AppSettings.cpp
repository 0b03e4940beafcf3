#include "app/AppSettings.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>
#include <QSettings>
#include <QUrl>

namespace streetgan::ui {

QString AppSettings::workspace() const { return QSettings().value("workspace").toString(); }
void AppSettings::setWorkspace(const QString& dir) { QSettings().setValue("workspace", dir); }

QString AppSettings::folderFromText(const QString& typed) {
    QString t = typed.trimmed();
    if (t.isEmpty()) return {};
    if (t == "~" || t.startsWith("~/")) t = QDir::homePath() + t.mid(1);
    return QDir::cleanPath(QFileInfo(QDir::fromNativeSeparators(t)).absoluteFilePath());
}

QString AppSettings::prepareWorkspace(const QString& dir) {
    if (!QDir().mkpath(dir)) return QObject::tr("Cannot create the runs folder %1").arg(dir);
    if (!QFileInfo(dir).isWritable()) return QObject::tr("Cannot write to the runs folder %1").arg(dir);
    return {};
}

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

QString AppSettings::theme() const { return QSettings().value("appearance/theme", "system").toString(); }
void AppSettings::setTheme(const QString& theme) { QSettings().setValue("appearance/theme", theme); }
bool AppSettings::notificationsEnabled() const { return QSettings().value("notifications/enabled", true).toBool(); }
void AppSettings::setNotificationsEnabled(bool on) { QSettings().setValue("notifications/enabled", on); }

namespace {
// QSettings keys treat '/' as a group separator and '\\' specially; a host label holds '@' and ':'
// only, but percent-encoding keeps any label one key.
QString hostKey(const QString& hostLabel) { return "cost/hosts/" + QString::fromLatin1(QUrl::toPercentEncoding(hostLabel)); }
}  // namespace

QString AppSettings::hostInstance(const QString& hostLabel) const { return QSettings().value(hostKey(hostLabel) + "/instance").toString(); }
double AppSettings::hostPricePerHour(const QString& hostLabel) const { return QSettings().value(hostKey(hostLabel) + "/perHour", -1.0).toDouble(); }

void AppSettings::setHostPrice(const QString& hostLabel, const QString& instance, double perHour) {
    QSettings s;
    s.setValue(hostKey(hostLabel) + "/instance", instance);
    s.setValue(hostKey(hostLabel) + "/perHour", perHour);
}

QStringList AppSettings::plottedRuns() const { return QSettings().value("runs/plotted").toStringList(); }
void AppSettings::setPlottedRuns(const QStringList& runKeys) { QSettings().setValue("runs/plotted", runKeys); }
QStringList AppSettings::openedRuns() const { return QSettings().value("runs/opened").toStringList(); }
void AppSettings::setOpenedRuns(const QStringList& runDirs) { QSettings().setValue("runs/opened", runDirs); }
QVariantMap AppSettings::runsTableLayout() const { return QSettings().value("runsTable/layout").toMap(); }
void AppSettings::setRunsTableLayout(const QVariantMap& layout) { QSettings().setValue("runsTable/layout", layout); }
bool AppSettings::welcomeDone() const { return QSettings().value("welcome/done", false).toBool(); }
void AppSettings::setWelcomeDone(bool done) { QSettings().setValue("welcome/done", done); }

}  // namespace streetgan::ui
