// A connected remote host in the app: its connection settings (HostConfig, remembered in the
// settings without secrets), a RemoteHostWorker on its own thread for listing and starting runs,
// and the SshOptions (with the GUI prompts) that the run sessions and downloads connect with, and
// what it knows of the host's streetgan-trainer (probeTrainer, TrainerStatus).
// GUI thread.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QVariantMap>

#include "base/remote/SshOptions.h"
#include "common/RunEntry.h"
#include "remote/TrainerStatus.h"

class QThread;

namespace streetgan::ui {

class RemoteHostWorker;
class SshPrompter;

struct HostConfig {
    QString host;                           ///< host name or ~/.ssh/config alias ("user@host" allowed)
    QString user;                           ///< empty: from the config or the local user
    int port = 0;                           ///< 0: from the config or 22
    QString keyFile;                        ///< empty: agent, config and default keys
    QString jump;                           ///< [user@]host[:port][,...]; empty: the config's ProxyJump
    QString root = "streetgan-runs";        ///< where runs live on the host
    QString trainer = "streetgan-trainer";  ///< the remote binary
    QString knownHosts;                     ///< empty: ~/.ssh/known_hosts (tests set one)
    QString configFile;                     ///< empty: ~/.ssh/config

    QString label() const;
    SshOptions toSshOptions() const;
    QVariantMap toVariant() const;
    static HostConfig fromVariant(const QVariantMap& m);
};

class RemoteHost : public QObject {
    Q_OBJECT
public:
    RemoteHost(HostConfig config, SshPrompter* prompter, QObject* parent = nullptr);
    ~RemoteHost() override;
    const HostConfig& config() const { return config_; }
    QString label() const { return config_.label(); }
    /// Options with the GUI prompts, for sessions and downloads of this host.
    SshOptions sshOptions() const;
    /// Connects if needed and lists the runs under the host's root.
    void refresh();
    /// Starts `streetgan-trainer start --detach ARGS` on the host.
    void startRun(const QStringList& args);
    const RunEntryList& runs() const { return runs_; }
    /// Asks which streetgan-trainer the host runs; trainerProbed answers.
    void probeTrainer();
    const TrainerStatus& trainerStatus() const { return trainerStatus_; }
    /// Remembers `trainer` (an absolute path a set-up installed) as the host's trainer; emits
    /// configChanged so that the settings keep it.
    void setTrainer(const QString& trainer);

signals:
    void connected(const QString& label);
    void runsListed(const streetgan::ui::RunEntryList& runs);
    void runStarted(const QString& runPath);
    void failed(const QString& message);
    void busyChanged(bool busy);
    void trainerProbed(const streetgan::ui::TrainerStatus& status);
    void configChanged(const streetgan::ui::HostConfig& config);

private:
    HostConfig config_;
    SshPrompter* prompter_;
    QThread* thread_;
    RemoteHostWorker* worker_;
    RunEntryList runs_;
    TrainerStatus trainerStatus_;
    quint64 job_ = 0, startJob_ = 0;
    int busy_ = 0;
};

}  // namespace streetgan::ui
