// A connected remote host in the app: its connection settings (HostConfig, remembered in the
// settings without secrets), a RemoteHostWorker on its own thread for listing and starting runs,
// and the SshOptions (with the GUI prompts) that the run sessions and downloads connect with, and
// what it knows of the host's streetgan-trainer (probeTrainer, TrainerStatus).
// GUI thread.
#pragma once

#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QVariantMap>

#include "base/remote/SshOptions.h"
#include "base/slurm/SlurmJobSpec.h"
#include "common/RunEntry.h"
#include "remote/RemoteFolder.h"
#include "remote/RemoteHostRecords.h"
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
    /// "slurm": the host is a Slurm cluster's login node, and New run submits there (sbatch, one
    /// job per run) instead of starting the trainer on it; "": runs start on the host itself.
    /// Chosen in the Connect dialog and remembered per host rather than detected (`command -v
    /// sbatch`): a GPU box may have Slurm's client tools and still train directly, and only the
    /// user knows that the runs folder is on the file system the compute nodes share.
    QString scheduler;
    static constexpr const char* kSlurm = "slurm";
    bool isSlurm() const { return scheduler == kSlurm; }

    QString label() const;
    /// Who the host is once its ~/.ssh/config is applied: "user@address:port" (SshSession::resolve,
    /// the same rule as connecting). Two configs with one identity are one host in the app: an
    /// alias and its HostName, "gpubox" and "me@gpubox:22". Falls back to label() when the
    /// config cannot be resolved (no host given).
    QString identity() const;
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
    /// HostConfig::identity(), resolved once when the host is made (HostListModel's key).
    QString identity() const { return identity_; }
    /// The last failure's one line while the host is failing (empty once a request succeeds).
    QString lastError() const { return lastError_; }
    /// Whether the host's runs were listed at least once since it was made.
    bool listed() const { return listed_; }
    /// Whether the host answered the last request (false until it first did, and after a
    /// connection failed or was lost).
    bool reachable() const { return reachable_; }
    /// Options with the GUI prompts, for sessions and downloads of this host.
    SshOptions sshOptions() const;
    /// Connects if needed and lists the runs under the host's root.
    void refresh();
    /// Lists the Runs table's records of the runs under the host's root (`ls ROOT --table --json`);
    /// recordsListed or recordsFailed answers. Its failure is the table's, not the host's state.
    void listRecords();
    /// Starts `streetgan-trainer start --detach ARGS` on the host.
    void startRun(const QStringList& args);
    /// A Slurm login node (config().isSlurm()): submits a job running `train --run-dir RUN
    /// --resume ARGS` on its ranks, as `job` asks (SlurmRunLauncher); runSubmitted or failed answers.
    void submitRun(const QStringList& args, const SlurmJobSpec& job);
    /// Cancels the Slurm job of `runDir` (scancel, queued or running); runCancelled or failed answers.
    void cancelRun(const QString& runDir);
    /// Whether `runDir` is a Slurm run of this host: submitted from here, or listed with a job.
    bool isSlurmRun(const QString& runDir) const;
    /// The listing's entry of `runDir`; nullptr when it is not listed (yet).
    const RunEntry* listedRun(const QString& runDir) const;
    const RunEntryList& runs() const { return runs_; }
    /// Asks which streetgan-trainer the host runs; trainerProbed answers.
    void probeTrainer();
    const TrainerStatus& trainerStatus() const { return trainerStatus_; }
    /// Remembers `trainer` (an absolute path a set-up installed) as the host's trainer; emits
    /// configChanged so that the settings keep it.
    void setTrainer(const QString& trainer);
    /// What a run followed from this host says of its connection (RunSession::connectionChanged):
    /// a lost one makes the host "reconnecting…" (its row, New run) until a run follows live again.
    void noteFollowConnection(bool healthy, const QString& text);
    /// The lost connection of a followed run, or empty.
    const QString& followProblem() const { return followProblem_; }
    /// Lists runs under `root` from now on (the Connect dialog's "Runs folder there" changed on a
    /// connected host); emits configChanged so that the settings keep it. Call refresh() after.
    void setRoot(const QString& root);
    /// Submits to Slurm from now on (HostConfig::scheduler); emits configChanged.
    void setScheduler(const QString& scheduler);
    /// Looks for folders of TensorBoard runs under the host's home folder (a host with another
    /// trainer's logs); tensorBoardFoldersFound answers. Not the host's failure when it fails.
    void findTensorBoardFolders();
    /// Lists one folder of the host (empty: the home folder); folderListed answers.
    void listFolder(const QString& path);

signals:
    void connected(const QString& label);
    void runsListed(const streetgan::ui::RunEntryList& runs);
    void runStarted(const QString& runPath);
    /// A run submitted to Slurm (it may wait queued: the listing shows Slurm's state and reason).
    void runSubmitted(const QString& runPath);
    void runCancelled(const QString& runPath);
    void recordsListed(const streetgan::ui::RunRecordList& records);
    void recordsFailed(const QString& message);
    /// A request failed. Emitted once per failure: while the host is failing already with the
    /// same message (the listing and the probe of one unreachable host), no second signal.
    void failed(const QString& message);
    /// lastError() or the listing changed (HostListModel repaints the row).
    void stateChanged();
    void busyChanged(bool busy);
    void trainerProbed(const streetgan::ui::TrainerStatus& status);
    void configChanged(const streetgan::ui::HostConfig& config);
    void tensorBoardFoldersFound(const QString& home, const streetgan::ui::RemoteFolderList& folders, int listed, bool cut, const QString& error);
    void folderListed(const streetgan::ui::RemoteFolder& folder);

private:
    void succeeded();
    void fail(const QString& message);
    /// While a Slurm run of the listing is queued or running, lists again in a few seconds: its
    /// state changes on the cluster, where nothing tells the app.
    void pollSlurmRuns();
    HostConfig config_;
    QString identity_, lastError_;
    bool listed_ = false;
    SshPrompter* prompter_;
    QThread* thread_;
    RemoteHostWorker* worker_;
    RunEntryList runs_;
    TrainerStatus trainerStatus_;
    quint64 job_ = 0, listJob_ = 0;  ///< every request's id counter; the newest listing's id
    QSet<quint64> startJobs_;        ///< starts in flight (their failure is not the host's)
    QSet<quint64> recordJobs_;       ///< records listings in flight (their failure is the table's)
    QString followProblem_;
    QSet<QString> submitted_;  ///< run folders submitted to Slurm from here
    bool slurmPoll_ = false;   ///< a listing of Slurm runs is due
    bool reachable_ = false;   ///< the host answered the last request (a failure then is not "not connected")
    int busy_ = 0;
};

}  // namespace streetgan::ui
