// What the app remembers between starts (QSettings, organisation "StreetGAN", application
// "StreetGAN Studio"): the workspace folder, recent runs, recent hosts (no secrets), the cost
// price (a global one and one per remote host), the window layout, the theme, whether desktop
// notifications are on, which runs the plots overlay, the runs opened from outside the workspace,
// the Runs table's column layout, and whether the welcome page was seen. Tests point QSettings
// elsewhere (QSettings::setPath or another organisation name). GUI thread.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantMap>

#include "remote/RemoteHost.h"

namespace streetgan::ui {

class AppSettings {
public:
    static constexpr int kMaxRecent = 10;
    QString workspace() const;
    void setWorkspace(const QString& dir);
    /// Makes the runs folder `dir` if needed and checks that it can be written: "" when it is
    /// usable, else what is wrong, naming the folder (the caller adds what to do).
    static QString prepareWorkspace(const QString& dir);
    /// A folder as the user typed it ("~/runs", relative, native separators) as a clean absolute
    /// path; "" for blank text.
    static QString folderFromText(const QString& typed);
    QStringList recentRuns() const;
    void addRecentRun(const QString& dir);
    QList<HostConfig> recentHosts() const;
    void addRecentHost(const HostConfig& host);
    double pricePerHour() const;
    void setPricePerHour(double dollars);
    QByteArray windowGeometry() const;
    QByteArray windowState() const;
    void setWindowLayout(const QByteArray& geometry, const QByteArray& state);

    /// "system" (follow the desktop, the default), "light" or "dark".
    QString theme() const;
    void setTheme(const QString& theme);
    /// Desktop notifications when a run finishes, crashes, stalls or starves (default on).
    bool notificationsEnabled() const;
    void setNotificationsEnabled(bool on);
    /// The price a remote host is billed at, saved per host label (user@host:port): the instance
    /// type picked ("custom" for a typed price) and dollars per hour; perHour < 0 when never set.
    QString hostInstance(const QString& hostLabel) const;
    double hostPricePerHour(const QString& hostLabel) const;
    void setHostPrice(const QString& hostLabel, const QString& instance, double perHour);
    /// Keys of the runs whose check boxes were on (RunsSidebar's run keys), restored at start.
    QStringList plottedRuns() const;
    void setPlottedRuns(const QStringList& runKeys);
    /// The runs opened from outside the workspace (RunsSidebar::openedRuns: folders), restored at start.
    QStringList openedRuns() const;
    void setOpenedRuns(const QStringList& runDirs);
    /// The Runs table's column layout (RunsTablePage::columnLayout(): hidden, pinned, order, statistics).
    QVariantMap runsTableLayout() const;
    void setRunsTableLayout(const QVariantMap& layout);
    /// The first-start welcome (runs folder chosen) was completed once.
    bool welcomeDone() const;
    void setWelcomeDone(bool done);
};

}  // namespace streetgan::ui
