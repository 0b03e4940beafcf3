#include "remote/HostListModel.h"

#include <utility>

namespace streetgan::ui {

HostListModel::HostListModel(SshPrompter* prompter, QObject* parent) : QAbstractListModel(parent), prompter_(prompter) {}

HostListModel::~HostListModel() {
    // Views holding row items go first (their destroyed() handlers look the host up).
    beginResetModel();
    const QList<RemoteHost*> hosts = std::exchange(hosts_, {});
    endResetModel();
    qDeleteAll(hosts);
}

RemoteHost* HostListModel::find(const QString& identity) const {
    for (RemoteHost* h : hosts_)
        if (h->identity() == identity) return h;
    return nullptr;
}

RemoteHost* HostListModel::hostFor(const HostConfig& config, bool* created) {
    if (created) *created = false;
    // The host listed already keeps its settings (and its connection): a second row for it is
    // what the user must never see. Its trainer follows set-ups (RemoteHost::setTrainer).
    if (RemoteHost* h = find(config.identity())) return h;
    auto* host = new RemoteHost(config, prompter_);
    const int row = static_cast<int>(hosts_.size());
    beginInsertRows({}, row, row);
    hosts_ << host;
    endInsertRows();
    connect(host, &RemoteHost::stateChanged, this, [this, host] { changed(host); });
    connect(host, &RemoteHost::connected, this, [this, host] { changed(host); });
    connect(host, &RemoteHost::trainerProbed, this, [this, host] { changed(host); });
    connect(host, &RemoteHost::runsListed, this, [this, host] { changed(host); });
    if (created) *created = true;
    emit hostAdded(host);
    return host;
}

void HostListModel::changed(RemoteHost* host) {
    const int row = static_cast<int>(hosts_.indexOf(host));
    if (row >= 0) emit dataChanged(index(row), index(row));
}

QStringList HostListModel::labels() const {
    QStringList out;
    for (const RemoteHost* h : hosts_) out << h->label();
    return out;
}

QString HostListModel::stateText(const RemoteHost* h) {
    if (!h->followProblem().isEmpty()) return tr("reconnecting…");  // a followed run lost its connection
    if (!h->lastError().isEmpty()) return h->reachable() ? tr("error") : tr("not connected");
    const TrainerStatus& t = h->trainerStatus();
    // Another trainer's runs listed over SFTP: the host works, for watching (not for New run).
    if (t.state == TrainerStatus::Missing && h->listed() && !h->runs().isEmpty()) return tr("TensorBoard only");
    if (t.needsSetup()) return t.summary;
    if (h->listed() && h->runs().isEmpty()) return tr("no runs yet");
    return h->reachable() ? tr("connected") : tr("connecting…");
}

QString HostListModel::cannotTrainReason(const RemoteHost* h) {
    if (!h->followProblem().isEmpty()) return tr("connection lost, reconnecting");
    if (!h->reachable()) return h->lastError().isEmpty() ? tr("not connected yet") : tr("not connected");
    const TrainerStatus& t = h->trainerStatus();
    if (t.state == TrainerStatus::Unknown) return tr("trainer not checked yet");
    if (t.needsSetup()) return tr("streetgan-trainer %1: set it up first").arg(t.summary);
    return {};
}

bool HostListModel::removable(const RemoteHost* h) { return !h->listed() && !h->reachable(); }

bool HostListModel::remove(RemoteHost* host) {
    const int row = static_cast<int>(hosts_.indexOf(host));
    if (row < 0 || !removable(host)) return false;
    beginRemoveRows({}, row, row);
    hosts_.removeAt(row);
    endRemoveRows();
    host->deleteLater();  // the sidebar drops its group when it is destroyed
    return true;
}

int HostListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(hosts_.size()); }

QVariant HostListModel::data(const QModelIndex& index, int role) const {
    const RemoteHost* h = index.isValid() ? hosts_.value(index.row()) : nullptr;
    if (!h) return {};
    switch (role) {
        case Qt::DisplayRole:
            return h->label();
        case Qt::ToolTipRole:
            if (!h->lastError().isEmpty()) return h->lastError();
            return tr("%1 (%2), runs under %3").arg(h->label(), h->identity(), h->config().root);
        case HostRole:
            return QVariant::fromValue(const_cast<RemoteHost*>(h));
        case IdentityRole:
            return h->identity();
        case StateRole:
            return stateText(h);
        default:
            return {};
    }
}

}  // namespace streetgan::ui
