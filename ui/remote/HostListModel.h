// The app's remote hosts, one row per host identity (HostConfig::identity(): user@address:port
// after ~/.ssh/config), whichever way the user reached it: Connect, the set-up, a recent host or
// New run. The runs sidebar shows its rows (RunsSidebar::setHostModel) and New run's "Train on"
// lists them; a host that failed stays one row, marked "not connected" (or "error" when it
// answered with a failure), with the failure in its tooltip. Owns its RemoteHosts. GUI thread.
#pragma once

#include <QAbstractListModel>
#include <QList>

#include "remote/RemoteHost.h"

namespace streetgan::ui {

class SshPrompter;

class HostListModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role { HostRole = Qt::UserRole, IdentityRole, StateRole };

    explicit HostListModel(SshPrompter* prompter, QObject* parent = nullptr);
    ~HostListModel() override;

    /// The host with `config`'s identity: the one listed already (as it is) or a new row.
    /// `created` says which.
    RemoteHost* hostFor(const HostConfig& config, bool* created = nullptr);
    RemoteHost* find(const QString& identity) const;
    RemoteHost* hostAt(int row) const { return hosts_.value(row); }
    const QList<RemoteHost*>& hosts() const { return hosts_; }
    /// The rows' labels (New run's "Train on" after "This computer").
    QStringList labels() const;
    /// One word for the host's state: "connecting…", "connected", "no runs yet", "not connected"
    /// (it cannot be reached), "error" (it answered with a failure: a file where the runs folder
    /// should be, no permission), or its trainer's summary when that needs a set-up.
    static QString stateText(const RemoteHost* host);
    /// Why a run cannot be started on `host` now ("not connected", "streetgan-trainer not
    /// installed", ...); empty when it can (reached, and its trainer checked and ready).
    static QString cannotTrainReason(const RemoteHost* host);
    /// A host never reached (an unknown alias, a wrong port: it never listed its runs and does not
    /// answer) holds nothing and can be removed from the list.
    static bool removable(const RemoteHost* host);
    /// Removes a removable() host's row and deletes the host (its sidebar group goes with it);
    /// false when it is not removable.
    bool remove(RemoteHost* host);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

signals:
    /// A host got its row (connect the window's reactions to it here, once per host).
    void hostAdded(streetgan::ui::RemoteHost* host);

private:
    void changed(RemoteHost* host);
    SshPrompter* prompter_;
    QList<RemoteHost*> hosts_;
};

}  // namespace streetgan::ui
