// Asks Slurm about jobs, through a CommandShell (this computer when it is the login node, the
// login node over SSH otherwise): their states with ONE squeue call for any number of jobs, then
// one sacct call for those squeue no longer knows (a job leaves slurmctld's memory MinJobAge
// seconds after it ends, 300 by default; sacct answers only where the cluster keeps accounting),
// and scancel. The commands' texts and the parsing of their output are static functions of
// their own, tested on output captured from a real cluster.
//
// Thread contract: one thread at a time (the shell's rule); the static functions are pure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/slurm/SlurmJobState.h"

namespace streetgan {

class CommandShell;

class SlurmQueue {
public:
    /// `shell` must outlive the queue.
    explicit SlurmQueue(CommandShell& shell);

    /// The states of `jobIds` Slurm knows (squeue, then sacct for the rest), by job id; a job
    /// neither knows any more is absent. Throws ConfigError when the host has no squeue (naming
    /// the host), IoError with Slurm's words when squeue fails otherwise (controller down).
    std::map<std::string, SlurmJobState> states(const std::vector<std::string>& jobIds);
    /// scancel JOB: Slurm sends SIGTERM to every rank (the trainer stops at the next step and
    /// rank 0 checkpoints), or drops the job from the queue when it has not started. Returns
    /// false, cancelling nothing, when the job has ended or Slurm no longer knows it (asked with
    /// states() first: scancel itself is silent about those); throws as states() does.
    bool cancel(const std::string& jobId);

    /// Seconds a query may take: squeue and sacct wait 18 s to a minute for a controller that
    /// does not answer (its MessageTimeout, retried), and every listing of a folder holding a Slurm
    /// run would wait with them; coreutils' `timeout` bounds them (exit 124: no answer).
    static constexpr int kQuerySeconds = 10;
    /// timeout 10 squeue --noheader --states=all --jobs=IDS --Format=JobID:|,State:|,Reason:|,exit_code:|
    /// (--states=all: with --jobs alone squeue leaves out jobs that have ended).
    static std::string squeueCommand(const std::vector<std::string>& jobIds);
    /// One state per line of that output ("1|FAILED|NonZeroExitCode|768|": exit_code is the wait
    /// status, exit code 3); lines that are not four fields are skipped.
    static std::vector<SlurmJobState> parseSqueue(const std::string& out);
    /// timeout 10 sacct -n -P -X -j IDS -o JobID,State,ExitCode,Reason
    static std::string sacctCommand(const std::vector<std::string>& jobIds);
    /// One state per line of that output ("3|FAILED|3:0|NonZeroExitCode": ExitCode is
    /// code:signal); job steps (an id with '.') and malformed lines are skipped.
    static std::vector<SlurmJobState> parseSacct(const std::string& out);
    /// The one line for a Slurm command that failed on `host`: not installed (exit 127), no
    /// answer within kQuerySeconds (124), or Slurm's own last error line.
    static std::string failure(const std::string& tool, const std::string& host, std::optional<int> exitStatus, const std::string& err);

private:
    CommandShell& shell_;
};

}  // namespace streetgan
