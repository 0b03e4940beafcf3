// The runs open in the app and the remote hosts they come from: opens a local or a remote run once
// (opening it again makes it the active one), keeps which run is active, closes runs, and owns the
// hosts (HostListModel) and the sessions, which it stops and deletes before the hosts they use.
// Every session is wired here the same way, local or remote: what the window shows of it (its
// connection state and progress while it is the active run, its errors, the trainer's replies)
// comes out as this object's signals. Knows no widget. GUI thread.
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

namespace streetgan::ui {

class HostListModel;
class RemoteHost;
class RunSession;
class SshPrompter;

class OpenRuns : public QObject {
    Q_OBJECT
public:
    /// `prompter` answers the hosts' questions (host keys, passwords) and must outlive this.
    explicit OpenRuns(SshPrompter* prompter, QObject* parent = nullptr);
    ~OpenRuns() override;

    HostListModel* hosts() const { return hosts_.get(); }

    /// The run a local folder means: the folder itself, or for a folder that is no run but holds
    /// exactly one TensorBoard run below it (the reference project's NAME/ for NAME/events/), that
    /// run. Absolute.
    static QString localRunDir(const QString& folder);
    /// Opens (and follows) the local run localRunDir(`folder`) names, or activates it when it is
    /// open; nullptr (and errorOccurred) when it is not a folder.
    RunSession* openLocal(const QString& folder);
    /// Opens (or activates) `runDir` on `host`, one of hosts().
    RunSession* openRemote(RemoteHost* host, const QString& runDir);
    /// Stops and deletes `s` (closing() first); the last one opened becomes active.
    void close(RunSession* s);

    void setActive(RunSession* s);
    RunSession* active() const { return active_; }
    const QList<RunSession*>& sessions() const { return sessions_; }
    bool contains(RunSession* s) const { return sessions_.contains(s); }
    /// The host of a remote session (nullptr for a local one).
    RemoteHost* hostOf(RunSession* s) const { return hostOf_.value(s); }

signals:
    /// A new session, before it starts (it becomes the active one next).
    void opened(streetgan::ui::RunSession* session);
    /// `session` is about to be stopped and deleted.
    void closing(streetgan::ui::RunSession* session);
    /// The active run changed (nullptr: none open).
    void activeChanged(streetgan::ui::RunSession* session);
    /// New data in an open run.
    void appended(streetgan::ui::RunSession* session);
    /// The active run's connection state, for the status bar.
    void activeConnectionChanged(const QString& text);
    /// Reading or downloading in the active run: `done` of `total` (the bar hides when they meet);
    /// `format` names the work ("reading events %p%").
    void activeProgress(qint64 done, qint64 total, const QString& format);
    /// A message for the status bar, shown `ms` milliseconds.
    void statusMessage(const QString& text, int ms);
    /// A failure; `todo` says what the user can do (empty: a status-bar message is enough).
    void errorOccurred(const QString& what, const QString& todo);

private:
    /// Wires `s` (the same for local and remote runs), makes it active and starts it.
    RunSession* add(RunSession* s);

    std::unique_ptr<HostListModel> hosts_;
    QList<RunSession*> sessions_;  ///< owned
    QHash<RunSession*, RemoteHost*> hostOf_;
    QPointer<RunSession> active_;
};

}  // namespace streetgan::ui
