// MultiHostRunLauncher with the real trainer on two "hosts": two test sshds on 127.0.0.1, each
// session with a $HOME of its own (so a relative run folder is a different folder on each host,
// as on two machines). A 2-node Gloo CPU run of tiny-32 meets, writes one run directory (rank
// 0's, world_size 2) and finishes; a run stopped through the launcher leaves no rank process on
// either host; a host whose sshd went down is one line naming it, and nothing stays running on
// the other; the CLI's `remote --host A --host B start/stop`; and dist-check over the two hosts
// (launch --detach on each) agrees with one process.
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/follow/RunStatus.h"
#include "base/launch/LaunchError.h"
#include "base/launch/MultiHostRunLauncher.h"
#include "base/launch/SshShell.h"
#include "base/launch/TrainerCommandLine.h"
#include "base/remote/RemoteError.h"
#include "base/remote/SshSession.h"
#include "support/CliRunner.h"
#include "support/RemoteTestBase.h"

using namespace streetgan;
using namespace streetgan::test;
namespace fs = std::filesystem;

namespace {

// The processes (not zombies) that have `word` as one of their arguments: the ranks and the
// launch of a run name its run folder.
std::vector<pid_t> processesWithArgument(const std::string& word) {
    std::vector<pid_t> found;
    for (const auto& e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream stat(e.path() / "stat");
        std::string statLine;
        std::getline(stat, statLine);
        const size_t paren = statLine.rfind(") ");
        if (paren == std::string::npos || statLine.compare(paren + 2, 1, "Z") == 0) continue;
        std::ifstream in(e.path() / "cmdline", std::ios::binary);
        std::string arg;
        while (std::getline(in, arg, '\0'))
            if (arg == word) {
                found.push_back(static_cast<pid_t>(std::stol(name)));
                break;
            }
    }
    return found;
}

// The process group of `pid` (-1 when it is gone).
long groupOf(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(in, line);
    const size_t paren = line.rfind(") ");
    if (paren == std::string::npos) return -1;
    std::istringstream rest(line.substr(paren + 2));
    std::string state;
    long ppid = 0, group = -1;
    rest >> state >> ppid >> group;
    return group;
}

// A process of group `pgid` that is not a zombie (the test's PID 1 may never reap the launches).
bool groupAlive(long pgid) {
    for (const auto& e : fs::directory_iterator("/proc")) {
        if (e.path().filename().string().find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in(e.path() / "stat");
        std::string line;
        std::getline(in, line);
        const size_t paren = line.rfind(") ");
        if (paren == std::string::npos) continue;
        std::istringstream rest(line.substr(paren + 2));
        std::string state;
        long ppid = 0, group = 0;
        if (rest >> state >> ppid >> group && group == pgid && state != "Z") return true;
    }
    return false;
}

class MultiHostRunLauncherTest : public RemoteTest {
protected:
    void SetUp() override {
        RemoteTest::SetUp();
        fs::create_directories(tmp / "homeA");
        fs::create_directories(tmp / "homeB");
        fs::create_directories(tmp / "a");
        fs::create_directories(tmp / "b");
        SshdFixture::Options a, b;
        a.home = tmp / "homeA";
        b.home = tmp / "homeB";
        // The base's target serves no home of its own: two fresh servers, one per "host".
        hostA = std::make_unique<SshdFixture>(tmp / "a", authorizedKeys(), a);
        hostB = std::make_unique<SshdFixture>(tmp / "b", authorizedKeys(), b);
        std::ofstream(knownHosts(), std::ios::app) << "\n" << hostA->knownHostsLine() << "\n" << hostB->knownHostsLine() << "\n";
    }
    void TearDown() override {
        // A test that failed half-way: no rank outlives it.
        for (const std::string& word : runWords)
            for (pid_t p : processesWithArgument(word)) ::kill(p, SIGKILL);
    }
    SshOptions optionsFor(const SshdFixture& server) const {
        SshOptions o = options();
        o.port = server.port();
        return o;
    }
    std::unique_ptr<MultiHostRunLauncher> launcher(MultiHostRunLauncher::Options o = {}) {
        sessionA = SshSession::connect(optionsFor(*hostA));
        sessionB = SshSession::connect(optionsFor(*hostB));
        std::vector<MultiHostRunLauncher::Host> hosts;
        hosts.push_back({std::make_unique<SshShell>(*sessionA), "127.0.0.1"});
        hosts.push_back({std::make_unique<SshShell>(*sessionB), "127.0.0.1"});
        return std::make_unique<MultiHostRunLauncher>(std::move(hosts), STREETGAN_TRAINER, o);
    }
    std::vector<std::string> tinyRun(const std::string& dir, int steps) {
        runWords.push_back(dir);
        return {"--run-dir",
                dir,
                "--preset",
                "tiny-32",
                "--steps",
                std::to_string(steps),
                "--batch",
                "4",
                "--log-every",
                "2",
                "--device",
                "cpu",
                "--threads",
                "1",
                "--loader-threads",
                "1",
                "--synthetic-images",
                "64",
                "--seed",
                "1",
                "--dist-timeout",
                "120"};
    }
    static nlohmann::json readJson(const std::string& path) { return nlohmann::json::parse(slurp(path), nullptr, false); }

    std::unique_ptr<SshdFixture> hostA, hostB;
    std::unique_ptr<SshSession> sessionA, sessionB;  // declared before the launchers that use them
    std::vector<std::string> runWords;
};

}  // namespace

TEST_F(MultiHostRunLauncherTest, TwoHostsMakeOneRunThatFinishes) {
    auto l = launcher();
    EXPECT_EQ(l->label(), sessionA->label() + ", " + sessionB->label());
    const std::string run = l->start(tinyRun("runs/two", 12));
    EXPECT_EQ(run, (tmp / "homeA/runs/two"));
    ASSERT_TRUE(waitFor([&] { return l->state(run).state == "finished"; }, 300)) << l->state(run).state << "\n" << slurp(run + "/launch-node0.log");

    // One run directory, world_size 2, every step logged once (rank 0 alone writes events).
    const nlohmann::json runJson = readJson(run + "/run.json");
    EXPECT_EQ(runJson.value("world_size", 0), 2) << runJson.dump();
    std::vector<int64_t> steps;
    for (const nlohmann::json& e : readEvents(run))
        if (e.value("kind", "") == "metrics") {
            steps.push_back(e.value("step", int64_t{-1}));
            EXPECT_EQ(e.value("world_size", 0), 2) << e.dump();
        }
    ASSERT_FALSE(steps.empty());
    for (size_t i = 1; i < steps.size(); ++i) EXPECT_LT(steps[i - 1], steps[i]) << "a step logged twice or out of order";
    // Host B has its node's log and nothing a listing shows; host A has the one run.
    EXPECT_TRUE(exists(tmp / "homeB/runs/two/launch-node1.log"));
    EXPECT_FALSE(exists(tmp / "homeB/runs/two/events.jsonl"));
    EXPECT_TRUE(RunStatus::list((tmp / "homeB/runs")).empty());
    ASSERT_EQ(RunStatus::list((tmp / "homeA/runs")).size(), 1u);
    // The nodes on record: host A node 0, host B node 1.
    const nlohmann::json nodes = readJson(run + "/nodes.json");
    ASSERT_EQ(nodes["nodes"].size(), 2u) << nodes.dump();
    EXPECT_EQ(nodes["nodes"][0]["host"], sessionA->label());
    EXPECT_EQ(nodes["nodes"][1]["host"], sessionB->label());
    EXPECT_EQ(nodes["nodes"][1]["log"], (tmp / "homeB/runs/two/launch-node1.log"));
    // Both launches end with the run.
    EXPECT_TRUE(waitFor([&] { return processesWithArgument("runs/two").empty(); }, 60));
}

TEST_F(MultiHostRunLauncherTest, StopEndsEveryRankOnEveryHost) {
    MultiHostRunLauncher::Options o;
    o.nprocPerNode = 2;  // 4 ranks: two on each host
    auto l = launcher(o);
    const std::string dir = (tmp / "shared/stopped");
    const std::string run = l->start(tinyRun(dir, 100000));
    EXPECT_EQ(l->state(run).state, "running");
    // 2 launches + 4 ranks carry the run folder among their arguments.
    EXPECT_TRUE(waitFor([&] { return processesWithArgument(dir).size() == 6; }, 60)) << processesWithArgument(dir).size();
    // The run counts as started once rank 0 holds it (its lock, events.jsonl); run.json may follow a moment later.
    nlohmann::json runJson;
    EXPECT_TRUE(waitFor([&] { return (runJson = readJson(run + "/run.json")).is_object(); }, 60));
    EXPECT_EQ(runJson.is_object() ? runJson.value("world_size", 0) : 0, 4);
    const nlohmann::json nodes = readJson(run + "/nodes.json");
    l->stop(run);
    // stop() returns once every rank is gone: no waiting here.
    EXPECT_TRUE(processesWithArgument(dir).empty());
    for (const nlohmann::json& n : nodes["nodes"]) EXPECT_FALSE(groupAlive(n["pid"].get<long>())) << "group " << n["pid"] << " is left";
    EXPECT_EQ(l->state(run).state, "stopped");

    // A launcher made later (as `remote stop` in another process) finds the run stopped: the
    // trainer's refusal, one line naming host A.
    auto again = launcher();
    try {
        again->stop(run);
        ADD_FAILURE() << "stopped a stopped run";
    } catch (const LaunchError& e) {
        EXPECT_NE(std::string(e.what()).find(sessionA->label()), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
}

TEST_F(MultiHostRunLauncherTest, AHostThatIsDownIsOneLineAndNothingIsLeftRunning) {
    MultiHostRunLauncher::Options o;
    o.killGrace = std::chrono::seconds(2);
    auto l = launcher(o);
    const std::string labelB = sessionB->label();
    hostB->stop();  // its connection drops; new ones are refused
    const std::string dir = (tmp / "shared/half");
    try {
        l->start(tinyRun(dir, 100000));
        FAIL() << "started without host B";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(labelB), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
        EXPECT_NE(m.find("every node already started was stopped"), std::string::npos) << m;
    }
    // Node 0 had started on host A: start() waited for it to go.
    EXPECT_TRUE(processesWithArgument(dir).empty()) << processesWithArgument(dir).size();
    EXPECT_FALSE(RunStatus::isRunDirectory(dir) && RunStatus::read(dir).state == "running");

    // The command line connects to every host first: host B down is its line, nothing starts.
    const CliResult r = CliRunner(tmp.path().string())
                            .run({"remote", "--host", "127.0.0.1:" + std::to_string(hostA->port()), "--host", "127.0.0.1:" + std::to_string(hostB->port()),
                                  "--identity", userKey(), "--known-hosts", knownHosts(), "--ssh-config", "none", "--remote-trainer", STREETGAN_TRAINER,
                                  "start", "--run-dir", dir + "-cli", "--steps", "5"});
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find(std::to_string(hostB->port())), std::string::npos) << r.err;
    EXPECT_FALSE(exists(dir + "-cli"));
}

TEST_F(MultiHostRunLauncherTest, TheCommandLineStartsAndStopsARunAcrossHosts) {
    const std::string dir = (tmp / "shared/cli");
    runWords.push_back(dir);
    const std::vector<std::string> remote{"remote",
                                          "--host",
                                          "127.0.0.1:" + std::to_string(hostA->port()),
                                          "--host",
                                          "127.0.0.1:" + std::to_string(hostB->port()),
                                          "--identity",
                                          userKey(),
                                          "--known-hosts",
                                          knownHosts(),
                                          "--ssh-config",
                                          "none",
                                          "--remote-trainer",
                                          STREETGAN_TRAINER};
    std::vector<std::string> start = remote;
    start.insert(start.end(), {"start", "--nproc-per-node", "1"});
    for (const std::string& a : tinyRun(dir, 100000)) start.push_back(a);
    const CliResult started = CliRunner(tmp.path().string()).run(start);
    ASSERT_EQ(started.code, 0) << started.err;
    EXPECT_EQ(TrainerCommandLine::startedRunDir(started.out), dir);
    EXPECT_EQ(RunStatus::read(dir).state, "running");
    std::vector<std::string> stop = remote;
    stop.insert(stop.end(), {"stop", dir});
    const CliResult stopped = CliRunner(tmp.path().string()).run(stop);
    EXPECT_EQ(stopped.code, 0) << stopped.err;
    EXPECT_TRUE(processesWithArgument(dir).empty());
    EXPECT_EQ(RunStatus::read(dir).state, "stopped");
}

// dist-check across the two hosts: each node a detached launch through its host's shell, node 0
// picking the port; every rank's averaged gradients agree with the whole batch in one process.
TEST_F(MultiHostRunLauncherTest, DistCheckOverTwoHostsAgreesWithOneProcess) {
    sessionA = SshSession::connect(optionsFor(*hostA));
    sessionB = SshSession::connect(optionsFor(*hostB));
    SshShell a(*sessionA), b(*sessionB);
    const TrainerCommandLine t(STREETGAN_TRAINER);
    auto words = [&](int node, const std::string& master) {
        return std::vector<std::string>{STREETGAN_TRAINER,
                                        "launch",
                                        "--detach",
                                        "--log",
                                        "check.log",
                                        "--nproc",
                                        "1",
                                        "--nnodes",
                                        "2",
                                        "--node-rank",
                                        std::to_string(node),
                                        "--master",
                                        master,
                                        "--",
                                        "dist-check",
                                        "--preset",
                                        "tiny-32",
                                        "--batch",
                                        "4",
                                        "--device",
                                        "cpu"};
    };
    const ExecResult r0 = a.run(TrainerCommandLine::shellLine(words(0, "127.0.0.1:0")));
    ASSERT_TRUE(r0.ok()) << r0.err;
    const auto node0 = TrainerCommandLine::detachedLaunch(r0.out);
    ASSERT_TRUE(node0) << r0.out;
    const ExecResult r1 = b.run(TrainerCommandLine::shellLine(words(1, node0->master)));
    ASSERT_TRUE(r1.ok()) << r1.err;
    const auto node1 = TrainerCommandLine::detachedLaunch(r1.out);
    ASSERT_TRUE(node1) << r1.out;
    EXPECT_EQ(node0->log, (tmp / "homeA/check.log"));
    EXPECT_EQ(node1->log, (tmp / "homeB/check.log"));
    auto results = [](const std::string& log) {
        std::vector<nlohmann::json> lines;
        std::istringstream in(slurp(log));
        for (std::string line; std::getline(in, line);)
            if (const auto j = nlohmann::json::parse(line, nullptr, false); j.is_object() && j.contains("ok")) lines.push_back(j);
        return lines;
    };
    ASSERT_TRUE(waitFor([&] { return !groupAlive(node0->pid) && !groupAlive(node1->pid); }, 300)) << slurp(node0->log) << slurp(node1->log);
    const auto resA = results(node0->log), resB = results(node1->log);
    ASSERT_EQ(resA.size(), 1u) << slurp(node0->log);
    ASSERT_EQ(resB.size(), 1u) << slurp(node1->log);
    EXPECT_EQ(resA[0]["rank"], 0);
    EXPECT_EQ(resB[0]["rank"], 1);
    for (const auto& j : {resA[0], resB[0]}) {
        EXPECT_EQ(j["world_size"], 2) << j.dump();
        EXPECT_TRUE(j["ok"].get<bool>()) << j.dump();
    }
}

// stop() reads the nodes from RUN/nodes.json on host 0: a damaged or foreign file, a host not
// given, or no file at all is one line naming it, and nothing is signalled.
TEST_F(MultiHostRunLauncherTest, NodesFileProblemsAreOneLineEach) {
    auto l = launcher();
    const std::string dir = tmp / "shared/nodes";
    fs::create_directories(dir);
    const std::vector<std::pair<std::string, std::string>> cases{
        {"", "was not started across hosts"},
        {"{not json", "is not a list of nodes"},
        {R"({"version":7,"nodes":[]})", "has a version this trainer does not know (7)"},
        {R"({"version":1,"nodes":[{"host":"x"}]})", "has a node without a host or a process"},
        {R"({"version":1,"nodes":[{"host":"someone@elsewhere:22","pid":4242}]})", "someone@elsewhere:22, which is not among the hosts given"},
    };
    for (const auto& [content, expected] : cases) {
        fs::remove(dir + "/nodes.json");
        if (!content.empty()) std::ofstream(dir + "/nodes.json") << content;
        try {
            l->stop(dir);
            ADD_FAILURE() << "stopped with nodes.json " << content;
        } catch (const LaunchError& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find(expected), std::string::npos) << m;
            EXPECT_EQ(m.find('\n'), std::string::npos) << m;
        }
    }
}

// launch --detach refuses what it cannot run before it starts anything: one line each.
TEST_F(MultiHostRunLauncherTest, DetachedLaunchRefusalsAreOneLine) {
    const CliRunner cli(tmp.path().string());
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"launch", "--detach", "--nproc", "1", "--", "dist-check"}, "needs --log FILE"},
        {{"launch", "--detach", "--nproc", "1", "--", "train", "--steps", "3"}, "needs --run-dir DIR"},
        {{"launch", "--detach", "--nproc", "1", "--nnodes", "2", "--node-rank", "1", "--master", "127.0.0.1:0", "--", "train", "--run-dir", "r"},
         "is not ADDR:PORT"},
        {{"launch", "--detach", "--nproc", "1", "--nnodes", "2", "--node-rank", "0", "--", "train", "--run-dir", "r"}, "needs --master ADDR:PORT"},
    };
    for (const auto& [args, expected] : cases) {
        const CliResult r = cli.run(args);
        EXPECT_EQ(r.code, 3) << r.err;
        EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(r.out, "");
    }
    EXPECT_FALSE(exists(tmp / "r"));
}

// A node that dies mid-run: rank 1 on host B killed. Rank 0 fails at its next collective with
// one line, the run shows failed (not running), and nothing of it is left on either host.
TEST_F(MultiHostRunLauncherTest, ARankKilledMidRunFailsTheRunAndLeavesNothing) {
    auto l = launcher();
    const std::string dir = tmp / "shared/killed";
    const std::string run = l->start(tinyRun(dir, 100000));
    const nlohmann::json nodes = readJson(run + "/nodes.json");
    const long groupB = nodes["nodes"][1]["pid"].get<long>();
    pid_t rank1 = -1;
    ASSERT_TRUE(waitFor(
        [&] {
            for (pid_t p : processesWithArgument(dir))
                if (groupOf(p) == groupB && p != groupB) rank1 = p;  // the train under B's launch
            return rank1 > 0;
        },
        60));
    ASSERT_EQ(::kill(rank1, SIGKILL), 0);
    ASSERT_TRUE(waitFor([&] { return l->state(run).state == "failed"; }, 120)) << l->state(run).state;
    const RunLauncher::State s = l->state(run);
    EXPECT_NE(s.reason.find("rank"), std::string::npos) << s.reason;
    EXPECT_EQ(s.reason.find('\n'), std::string::npos) << s.reason;
    EXPECT_TRUE(waitFor([&] { return processesWithArgument(dir).empty(); }, 120)) << processesWithArgument(dir).size();
}
