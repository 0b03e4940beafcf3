// A Slurm cluster as a RunLauncher, reached through a CommandShell on its login node (this
// computer when it is one, an SshShell otherwise): start() submits the run as one batch job
// (SlurmSubmission: RUN/job.sbatch, sbatch, RUN/slurm.json) whose ranks run
// TrainerCommandLine::slurmTrain, and returns the run directory; state() is Slurm's (SlurmQueue:
// queued with Slurm's reason, running, finished, failed, cancelled, timed-out...), combined with
// the trainer's own state (`ls RUN --json` on the login node) while the job runs or once Slurm has
// forgotten it; stop() is scancel (a queued job leaves the queue, a running one gets SIGTERM and
// its ranks checkpoint).
//
// It lives in base/slurm, not base/launch beside the other launchers: the Slurm classes build on
// launch's CommandShell, so launch cannot include them back (the layering check's folder cycle).
//
// Thread contract: RunLauncher's (one thread at a time; the shell's own rule too).
#pragma once

#include <memory>

#include "base/launch/ShellRunLauncher.h"
#include "base/slurm/SlurmJobRecord.h"
#include "base/slurm/SlurmJobSpec.h"

namespace streetgan {

class SlurmRunLauncher : public ShellRunLauncher {
public:
    /// `job`: what every run started here asks of Slurm (nodes, tasks and GPUs per node, time
    /// limit, partition, account, extra lines); its runDir, jobName and command are start()'s.
    SlurmRunLauncher(std::unique_ptr<CommandShell> shell, TrainerCommandLine commandLine, SlurmJobSpec job);
    /// "Slurm on " + the login node's label.
    std::string label() const override { return label_; }
    /// Submits a job running `train --run-dir RUN --resume TRAIN-ARGS` on every rank; RUN is the
    /// `--run-dir` of `trainArgs` (required), a relative one taken from the login node's home
    /// folder, which is also the job's working folder (relative data paths mean what they mean for
    /// an SSH start). Returns RUN, absolute, once sbatch took the job. LaunchError with Slurm's
    /// one line when the job spec or Slurm refuses (unknown partition, no sbatch there, ...).
    std::string start(const std::vector<std::string>& trainArgs) override;
    /// Slurm's state of RUN's job; the trainer's (combined, as `ls` does) while the job runs.
    State state(const std::string& runDir) override;
    /// scancel of RUN's job. LaunchError when the job has ended already or RUN is no Slurm run.
    void stop(const std::string& runDir) override;

    /// The job spec of one start: `job` with the run directory, its name and the ranks' command.
    static SlurmJobSpec specFor(const SlurmJobSpec& job, const TrainerCommandLine& commandLine, const std::string& runDir,
                                const std::vector<std::string>& trainArgs);
    /// The value of `--run-dir` (or `--run-dir=`) in `trainArgs`; "" when there is none.
    static std::string runDirOf(const std::vector<std::string>& trainArgs);

private:
    /// RUN/slurm.json read through the shell. LaunchError when RUN has none or it is malformed.
    SlurmJobRecord record(const std::string& runDir);
    /// The login node's home folder (physical), asked once.
    std::string home();
    SlurmJobSpec job_;
    std::string label_, home_;
};

}  // namespace streetgan
