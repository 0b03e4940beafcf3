// A real one-machine Slurm cluster for the tests (issue 45): Debian's munged, slurmctld and slurmd
// started as children of the test (foreground: munged -F, slurmctld -D, slurmd -D) with their
// own munge key, socket, slurm.conf, state and spool folders, pid and log files, all in `dir`, and
// free ports; nothing in /etc or /run is read or written (clients find the cluster through
// SLURM_CONF, the daemons and clients the munge socket through AuthInfo=socket=...). The
// constructor returns once `sinfo` shows the node idle (about a second); the destructor cancels
// the cluster's jobs, stops the three daemons by pid (SIGTERM, SIGKILL after a deadline), waits for
// them, and kills what is left of the jobs' processes (those whose environment names this
// cluster's slurm.conf).
//
// Settings for a fast single-node cluster (each is commented in SlurmCluster.cpp): the main
// scheduler runs every second and at once on submission (batch_sched_delay=0), a requeued job
// waits `credExpire` seconds (Slurm's minimum 5, not its 120), jobs that ended stay visible to
// `scontrol show job` for an hour (MinJobAge), no accounting (sacct has no database here). Job ids
// start at a random number (FirstJobId), so that clusters of tests running at the same time do
// not give their jobs the same ids, and with them the same derived rendezvous ports.
//
// Thread contract: one test thread owns a cluster; the const members may be called from any
// thread (each runs its own client process).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace streetgan::test {

class SlurmCluster {
public:
    struct Options {
        /// The node's CPUs as Slurm counts them; 0: this machine's processors, at least 2. More
        /// than the machine has is allowed (SlurmdParameters=config_overrides).
        int cpus = 0;
        /// The default partition "debug"'s MaxTime in Slurm's syntax ("INFINITE", "5", "00:02:00").
        std::string maxTime = "INFINITE";
        /// A second partition on the same node with no time limit; empty: none.
        std::string secondPartition;
        /// JobRequeue: batch jobs may be requeued unless they say --no-requeue.
        bool jobRequeue = true;
        /// Seconds a job credential lives, which is also how long a requeued job waits before it
        /// may start again (Slurm's minimum 5).
        int credExpire = 5;
        /// Lines appended to slurm.conf (they override the ones above where Slurm allows).
        std::vector<std::string> extraConfig;
    };

    /// Whether Debian's Slurm and munge are installed (munged, slurmctld, slurmd, sbatch, srun,
    /// squeue, scancel): the tests skip without them.
    static bool installed();

    /// Starts the cluster in `dir` (an empty folder the cluster may fill; its path plus
    /// "/munge.socket" must fit a Unix socket address). Throws std::runtime_error with the
    /// daemons' logs when it does not come up within 60 s.
    SlurmCluster(const std::string& dir, const Options& options);
    explicit SlurmCluster(const std::string& dir) : SlurmCluster(dir, Options{}) {}
    ~SlurmCluster();
    SlurmCluster(const SlurmCluster&) = delete;
    SlurmCluster& operator=(const SlurmCluster&) = delete;

    /// The slurm.conf path (what SLURM_CONF must name).
    const std::string& slurmConf() const { return conf_; }
    /// The node's name, this machine's hostname (jobs see it in SLURM_JOB_NODELIST).
    const std::string& nodeName() const { return node_; }
    /// The environment a client (sbatch, srun, squeue, scontrol, scancel, sinfo) needs.
    std::map<std::string, std::string> env() const;
    /// env() as shell assignments to put before a command: "SLURM_CONF='/tmp/...' ".
    std::string envPrefix() const;
    pid_t mungedPid() const { return munged_; }
    pid_t slurmctldPid() const { return slurmctld_; }
    pid_t slurmdPid() const { return slurmd_; }

    struct Result {
        int code = -1;       ///< the shell's exit status (-1: killed by a signal)
        std::string output;  ///< stdout and stderr together
    };
    /// Runs `shellCommand` through /bin/sh with env() set; waits for it.
    Result run(const std::string& shellCommand) const;
    /// `sbatch --parsable ARGS` (ARGS as shell words, already quoted); returns the job id. Throws
    /// std::runtime_error with sbatch's answer when it refuses.
    std::string submit(const std::string& sbatchArgs) const;
    /// `scontrol show job -o ID` as key=value pairs (JobState, Reason, Restarts, ExitCode, ...);
    /// empty when Slurm does not know the job.
    std::map<std::string, std::string> job(const std::string& jobId) const;
    /// Waits until the job's JobState is `state` (e.g. "COMPLETED", "RUNNING", "PENDING"); false
    /// when `deadline` passes first or the job ends in another state (COMPLETED, FAILED,
    /// CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, DEADLINE, BOOT_FAIL, PREEMPTED).
    bool waitForJobState(const std::string& jobId, const std::string& state, std::chrono::seconds deadline = std::chrono::seconds(120)) const;
    /// The job's state for a failure message: "JobState=... Reason=... ExitCode=..." and the tail
    /// of the daemons' logs.
    std::string describe(const std::string& jobId) const;
    /// The last `lines` lines of slurmctld's, slurmd's and munged's logs.
    std::string logs(int lines = 40) const;

private:
    void writeConfig(int ctldPort, int slurmdPort);
    pid_t spawn(const std::vector<std::string>& argv, const std::string& logFile) const;
    bool waitForIdle(std::chrono::seconds deadline);
    void stopDaemons();
    void killStrays() const;

    std::string dir_, conf_, node_, mungeSocket_;
    Options options_;
    int firstJobId_ = 1;
    pid_t munged_ = -1, slurmctld_ = -1, slurmd_ = -1;
};

}  // namespace streetgan::test
