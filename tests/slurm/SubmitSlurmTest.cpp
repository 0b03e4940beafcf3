// `streetgan-trainer submit`, `ls` and `control RUN stop` against a real one-node Slurm cluster
// (tests/support/SlurmCluster), through the built binary: a tiny CPU run submitted, run by srun
// and listed finished as Slurm says; a run that waits queued behind another job with Slurm's
// reason, cancelled while queued and while running; Slurm refusing a partition, no sbatch on
// PATH, and a listing while Slurm cannot be asked. It prints the times from submit to the first
// event line and to the first metrics line, and from `control RUN stop` (scancel) to the run
// listed cancelled.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/CliRunner.h"
#include "support/SlurmCluster.h"
#include "support/TempDir.h"

using namespace streetgan::test;
using Clock = std::chrono::steady_clock;

namespace {

// Polls `done` every 50 ms until it holds or `deadline` passes (a busy 2-core machine: generous).
bool waitFor(const std::function<bool()>& done, std::chrono::seconds deadline = std::chrono::seconds(120)) {
    const auto end = Clock::now() + deadline;
    while (Clock::now() < end) {
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return done();
}

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The train options of a tiny CPU run: `steps` steps on synthetic streets.
std::vector<std::string> tinyRun(int steps) {
    return {"--preset", "tiny-32", "--steps", std::to_string(steps), "--batch", "4", "--log-every", "1", "--synthetic-images", "32", "--device", "cpu"};
}

class SubmitSlurm : public ::testing::Test {
protected:
    void start(int cpus) {
        if (!streetgan::test::SlurmCluster::installed()) GTEST_SKIP() << "Slurm (slurm-wlm, munge) is not installed";
        SlurmCluster::Options o;
        o.cpus = cpus;
        std::filesystem::create_directories(tmp_.path() / "c");
        cluster_ = std::make_unique<SlurmCluster>((tmp_.path() / "c").string(), o);
        std::filesystem::create_directories(root());
    }
    std::string root() const { return tmp_ / "runs"; }
    CliResult trainer(const std::vector<std::string>& args, const std::string& extraEnv = "") const { return cli_.run(args, cluster_->envPrefix() + extraEnv); }
    CliResult submit(const std::string& name, const std::vector<std::string>& options, const std::vector<std::string>& train) const {
        std::vector<std::string> args = {"submit", "--runs", root(), "--name", name, "--json"};
        args.insert(args.end(), options.begin(), options.end());
        args.emplace_back("--");
        args.insert(args.end(), train.begin(), train.end());
        return trainer(args);
    }
    // The run of `name` as `ls ROOT --json` lists it (null when not listed).
    nlohmann::json listed(const std::string& name) const {
        const CliResult r = trainer({"ls", root(), "--json"});
        const auto j = nlohmann::json::parse(r.out, nullptr, false);
        if (j.is_discarded() || !j.contains("runs")) return nullptr;
        for (const auto& run : j["runs"])
            if (run.value("name", "") == name) return run;
        return nullptr;
    }
    std::string stateOf(const std::string& name) const {
        const auto run = listed(name);
        return run.is_null() ? std::string("(not listed)") : run.value("state", "");
    }
    std::string describe(const std::string& jobId) const { return cluster_->describe(jobId); }

    TempDir tmp_;
    CliRunner cli_{tmp_.path().string()};
    std::unique_ptr<SlurmCluster> cluster_;
};

// Events of the run in `runDir` (of `kind`; all when null).
size_t countLines(const std::string& runDir, const char* kind) {
    size_t n = 0;
    for (const auto& e : readEvents(runDir))
        if (!kind || e.value("kind", "") == kind) ++n;
    return n;
}

}  // namespace

TEST_F(SubmitSlurm, ATinyRunIsSubmittedRunByItsJobAndListedFinishedAsSlurmSays) {
    start(2);
    if (!cluster_) return;
    const auto t0 = Clock::now();
    const CliResult s = submit("tiny", {"--nodes", "1", "--tasks-per-node", "1", "--time", "00:10:00", "--signal-seconds", "60"}, tinyRun(6));
    ASSERT_EQ(s.code, 0) << s.err;
    const double submitSeconds = secondsSince(t0);
    const auto answer = nlohmann::json::parse(s.out);
    const std::string run = answer["run_dir"];
    const std::string job = answer["slurm"]["job_id"];
    EXPECT_EQ(run, root() + "/tiny");
    EXPECT_EQ(answer["script"], run + "/job.sbatch");

    // The first event line, and the first metrics line (the first point a plot draws).
    const std::string output = run + "/slurm-" + job + ".out";
    ASSERT_TRUE(waitFor([&] { return countLines(run, nullptr) > 0; })) << describe(job) << CliRunner::slurp(output);
    const double firstEvent = secondsSince(t0);
    ASSERT_TRUE(waitFor([&] { return countLines(run, "metrics") > 0; })) << describe(job);
    const double firstMetrics = secondsSince(t0);
    std::cout << "submit took " << submitSeconds << " s; submit -> first event line " << firstEvent << " s; -> first metrics line " << firstMetrics << " s\n";
    RecordProperty("submit_to_first_event_ms", static_cast<int>(firstEvent * 1000));
    RecordProperty("submit_to_first_metrics_ms", static_cast<int>(firstMetrics * 1000));

    ASSERT_TRUE(cluster_->waitForJobState(job, "COMPLETED")) << describe(job) << CliRunner::slurp(output);
    ASSERT_TRUE(waitFor([&] { return stateOf("tiny") == "finished"; })) << stateOf("tiny");
    const auto info = listed("tiny");
    EXPECT_EQ(info["slurm_job"], job);
    EXPECT_EQ(info["step"], 6);

    // What Slurm made of the script: the job's name, limit, requeue and output in the run.
    auto slurm = cluster_->job(job);
    EXPECT_EQ(slurm["JobName"], "tiny");
    EXPECT_EQ(slurm["TimeLimit"], "00:10:00");
    EXPECT_EQ(slurm["Requeue"], "1");
    EXPECT_EQ(slurm["StdOut"], run + "/slurm-" + job + ".out");
    EXPECT_EQ(slurm["NumNodes"], "1");
    const auto record = nlohmann::json::parse(CliRunner::slurp(run + "/slurm.json"));
    EXPECT_EQ(record["job_id"], job);
    EXPECT_EQ(record["time_limit"], "00:10:00");
    EXPECT_EQ(record["tasks_per_node"], 1);
    EXPECT_NE(CliRunner::slurp(output).find("status finished at step 6"), std::string::npos);

    // The text listing names the job; the Runs table has its job and reason columns.
    const CliResult text = trainer({"ls", root()});
    EXPECT_NE(text.out.find("job " + job), std::string::npos) << text.out;
    const CliResult table = trainer({"ls", root(), "--table", "--columns", "name,state,job"});
    EXPECT_NE(table.out.find("finished"), std::string::npos) << table.out << table.err;
    EXPECT_NE(table.out.find(job), std::string::npos) << table.out;
}

TEST_F(SubmitSlurm, ARunWaitsQueuedBehindAnotherWithSlurmsReasonAndStopCancelsIt) {
    start(1);  // one CPU: a second job waits for the first
    if (!cluster_) return;
    const std::string blocker = cluster_->submit("--output=/dev/null --wrap 'sleep 600'");
    ASSERT_TRUE(cluster_->waitForJobState(blocker, "RUNNING")) << describe(blocker);

    const CliResult s = submit("waits", {"--nodes", "1", "--tasks-per-node", "1"}, tinyRun(4));
    ASSERT_EQ(s.code, 0) << s.err;
    const std::string job = nlohmann::json::parse(s.out)["slurm"]["job_id"];
    nlohmann::json info;
    ASSERT_TRUE(waitFor([&] {
        info = listed("waits");
        return !info.is_null() && info.value("state", "") == "queued" && !info.value("reason", "").empty();
    })) << info.dump();
    EXPECT_EQ(info["reason"], "Resources");
    EXPECT_EQ(info["slurm_job"], job);
    EXPECT_NE(trainer({"ls", root()}).out.find("job " + job + ": Resources"), std::string::npos);

    // Stop while queued: scancel, and the run is listed cancelled; its trainer never ran.
    auto t0 = Clock::now();
    CliResult stop = trainer({"control", root() + "/waits", "stop"});
    ASSERT_EQ(stop.code, 0) << stop.err;
    EXPECT_EQ(nlohmann::json::parse(stop.out)["slurm_job"], job);
    ASSERT_TRUE(waitFor([&] { return stateOf("waits") == "cancelled"; })) << stateOf("waits");
    std::cout << "control stop (scancel) of a queued run -> listed cancelled: " << secondsSince(t0) << " s\n";
    EXPECT_FALSE(std::filesystem::exists(root() + "/waits/events.jsonl"));
    stop = trainer({"control", root() + "/waits", "stop"});
    EXPECT_EQ(stop.code, 3);
    EXPECT_NE(stop.err.find("Slurm job " + job + " of " + root() + "/waits has already ended: nothing to stop"), std::string::npos) << stop.err;

    // Stop while running: the trainer gets SIGTERM from Slurm, stops at its next step.
    ASSERT_EQ(cluster_->run("scancel " + blocker).code, 0);
    const CliResult l = submit("long", {"--nodes", "1", "--tasks-per-node", "1"}, tinyRun(1000000));
    ASSERT_EQ(l.code, 0) << l.err;
    const std::string longJob = nlohmann::json::parse(l.out)["slurm"]["job_id"];
    const std::string longRun = root() + "/long";
    ASSERT_TRUE(waitFor([&] { return countLines(longRun, "metrics") > 0; })) << describe(longJob);
    EXPECT_EQ(stateOf("long"), "running");
    t0 = Clock::now();
    stop = trainer({"control", root() + "/long", "stop"});
    ASSERT_EQ(stop.code, 0) << stop.err;
    ASSERT_TRUE(waitFor([&] { return stateOf("long") == "cancelled"; })) << stateOf("long") << describe(longJob);
    std::cout << "control stop (scancel) of a running run -> listed cancelled: " << secondsSince(t0) << " s\n";
    // The trainer's own last word, once its job has ended: it stopped (SIGTERM), not crashed.
    ASSERT_TRUE(cluster_->waitForJobState(longJob, "CANCELLED") || cluster_->job(longJob)["JobState"] == "CANCELLED") << describe(longJob);
    std::string last;
    for (const auto& e : readEvents(longRun))
        if (e.value("kind", "") == "status") last = e.value("state", "");
    EXPECT_EQ(last, "stopped") << CliRunner::slurp(root() + "/long/slurm-" + longJob + ".out");
}

TEST_F(SubmitSlurm, RefusalsAreOneLineAndLeaveNoRunBehind) {
    start(1);
    if (!cluster_) return;
    // A partition the cluster does not have: Slurm's words and ours, no run directory left.
    CliResult r = submit("nopart", {"--nodes", "1", "--tasks-per-node", "1", "--partition", "nope"}, tinyRun(2));
    EXPECT_EQ(r.code, 3);
    EXPECT_EQ(r.err, "streetgan-trainer: Slurm on this computer refused the job of " + root() +
                         "/nopart: Invalid partition name specified (--partition nope; `sinfo -s` lists the partitions)\n");
    EXPECT_FALSE(std::filesystem::exists(root() + "/nopart"));

    // No sbatch on PATH (the shell's own tools are there): one line, no run directory.
    const std::string bin = tmp_ / "bin";
    std::filesystem::create_directories(bin);
    for (const char* tool : {"mkdir", "cat", "mv", "rm", "rmdir", "sed"}) std::filesystem::create_symlink(std::string("/bin/") + tool, bin + "/" + tool);
    r = cli_.run({"submit", "--runs", root(), "--name", "nosbatch", "--nodes", "1", "--tasks-per-node", "1"}, "PATH=" + CliRunner::quote(bin));
    EXPECT_EQ(r.code, 3);
    EXPECT_EQ(r.err.rfind("streetgan-trainer: there is no sbatch on this computer's PATH: is it a Slurm login node?", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(root() + "/nosbatch"));

    // A value submit checks itself, and a run that exists already.
    r = submit("badline", {"--nodes", "1", "--tasks-per-node", "1", "--sbatch-line", "--time=5"}, {});
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("--sbatch-line '--time=5' sets --time, which the job script writes itself: use --time"), std::string::npos) << r.err;
    ASSERT_EQ(submit("twice", {"--nodes", "1", "--tasks-per-node", "1"}, tinyRun(2)).code, 0);
    r = submit("twice", {"--nodes", "1", "--tasks-per-node", "1"}, tinyRun(2));
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("the run directory " + root() + "/twice exists already on this computer: choose another --name"), std::string::npos) << r.err;

    // A listing while Slurm cannot be asked (the controller's port is closed; a MessageTimeout of
    // one second, or squeue retries for 18 s): every run still listed, one line saying why.
    std::string conf = "\n" + CliRunner::slurp(cluster_->slurmConf());
    for (const auto& [key, value] : {std::pair<std::string, std::string>{"SlurmctldPort", "1"}, {"MessageTimeout", "1"}}) {
        const auto at = conf.find("\n" + key + "=");
        ASSERT_NE(at, std::string::npos) << key;
        conf.replace(at + 1, conf.find('\n', at + 1) - at - 1, key + "=" + value);
    }
    std::ofstream(tmp_ / "down.conf") << conf;
    const CliResult ls = cli_.run({"ls", root(), "--json"}, "SLURM_CONF=" + CliRunner::quote(tmp_ / "down.conf"));
    EXPECT_EQ(ls.code, 0) << ls.err;
    EXPECT_EQ(nlohmann::json::parse(ls.out)["runs"].size(), 1u);
    EXPECT_EQ(ls.err.rfind("streetgan-trainer: cannot ask Slurm for the runs' states, shown as their trainers left them: squeue on this computer failed", 0),
              0u)
        << ls.err;
}
