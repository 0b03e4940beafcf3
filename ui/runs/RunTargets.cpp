#include "runs/RunTargets.h"

#include <QCoreApplication>

#include "remote/HostListModel.h"

namespace streetgan::ui {

RunTargets::RunTargets(const QString& workspace, const HostListModel* hosts) {
    // This computer can always train (its trainer's absence shows when the start fails).
    targets_ << Target{QCoreApplication::translate("RunTargets", "This computer (%1)").arg(workspace), QString(), nullptr, workspace};
    if (!hosts) return;
    const QStringList labels = hosts->labels();
    for (int i = 0; i < hosts->hosts().size(); ++i) {
        RemoteHost* host = hosts->hosts().at(i);
        const bool slurm = host->config().isSlurm();
        const QString label = slurm ? QCoreApplication::translate("RunTargets", "Slurm cluster via %1").arg(labels.value(i)) : labels.value(i);
        targets_ << Target{label, HostListModel::cannotTrainReason(host), host, host->config().root, slurm};
    }
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
