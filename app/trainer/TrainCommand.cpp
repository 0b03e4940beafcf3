#include "trainer/TrainCommand.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>
#include <variant>

#include "base/daemon/ControlServer.h"
#include "base/daemon/ControlSocket.h"
#include "base/daemon/DaemonLauncher.h"
#include "base/daemon/DaemonReadiness.h"
#include "base/daemon/RunLock.h"
#include "base/daemon/TrainControl.h"
#include "base/launch/LocalShell.h"
#include "base/model/Presets.h"
#include "base/remote/ShellQuote.h"
#include "base/run/RunDirectory.h"
#include "base/run/TrainOption.h"
#include "base/s3/ImdsClient.h"
#include "base/s3/S3CredentialChain.h"
#include "base/s3/SpotNoticeWatch.h"
#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "ml/dist/DistributedContext.h"
#include "ml/train/CheckpointSync.h"
#include "ml/train/Trainer.h"
#include "ml/util/DeviceChoice.h"
#include "trainer/ConsoleReporter.h"
#include "trainer/FiniteNumber.h"

namespace streetgan {
namespace {

std::atomic<bool> gStop{false};
void onSignal(int) { gStop.store(true); }
// Slurm's warning before the time limit (sbatch --signal=USR1@S): a stop that requeues the job.
std::atomic<bool> gRequeue{false};
void onRequeueSignal(int) {
    gRequeue.store(true);
    gStop.store(true);
}

// `scontrol requeue JOB` of the job this rank 0 runs in, after its checkpoint: Slurm ends the job
// and starts it again, from the same script, whose `train --resume` continues from there.
// scontrol runs inside the job step, so the requeue it asks for sends it SIGTERM too, often
// before it has read the answer (it then died of the signal with the job requeued): it ignores
// SIGTERM (an ignored signal stays ignored across exec); Slurm's SIGKILL comes only KillWait
// seconds later.
void requeueJob(const std::string& jobId, const std::string& runDir) {
    const ExecResult r = LocalShell().run("trap '' TERM; exec scontrol requeue " + ShellQuote::quote(jobId));
    if (r.ok()) return;
    std::string why = r.err.empty() ? r.out : r.err;
    why = why.substr(0, why.find('\n'));
    if (why.empty()) why = r.exitStatus ? "exit " + std::to_string(*r.exitStatus) : "killed by signal " + std::to_string(r.signal);
    throw Error("Slurm did not requeue job " + jobId + " at its time-limit warning (scontrol requeue: " + why +
                "); the run stopped with a checkpoint: resubmit " + runDir + "/job.sbatch to continue it");
}

void say(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

std::string environment(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

// --checkpoint-sync's bucket: the AWS chain's credentials and region, at --s3-endpoint (as the data);
// parts of --checkpoint-sync-part-size MiB.
CheckpointSync::Target syncTarget(const std::string& url, const std::string& endpoint, int64_t partSizeMib) {
    CheckpointSync::Target t;
    t.url = s3::S3Url::parse(url);
    t.partSize = static_cast<std::uint64_t>(partSizeMib) << 20;
    const auto chain = s3::S3CredentialChain::fromProcess();
    t.options.endpoint = endpoint;
    t.options.region = chain->region();
    t.credentials = [chain] { return chain->credentials(); };
    return t;
}

}  // namespace

CLI::App* TrainCommand::setup(CLI::App& parent) {
    app_ = mode_ == Mode::Train ? parent.add_subcommand("train", "Train a DCGAN in the foreground, writing a run directory")
                                : parent.add_subcommand("start", "Start a training run as a daemon (--detach) and return at once");
    auto* a = app_;
    if (mode_ == Mode::Start) {
        a->add_flag("--detach", detach_, "Run in a session of its own with a pid file, log and control socket (required)")->required();
        a->add_option("--wait", startWait_, "Seconds to wait for the daemon to be training before returning")
            ->check(FiniteNumber())
            ->check(CLI::Range(0.0, 86400.0));
    } else {
        a->add_option("--daemon-fd", daemonFd_, "internal: readiness pipe of start --detach")->group("");
    }
    a->add_option("--run-dir", runDir_, "Run directory (created if needed)")->required();
    a->add_option("--config", configFile_, "JSON file with any run.json config keys")->check(CLI::ExistingFile);
    a->add_flag("--resume", resume_, "Continue from the run directory's latest checkpoint up to --steps/--epochs");
    a->add_option("--dist-timeout", distTimeout_, "Distributed runs: seconds a rank waits for the others before it fails (rendezvous, every collective)")
        ->check(FiniteNumber())
        ->check(CLI::Range(1.0, 86400.0));
    a->add_option("--dist-backend", distBackend_,
                  "Distributed runs: auto (NCCL on CUDA, Gloo on the CPU) | nccl | gloo (also on CUDA, through host copies: several ranks on one GPU)")
        ->check(CLI::IsMember({"auto", "nccl", "gloo"}));
    // The settings: one option per row of TrainOption's table that has a flag, into flags_.
    for (const TrainOption::Spec& o : TrainOption::all())
        if (*o.flag) std::visit([&](auto ref) { addSetting(o, ref(flags_)); }, o.member);
    a->get_option("--steps")->excludes(a->get_option("--epochs"));
    // Below S3's smallest part the upload would fail at the first checkpoint: say why, before
    // CLI11's bare range (a transform runs before the checks).
    const TrainOption::Spec& part = *TrainOption::find("checkpoint_sync_part_size");
    a->get_option(TrainOption::flagName(part))
        ->transform(CLI::Validator(
            [min = static_cast<int64_t>(part.lo)](std::string& v) -> std::string {
                int64_t mib = 0;
                if (!CLI::detail::lexical_cast(v, mib) || mib >= min) return {};  // not a number: the type check says so
                return v + " MiB is below S3's smallest part, " + std::to_string(min) + " MiB: give " + std::to_string(min) + " or more";
            },
            ""));
    return app_;
}

template <class T>
void TrainCommand::addSetting(const TrainOption::Spec& o, T& value) {
    CLI::Option* opt = nullptr;
    if constexpr (std::is_same_v<T, bool>) {
        opt = app_->add_flag(o.flag, value, o.help);
    } else {
        opt = app_->add_option(o.flag, value, o.help);
        if constexpr (std::is_same_v<T, std::vector<std::string>> || std::is_same_v<T, std::array<double, 2>>) opt->delimiter(',');
        if constexpr (std::is_same_v<T, std::array<double, 2>>) {
            // A pair given one number takes the next argument as its second: say what it needs
            // when that is a flag ("--betas 0.4 --steps 3"), before FiniteNumber's "'--steps' is
            // not a finite number".
            opt->check(CLI::Validator(
                [](std::string& v) -> std::string {
                    if (v.size() > 1 && v[0] == '-' && (std::isalpha(static_cast<unsigned char>(v[1])) || v[1] == '-'))
                        return "needs two numbers separated by a comma (got the flag " + v + " as its second)";  // CLI11 puts the flag first
                    return {};
                },
                "", "PAIR"));
        }
        if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::array<double, 2>>) opt->check(FiniteNumber());
        if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::array<double, 2>>)
            if (o.lo <= o.hi) opt->check(CLI::Range(o.lo, o.hi));
        if (const auto choices = TrainOption::choices(o); !choices.empty()) opt->check(CLI::IsMember(choices));
    }
}

// The settings given as flags, as run.json keys: what TrainConfig::merge applies over the run's own
// settings and the --config file.
nlohmann::json TrainCommand::givenSettings() const {
    nlohmann::json given = nlohmann::json::object();
    auto& flags = const_cast<TrainConfig&>(flags_);  // read only
    for (const TrainOption::Spec& o : TrainOption::all())
        if (*o.flag && app_->get_option(TrainOption::flagName(o))->count() > 0) std::visit([&](auto ref) { given[o.key] = ref(flags); }, o.member);
    // --epochs on the command line replaces a --steps of run.json or the config file
    if (given.contains("epochs") && !given.contains("steps")) given["steps"] = 0;
    return given;
}

int TrainCommand::execute() {
    // A resume in a folder without checkpoints (a new machine) continues from the synced ones; rank
    // 0 alone: it reads the checkpoint for every rank.
    const auto distEnv = DistributedContext::Env::fromEnvironment();
    if (resume_ && !flags_.checkpointSync.empty() && (!distEnv || distEnv->rank == 0))
        CheckpointSync::restore(runDir_, syncTarget(flags_.checkpointSync, flags_.s3Endpoint, flags_.checkpointSyncPartSize), say);
    TrainConfig cfg;
    cfg.model = Presets::get("naive-64");  // the reference model
    cfg.model.preset = "naive-64";
    nlohmann::json resumedConfig;  // the run's own settings, which a resume continues from
    if (resume_ && std::filesystem::exists(runDir_ + "/run.json")) {
        RunDirectory existing(runDir_, /*create=*/false);
        const auto run = existing.readRunJson();
        if (run.contains("config")) {
            resumedConfig = run.at("config");
            cfg.merge(resumedConfig);
        }
    }
    nlohmann::json given = givenSettings();
    if (!configFile_.empty()) {
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(AtomicFile::read(configFile_));
        } catch (const nlohmann::json::exception& e) {
            throw ConfigError("config file '" + configFile_ + "' is not valid JSON (" + e.what() + ")");
        }
        // --preset replaces the file's preset, not the file's explicit nz/ngf/ndf/...: merge() sets
        // the preset first and lets explicit keys override it (applying --preset after the merge
        // silently dropped them).
        if (given.contains("preset") && j.is_object()) {
            j["preset"] = given["preset"];
            given.erase("preset");
        }
        cfg.merge(j);
    }
    cfg.merge(given);
    cfg.validate();
    if (!cfg.checkpointSync.empty()) s3::S3Url::parse(cfg.checkpointSync);  // a bad value is refused before anything starts
    if (resumedConfig.is_object()) cfg.checkResume(resumedConfig, runDir_ + "/run.json");

    if (mode_ == Mode::Start && DistributedContext::Env::fromEnvironment())
        throw ConfigError(
            "start --detach cannot be one rank of a distributed run (WORLD_SIZE is set, or this is a task of an srun step of several): run "
            "`streetgan-trainer launch ... -- train ...` or `srun ... streetgan-trainer train ...` instead");
    if (mode_ == Mode::Start) {
        const auto r = DaemonLauncher::launch(cfg, runDir_, resume_, std::chrono::seconds(static_cast<int64_t>(startWait_)));
        if (!r.ready)
            std::cerr << "streetgan-trainer: the trainer is still starting after " << startWait_ << " s; follow it with `streetgan-trainer attach " << r.runDir
                      << "` (log: " << r.runDir << "/trainer.log)\n";
        std::cout << r.runDir << std::endl;
        return 0;
    }
    if (daemonFd_ < 0) return runForeground(cfg);
    DaemonReadiness readiness(daemonFd_, nullptr);
    try {
        return runForeground(cfg, &readiness);
    } catch (const std::exception& e) {
        readiness.fail(exitCodeFor(e), e.what());
        throw;
    }
}

int TrainCommand::runForeground(const TrainConfig& cfg, DaemonReadiness* readiness) {
    gStop = false;
    gRequeue = false;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    // In a Slurm job, SIGUSR1 is the time-limit warning the job script asks for; elsewhere it
    // keeps its default action (it ends the process, as before).
    const char* slurmJob = std::getenv("SLURM_JOB_ID");
    const bool inSlurmJob = slurmJob && *slurmJob;
    if (inSlurmJob) std::signal(SIGUSR1, onRequeueSignal);
    if (readiness) std::signal(SIGHUP, SIG_IGN);
    // Distributed (torchrun's environment): rank 0 alone owns the run directory, its lock and the
    // control socket; it takes the lock before the rendezvous, so a busy run fails at once.
    const auto env = DistributedContext::Env::fromEnvironment();
    const bool root = !env || env->rank == 0;
    std::optional<RunLock> lock;
    TrainControl control;
    std::optional<ControlServer> server;
    if (root) {
        const RunDirectory created(runDir_, /*create=*/true);  // makes the run's folders before the lock file goes in
        lock.emplace(runDir_);
        server.emplace(ControlSocket::pathIn(runDir_), control);
    }
    std::unique_ptr<DistributedContext> dist;
    if (env)
        dist = std::make_unique<DistributedContext>(*env, distBackend_, DistributedContext::rankDevice(cfg.device, *env),
                                                    std::chrono::milliseconds(static_cast<int64_t>(distTimeout_ * 1000)));
    // The daemon's log is a file: plain lines, never the terminal bar.
    ConsoleReporter reporter(!readiness && ::isatty(STDERR_FILENO) != 0);
    TrainObserver* observer = root ? &reporter : nullptr;
    if (readiness) {
        readiness->setInner(&reporter);
        observer = readiness;
    }
    if (root) {  // the settings first, in the log or on the terminal, where the progress lines go
        const std::string settings = "settings: " + cfg.summary(env ? env->worldSize : 1) + "\n";
        std::fputs(settings.c_str(), readiness || ::isatty(STDERR_FILENO) == 0 ? stdout : stderr);
        std::fflush(stdout);
    }
    // Each checkpoint uploaded on a thread of its own (rank 0 writes them).
    std::optional<CheckpointSync> sync;
    if (root && !cfg.checkpointSync.empty()) {
        sync.emplace(runDir_, syncTarget(cfg.checkpointSync, cfg.s3Endpoint, cfg.checkpointSyncPartSize), say);
        sync->setInner(observer);
        observer = &*sync;
    }
    // EC2's two-minute spot warning stops the run as SIGTERM does (every rank watches its own
    // instance; the ranks agree on the stop).
    std::optional<s3::SpotNoticeWatch> spot;
    if (cfg.spotNotice == "auto")
        spot.emplace(s3::ImdsClient::endpointFor(environment("AWS_EC2_METADATA_DISABLED"), environment("AWS_EC2_METADATA_SERVICE_ENDPOINT")),
                     s3::SpotNoticeWatch::kInterval, [](const s3::SpotNoticeWatch::Notice& n) {
                         say("EC2 spot interruption notice: the instance is to " + (n.action.empty() ? std::string("stop") : n.action) + " at " +
                             (n.time.empty() ? n.document : n.time) + "; checkpointing and stopping");
                         gStop.store(true);
                     });
    Trainer trainer(cfg, runDir_, resume_, observer);
    if (root) trainer.setControl(&control);
    trainer.setDistributed(dist.get());
    if (inSlurmJob) {
        RequeueSignal requeue;
        requeue.signal = &gRequeue;
        if (root) requeue.requeue = [jobId = std::string(slurmJob), runDir = runDir_] { requeueJob(jobId, runDir); };
        trainer.setRequeue(std::move(requeue));
    }
    std::exception_ptr failure;
    try {
        trainer.run(gStop);
    } catch (...) {
        failure = std::current_exception();
    }
    spot.reset();
    if (sync) sync->finish();  // the last checkpoint (a stop's) is in the bucket before the process ends
    if (failure) {
        try {
            std::rethrow_exception(failure);
        } catch (const IoError& e) {
            // A full disk ends a run between checkpoints: say how to go on once there is room (the
            // checkpoint and the event log are intact, see AtomicFile and EventLog).
            const std::string what = e.what();
            if (what.find(AtomicFile::kDiskFull) == std::string::npos) throw;
            throw IoError(what + "; then continue the run with --resume (it goes on from its last checkpoint)");
        }
    }
    // A requeued job's ranks all exit 0: the job goes on, and a non-zero rank would make srun
    // (--kill-on-bad-exit) end the others before rank 0 has requeued it.
    if (trainer.requeued()) return 0;
    return gStop.load() ? static_cast<int>(ExitCode::Interrupted) : 0;
}

}  // namespace streetgan
