// A full disk in the middle of a training run (issue 15): during a checkpoint write and during
// an event write. The disk is the kernel's file-size limit of the trainer process
// (RLIMIT_FSIZE, set before exec): a write past it fails with EFBIG, as one on a full disk fails
// with ENOSPC; the trainer ignores SIGXFSZ (AtomicFile). Expected: the previous checkpoint stays
// as it was and loads, events.jsonl keeps whole lines only (at most its tail is missing), the
// trainer exits non-zero with one line naming the file, saying the disk is full and what to do,
// and `--resume` with room again goes on with no metrics step lost or logged twice. Where this
// process may mount (root, or a user namespace), a small tmpfs gives the real thing too: ENOSPC.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "support/CliRunner.h"
#include "support/RunProbe.h"
#include "support/TempDir.h"

using namespace streetgan::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::vector<std::string> kTiny = {"--preset",  "tiny-32", "--batch",          "4", "--log-every",        "1",    "--sample-every", "0", "--device", "cpu",
                                        "--threads", "1",       "--loader-threads", "1", "--synthetic-images", "4096", "--seed",         "5"};

class FullDisk : public ::testing::Test {
protected:
    void SetUp() override {
        // 8 steps with a checkpoint at 4 and 8: the run the full disk interrupts.
        const CliResult r = train({"--steps", "8", "--checkpoint-every", "4"}, false);
        ASSERT_EQ(r.code, 0) << r.err;
        checkpointBefore = CliRunner::slurp(checkpoint());
        eventsBefore = CliRunner::slurp(dir + "/events.jsonl");
        ASSERT_GT(checkpointBefore.size(), 1u << 20);
    }
    std::vector<std::string> trainArgs(std::vector<std::string> extra, bool resume) const {
        std::vector<std::string> args = {"train", "--run-dir", dir};
        args.insert(args.end(), kTiny.begin(), kTiny.end());
        args.insert(args.end(), extra.begin(), extra.end());
        if (resume) args.push_back("--resume");
        return args;
    }
    CliResult train(std::vector<std::string> extra, bool resume) const { return cli.run(trainArgs(std::move(extra), resume)); }
    std::string checkpoint() const { return dir + "/checkpoints/checkpoint_0.pt"; }
    // The checkpoint the full disk must leave as it was: the 8-step run's end (checkpoint_0.pt),
    // which the resume, continuing inside epoch 0, renamed to its step's name before it wrote
    // another checkpoint of that epoch (CheckpointName: one file per step).
    std::string previousCheckpoint() const {
        const std::string stepNamed = dir + "/checkpoints/checkpoint_0_step8.pt";
        return fs::exists(stepNamed) ? stepNamed : checkpoint();
    }
    // The resume's first checkpoint, the one the full disk stops (step 12, inside epoch 0).
    std::string failedCheckpoint() const { return dir + "/checkpoints/checkpoint_0_step12.pt"; }

    // The failed run's stderr is one line: the file, "the disk is full", and how to go on.
    static void expectOneDiskFullLine(const CliResult& r, const std::string& file) {
        EXPECT_NE(r.code, 0);
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(r.err.rfind("streetgan-trainer: ", 0), 0u) << r.err;
        EXPECT_NE(r.err.find("'" + file + "'"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("the disk is full"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("free some space"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("--resume"), std::string::npos) << r.err;
        std::cout << "[ message  ] " << r.err << std::flush;
    }
    // events.jsonl: the old events unchanged at its start, then whole lines only.
    void expectEventsIntact() const {
        const std::string now = CliRunner::slurp(dir + "/events.jsonl");
        EXPECT_EQ(now.compare(0, eventsBefore.size(), eventsBefore), 0) << "events.jsonl was rewritten, not appended to";
        const RawEventLog log = readRawEvents(dir);
        EXPECT_TRUE(log.badLines.empty()) << "broken line " << log.badLines.front();
        EXPECT_TRUE(log.tail.empty()) << "torn last line: " << log.tail;
    }
    void expectPreviousCheckpointKept() const {
        EXPECT_TRUE(CliRunner::slurp(previousCheckpoint()) == checkpointBefore) << "the previous checkpoint changed";
        for (const char* sub : {"", "/checkpoints", "/samples"})
            for (const auto& name : atomicTemporaries(dir + sub)) ADD_FAILURE() << name << " left behind";
        const CliResult load = cli.run({"sample", "--checkpoint", previousCheckpoint(), "--fixed-noise", "--out", tmp / "loaded.png"});
        EXPECT_EQ(load.code, 0) << load.err;
    }
    // With room again: the run resumes from the kept checkpoint (step 8) and every metrics step
    // 1..`steps` is in the log once, in order.
    void expectResumeContinues(int64_t steps) const {
        const size_t eventsAtFailure = readRawEvents(dir).events.size();
        const CliResult r = train({"--steps", std::to_string(steps)}, true);
        ASSERT_EQ(r.code, 0) << r.err;
        const RawEventLog log = readRawEvents(dir);
        EXPECT_TRUE(log.badLines.empty());
        bool resumed = false;
        for (size_t i = eventsAtFailure; i < log.events.size(); ++i)
            if (log.events[i].value("kind", "") == "status" && log.events[i].value("state", "") == "running") {
                EXPECT_EQ(log.events[i].value("step", int64_t{-1}), 8) << log.events[i];
                resumed = !log.events[i].value("resumed_from", "").empty();
            }
        EXPECT_TRUE(resumed);
        std::vector<int64_t> expected(static_cast<size_t>(steps));
        for (int64_t s = 1; s <= steps; ++s) expected[static_cast<size_t>(s - 1)] = s;
        EXPECT_EQ(metricsSteps(log.events), expected);
        EXPECT_EQ(log.events.back().value("state", ""), "finished");
    }

    TempDir tmp;
    CliRunner cli{tmp.path().string()};
    std::string dir = tmp / "run";
    std::string checkpointBefore, eventsBefore;
};

}  // namespace

TEST_F(FullDisk, DuringACheckpointWrite) {
    // 1 MiB per file: events, run.json and TensorBoard fit; the 5.6 MB checkpoint of step 12 does not.
    const CliResult r = cli.runWithFileSizeLimit(trainArgs({"--steps", "40", "--checkpoint-every", "4"}, true), 1u << 20);
    expectOneDiskFullLine(r, failedCheckpoint());
    EXPECT_NE(r.err.find("previous version kept"), std::string::npos) << r.err;
    expectPreviousCheckpointKept();
    expectEventsIntact();
    // The failure is in the log (there was room for it): the error, then the failed status.
    const RawEventLog log = readRawEvents(dir);
    ASSERT_GE(log.events.size(), 2u);
    EXPECT_EQ(log.events[log.events.size() - 2].value("kind", ""), "error");
    EXPECT_EQ(log.events.back().value("state", ""), "failed");
    expectResumeContinues(16);
}

TEST_F(FullDisk, DuringAnEventWrite) {
    // events.jsonl may grow by 1500 bytes (five or so metrics lines); no checkpoint is due.
    const uint64_t limit = eventsBefore.size() + 1500;
    const CliResult r = cli.runWithFileSizeLimit(trainArgs({"--steps", "40", "--checkpoint-every", "0"}, true), limit);
    expectOneDiskFullLine(r, dir + "/events.jsonl");
    expectEventsIntact();
    EXPECT_LE(fs::file_size(dir + "/events.jsonl"), limit);
    EXPECT_GT(metricsSteps(readRawEvents(dir).events).back(), 8) << "the run failed before it logged a step";
    expectPreviousCheckpointKept();
    expectResumeContinues(24);
}

namespace {

// A tmpfs of `bytes` at `dir`, in a mount namespace of this test process's own (the host never
// sees it; the trainer, our child, does). unmount() before the folder is removed.
class SmallTmpfs {
public:
    SmallTmpfs(const std::string& dir, uint64_t bytes) : dir_(dir) {
        fs::create_directories(dir);
        if (::unshare(CLONE_NEWNS) != 0) {
            error_ = std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
            return;
        }
        if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 || !mount(bytes, 0))
            error_ = std::string("mount -t tmpfs: ") + std::strerror(errno);
    }
    ~SmallTmpfs() {
        if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    }
    SmallTmpfs(const SmallTmpfs&) = delete;
    SmallTmpfs& operator=(const SmallTmpfs&) = delete;
    const std::string& error() const { return error_; }
    /// Frees space: the same file system, larger.
    bool grow(uint64_t bytes) { return mount(bytes, MS_REMOUNT); }

private:
    bool mount(uint64_t bytes, unsigned long flags) {
        const std::string opts = "size=" + std::to_string(bytes) + ",mode=0700";
        if (::mount("tmpfs", dir_.c_str(), "tmpfs", flags, opts.c_str()) != 0) return false;
        mounted_ = true;
        return true;
    }
    std::string dir_, error_;
    bool mounted_ = false;
};

uint64_t treeSize(const std::string& dir) {
    uint64_t total = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) total += e.file_size();
    return total;
}

}  // namespace

TEST_F(FullDisk, DuringACheckpointWriteOnAFullFileSystem) {
    // Room for the run as it is and 2 MB more: the next checkpoint's temporary (5.6 MB, written
    // beside the previous checkpoint) does not fit, so write(2) fails with ENOSPC.
    const std::string disk = tmp / "disk";
    SmallTmpfs tmpfs(disk, treeSize(dir) + (2u << 20));
    if (!tmpfs.error().empty()) GTEST_SKIP() << "cannot mount a tmpfs here (" << tmpfs.error() << "): the file-size-limit tests cover the same code";
    fs::copy(dir, disk + "/run", fs::copy_options::recursive);
    dir = disk + "/run";
    const CliResult r = train({"--steps", "40", "--checkpoint-every", "4"}, true);
    expectOneDiskFullLine(r, failedCheckpoint());
    EXPECT_NE(r.err.find("free some space and retry"), std::string::npos) << r.err;
    expectPreviousCheckpointKept();
    expectEventsIntact();
    ASSERT_TRUE(tmpfs.grow(64u << 20)) << std::strerror(errno);
    expectResumeContinues(16);
}
