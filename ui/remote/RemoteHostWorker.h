// Worker for one remote host: keeps an SshSession on its thread and runs `streetgan-trainer ls
// ROOT --json` (the runs list), `ls ROOT --table --json` (the Runs table's records, listRecords)
// over exec channels (on a host without the trainer: its TensorBoard runs, read over SFTP),
// starts runs through the launcher seam (SshRunLauncher on its session), and probes which trainer
// the host runs (RemoteTrainerSetup::probe). Each request carries a job id that
// comes back with its result. Lives in a worker QThread; call its methods there.
#pragma once

#include <QObject>
#include <QStringList>

#include <memory>

#include "base/follow/RunStatus.h"
#include "base/remote/SshOptions.h"
#include "base/slurm/SlurmJobSpec.h"
#include "common/RunEntry.h"
#include "remote/RemoteFolder.h"
#include "remote/RemoteHostRecords.h"
#include "remote/TrainerStatus.h"

namespace streetgan {
class RunRecordCache;
class SshSession;
}  // namespace streetgan

namespace streetgan::ui {

class RemoteHostWorker : public QObject {
    Q_OBJECT
public:
    RemoteHostWorker(SshOptions ssh, QString trainer);
    ~RemoteHostWorker() override;
    void listRuns(quint64 jobId, const QString& root);
    /// The Runs table's records of the runs under `root` (`ls ROOT --table --json`, one exec);
    /// emits recordsListed, or failed (a trainer too old for --table says so). A host without
    /// the trainer: the TensorBoard runs under `root` (tensorBoardRecords), as listRuns lists them.
    void listRecords(quint64 jobId, const QString& root);
    void startRun(quint64 jobId, const QStringList& trainArgs);
    /// Submits the run to the host's Slurm cluster (SlurmRunLauncher on this session's shell);
    /// emits runSubmitted with its run folder, or failed with Slurm's line (reached).
    void submitRun(quint64 jobId, const QStringList& trainArgs, const streetgan::SlurmJobSpec& job);
    /// scancel of the run's Slurm job (SlurmRunLauncher::stop); emits runCancelled or failed.
    void cancelRun(quint64 jobId, const QString& runDir);
    /// Probes the host's trainer (the remembered one, PATH, ~/.local/bin); emits trainerProbed.
    void probeTrainer(quint64 jobId);
    /// The trainer the next commands run (after a set-up installed one elsewhere).
    void setTrainer(const QString& trainer) { trainer_ = trainer; }
    void disconnectHost();
    /// The folders under the login user's home that hold TensorBoard runs
    /// (TensorBoardDiscovery, over SFTP); emits tensorBoardFoldersFound.
    void findTensorBoardFolders(quint64 jobId);
    /// One folder's sub-folders and event files (empty `path`: the home folder); emits folderListed.
    void listFolder(quint64 jobId, const QString& path);

signals:
    void connected(const QString& label);
    void runsListed(quint64 jobId, const streetgan::ui::RunEntryList& runs);
    void recordsListed(quint64 jobId, const streetgan::ui::RunRecordList& records);
    void runStarted(quint64 jobId, const QString& runPath);
    void runSubmitted(quint64 jobId, const QString& runPath);
    void runCancelled(quint64 jobId, const QString& runPath);
    void trainerProbed(quint64 jobId, const streetgan::ui::TrainerStatus& status);
    /// `error` empty: the search listed `listed` folders (`cut`: it stopped at its bound).
    void tensorBoardFoldersFound(quint64 jobId, const QString& home, const streetgan::ui::RemoteFolderList& folders, int listed, bool cut,
                                 const QString& error);
    void folderListed(quint64 jobId, const streetgan::ui::RemoteFolder& folder);
    /// A request failed; `reached`: the host answered (the command ran and failed), else the
    /// connection could not be made or was lost.
    void failed(quint64 jobId, const QString& message, bool reached);

private:
    SshSession& session();
    /// The command line (SshShell::wrap: sh from $HOME) that prints the home folder (physical) on the first line, then runs
    /// `TRAINER ls ROOT ARGS...` from it, or prints {"runs":[]} when ROOT does not exist.
    std::string lsCommand(const std::string& root, const std::vector<std::string>& args) const;
    /// A host without the trainer: the TensorBoard runs under `root`, found over SFTP (none when
    /// it cannot be read).
    std::vector<RunInfo> tensorBoardRuns(const std::string& root);
    /// A host without the trainer: the Runs table's records of the TensorBoard runs under `root`
    /// (absolute), read over SFTP, only what their files gained since the last listing.
    RunRecordList tensorBoardRecords(const std::string& root);
    /// The home folder ($HOME, physical), asked once per connection.
    std::string home();
    /// The one line of a launcher's failure: emits failed (reached when the host answered).
    void launchFailed(quint64 jobId, const QString& doing, const std::exception& e);
    SshOptions ssh_;
    QString trainer_;
    std::unique_ptr<SshSession> session_;
    std::string home_;
    std::unique_ptr<RunRecordCache> records_;  ///< tensorBoardRecords' reads, of recordsRoot_
    std::string recordsRoot_;
};

}  // namespace streetgan::ui
