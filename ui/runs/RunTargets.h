// Where a new run can start, in the order New run's "Train on" lists them: this computer first
// (its runs under the workspace; started through LocalRunStarter, i.e. LocalRunLauncher), then each
// SSH host of the host list (its runs under the host's runs folder; started through RemoteHost,
// i.e. SshRunLauncher on the host's worker). One list for the dialog's rows and for where the
// chosen row starts, so a new kind of launcher (a Slurm cluster, several hosts as one run) is a
// new kind of row here, not a second index rule in the window. With two plain SSH hosts or more,
// a last row "Several hosts" starts one run across hosts chosen from them (MultiHostRuns). A
// snapshot: take a new one when the hosts change.
// GUI thread.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include "runs/MultiHostFields.h"

namespace streetgan::ui {

class HostListModel;
class RemoteHost;

class RunTargets {
public:
    struct Target {
        QString label;               ///< as "Train on" lists it
        QString unavailable;         ///< why it cannot train now; empty: it can
        RemoteHost* host = nullptr;  ///< the SSH host; nullptr: this computer
        QString root;                ///< the folder a new run goes under (on the target)
        /// The host is a Slurm login node (HostConfig::scheduler): the run is submitted as a job
        /// (RemoteHost::submitRun, i.e. SlurmRunLauncher) instead of started on the host.
        bool slurm = false;
        /// The "Several hosts" row: a run across some of `hosts` (the plain SSH hosts, in the host
        /// list's order), chosen in NewRunDialog's MultiHostFields.
        bool multiHost = false;
        QList<RemoteHost*> hosts;
    };

    /// `hosts` may be null (no host list: this computer only).
    RunTargets(const QString& workspace, const HostListModel* hosts);
    const QList<Target>& targets() const { return targets_; }
    /// The target of the dialog's row `index`; this computer's for an index out of range.
    Target at(int index) const { return targets_.value(index, targets_.front()); }
    /// The rows' labels and reasons, as NewRunDialog takes them.
    QStringList labels() const;
    QStringList unavailable() const;
    /// Which rows are Slurm login nodes, as NewRunDialog::setSlurmTargets takes them.
    QList<bool> slurm() const;
    /// The "Several hosts" row's index, -1 when there is none (fewer than two plain SSH hosts).
    int multiHostRow() const;
    /// That row's hosts as NewRunDialog::setMultiHostTarget takes them.
    QList<MultiHostFields::Host> multiHostChoices() const;

private:
    QList<Target> targets_;
};

}  // namespace streetgan::ui
