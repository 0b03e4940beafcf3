#include "runs/RunTargets.h"

#include <QCoreApplication>

#include "remote/HostListModel.h"
#include "remote/RemoteHost.h"

namespace streetgan::ui {

RunTargets::RunTargets(const QString& workspace, const HostListModel* hosts) {
    // This computer can always train (its trainer's absence shows when the start fails).
    targets_ << Target{QCoreApplication::translate("RunTargets", "This computer (%1)").arg(workspace), QString(), nullptr, workspace, false, false, {}};
    if (!hosts) return;
    const QStringList labels = hosts->labels();
    Target several{QCoreApplication::translate("RunTargets", "Several hosts (one run across them)"), QString(), nullptr, QString(), false, true, {}};
    for (int i = 0; i < hosts->hosts().size(); ++i) {
        RemoteHost* host = hosts->hosts().at(i);
        const bool slurm = host->config().isSlurm();
        const QString label = slurm ? QCoreApplication::translate("RunTargets", "Slurm cluster via %1").arg(labels.value(i)) : labels.value(i);
        targets_ << Target{label, HostListModel::cannotTrainReason(host), host, host->config().root, slurm, false, {}};
        if (!slurm && !host->config().trainer.isEmpty()) several.hosts << host;
    }
    if (several.hosts.size() >= 2) targets_ << several;
}

int RunTargets::multiHostRow() const {
    for (int i = 0; i < targets_.size(); ++i)
        if (targets_[i].multiHost) return i;
    return -1;
}

QList<MultiHostFields::Host> RunTargets::multiHostChoices() const {
    QList<MultiHostFields::Host> out;
    const int row = multiHostRow();
    if (row < 0) return out;
    for (RemoteHost* h : targets_[row].hosts) out << MultiHostFields::Host{h->label(), HostListModel::cannotTrainReason(h), h->config().trainer};
    return out;
}

QStringList RunTargets::labels() const {
    QStringList out;
    for (const Target& t : targets_) out << t.label;
    return out;
}

QList<bool> RunTargets::slurm() const {
    QList<bool> out;
    for (const Target& t : targets_) out << t.slurm;
    return out;
}

QStringList RunTargets::unavailable() const {
    QStringList out;
    for (const Target& t : targets_) out << t.unavailable;
    return out;
}

}  // namespace streetgan::ui
