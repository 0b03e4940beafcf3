// SftpClient against a real sshd: listing, pipelined downloads, resume, size check, cache.
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <random>

#include "base/remote/RemoteCache.h"
#include "base/remote/RemoteError.h"
#include "base/remote/SftpClient.h"
#include "base/remote/SshSession.h"
#include "support/RemoteTestBase.h"

using namespace streetgan;
using namespace streetgan::test;

namespace {
std::string randomBytes(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
}
void write(const std::string& path, const std::string& data) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << data;
}
void setMtime(const std::string& path, time_t t) {
    timeval tv[2] = {{t, 0}, {t, 0}};
    ::utimes(path.c_str(), tv);
}
time_t mtimeOf(const std::string& path) {
    struct stat st {};
    ::stat(path.c_str(), &st);
    return st.st_mtime;
}
}  // namespace

class SftpTest : public RemoteTest {
protected:
    void SetUp() override {
        RemoteTest::SetUp();
        session = SshSession::connect(options());
        sftp = std::make_unique<SftpClient>(*session);
    }
    void TearDown() override {
        sftp.reset();
        session.reset();
    }
    std::unique_ptr<SshSession> session;
    std::unique_ptr<SftpClient> sftp;
};

TEST_F(SftpTest, ListsARunsCheckpointsAndSamplesInOrder) {
    const std::string run = tmp / "remote run";
    for (const char* f : {"checkpoints/checkpoint_10.pt", "checkpoints/checkpoint_2.pt", "checkpoints/checkpoint_0.pt", "checkpoints/notes.txt",
                          "checkpoints/.checkpoint_11.pt.tmp", "checkpoints/checkpoint_2_step900.pt", "checkpoints/checkpoint_2_step850.pt",
                          "checkpoints/best.pt", "samples/step_100.png", "samples/step_20.png", "events.jsonl"})
        write(run + "/" + f, f);
    const RemoteRunFiles files = sftp->listRun(run);
    // Oldest first as CheckpointName orders them: an epoch's step files before its own file;
    // best.pt (a copy of one of them) is not listed.
    std::vector<std::string> names;
    for (const auto& f : files.checkpoints) names.push_back(f.name);
    EXPECT_EQ(names,
              (std::vector<std::string>{"checkpoint_0.pt", "checkpoint_2_step850.pt", "checkpoint_2_step900.pt", "checkpoint_2.pt", "checkpoint_10.pt"}));
    ASSERT_EQ(files.checkpoints.size(), 5u);
    EXPECT_EQ(files.checkpoints[4].size, std::string("checkpoints/checkpoint_10.pt").size());
    ASSERT_EQ(files.samples.size(), 2u);
    EXPECT_EQ(files.samples[0].name, "step_20.png");
    const auto all = sftp->list(run);
    ASSERT_EQ(all.size(), 3u);  // checkpoints, events.jsonl, samples
    EXPECT_TRUE(all[0].isDir);
    EXPECT_TRUE(all[1].isRegular);
    EXPECT_TRUE(sftp->listRun(tmp / "empty-run-missing").checkpoints.empty());
    try {
        sftp->list(tmp / "missing");
        FAIL();
    } catch (const RemoteError& e) {
        EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
    }
}

TEST_F(SftpTest, DownloadMatchesTheBytesAndKeepsTheMtime) {
    const std::string data = randomBytes(3 * 1024 * 1024 + 12345, 1);
    write(tmp / "remote/model.pt", data);
    setMtime(tmp / "remote/model.pt", 1600000000);
    for (int inFlight : {1, 4, 16}) {
        DownloadOptions opts;
        opts.requestsInFlight = inFlight;
        opts.chunkBytes = 32 * 1024;
        uint64_t lastDone = 0, total = 0;
        opts.progress = [&](uint64_t done, uint64_t t) {
            EXPECT_GE(done, lastDone);
            lastDone = done;
            total = t;
        };
        const std::string local = tmp / ("local/" + std::to_string(inFlight) + "/model.pt");
        const DownloadResult r = sftp->download(tmp / "remote/model.pt", local, opts);
        EXPECT_EQ(r.bytes, data.size());
        EXPECT_EQ(r.transferred, data.size());
        EXPECT_EQ(lastDone, data.size());
        EXPECT_EQ(total, data.size());
        EXPECT_EQ(slurp(local), data) << inFlight;
        EXPECT_EQ(mtimeOf(local), 1600000000);
        EXPECT_FALSE(exists(local + ".part"));
    }
    // Empty files too.
    write(tmp / "remote/empty", "");
    EXPECT_EQ(sftp->download(tmp / "remote/empty", tmp / "local/empty").bytes, 0u);
    EXPECT_TRUE(exists(tmp / "local/empty"));
}

TEST_F(SftpTest, ResumesAPartialDownloadFromThePartFile) {
    const std::string data = randomBytes(2 * 1024 * 1024, 2);
    write(tmp / "remote/ck.pt", data);
    setMtime(tmp / "remote/ck.pt", 1600000000);
    const size_t have = 1234567;
    write(tmp / "local/ck.pt.part", data.substr(0, have));  // mtime now: after the remote one
    const DownloadResult r = sftp->download(tmp / "remote/ck.pt", tmp / "local/ck.pt");
    EXPECT_EQ(r.resumedFrom, have);
    EXPECT_EQ(r.transferred, data.size() - have);
    EXPECT_EQ(slurp(tmp / "local/ck.pt"), data);
    EXPECT_FALSE(exists(tmp / "local/ck.pt.part"));
}

TEST_F(SftpTest, APartOlderThanTheRemoteFileStartsOver) {
    const std::string data = randomBytes(300000, 3);
    write(tmp / "remote/ck.pt", data);
    write(tmp / "local/ck.pt.part", std::string(1000, 'x'));  // from an older version of the file
    setMtime(tmp / "local/ck.pt.part", 1500000000);
    const DownloadResult r = sftp->download(tmp / "remote/ck.pt", tmp / "local/ck.pt");
    EXPECT_EQ(r.resumedFrom, 0u);
    EXPECT_EQ(slurp(tmp / "local/ck.pt"), data);
}

TEST_F(SftpTest, CancelKeepsThePartAndTheNextDownloadResumes) {
    const std::string data = randomBytes(4 * 1024 * 1024, 4);
    write(tmp / "remote/big.pt", data);
    std::atomic<bool> cancel{false};
    DownloadOptions opts;
    opts.cancel = &cancel;
    opts.progress = [&](uint64_t done, uint64_t) {
        if (done >= 1024 * 1024) cancel.store(true);
    };
    const DownloadResult first = sftp->download(tmp / "remote/big.pt", tmp / "local/big.pt", opts);
    EXPECT_TRUE(first.cancelled);
    EXPECT_FALSE(exists(tmp / "local/big.pt"));
    ASSERT_TRUE(exists(tmp / "local/big.pt.part"));
    const size_t partSize = slurp(tmp / "local/big.pt.part").size();
    EXPECT_GE(partSize, 1024u * 1024u);
    EXPECT_LT(partSize, data.size());
    const DownloadResult second = sftp->download(tmp / "remote/big.pt", tmp / "local/big.pt");
    EXPECT_EQ(second.resumedFrom, partSize);
    EXPECT_EQ(slurp(tmp / "local/big.pt"), data);
    // The session is still fine after a cancel (no stray answers left behind).
    EXPECT_EQ(sftp->stat(tmp / "remote/big.pt").size, data.size());
}

// The requests in flight grow as answers come (one more per full answer, as OpenSSH's sftp), so
// a long link fills up; they stop at the most asked for.
TEST_F(SftpTest, RequestsInFlightGrowToTheMostAskedFor) {
    const std::string data = randomBytes(8 * 1024 * 1024, 7);
    write(tmp / "remote/grow.pt", data);
    DownloadOptions opts;
    opts.requestsInFlight = 2;
    opts.maxRequestsInFlight = 24;
    opts.chunkBytes = 32 * 1024;
    const DownloadResult r = sftp->download(tmp / "remote/grow.pt", tmp / "local/grow.pt", opts);
    EXPECT_EQ(slurp(tmp / "local/grow.pt"), data);
    EXPECT_GT(r.peakRequests, 2);
    EXPECT_LE(r.peakRequests, 24);
    // A listing after the download: nothing of ours is left unread on the SFTP channel.
    EXPECT_EQ(sftp->list(tmp / "remote").size(), 1u);
}

// A run without a checkpoints folder yet has none (no error), in one listing request.
TEST_F(SftpTest, ARunWithoutCheckpointsYetListsNone) {
    std::filesystem::create_directories(tmp / "runs/fresh");
    EXPECT_TRUE(sftp->listCheckpoints(tmp / "runs/fresh").empty());
    EXPECT_TRUE(sftp->listRun(tmp / "runs/fresh").samples.empty());
}

TEST_F(SftpTest, AFileThatShrinksWhileDownloadingFailsTheSizeCheck) {
    const std::string data = randomBytes(4 * 1024 * 1024, 5);
    write(tmp / "remote/moving.pt", data);
    bool truncated = false;
    DownloadOptions opts;
    opts.requestsInFlight = 2;
    opts.progress = [&](uint64_t, uint64_t) {
        if (!truncated) {
            EXPECT_EQ(::truncate((tmp / "remote/moving.pt").c_str(), 1024 * 1024), 0);
        }
        truncated = true;
    };
    try {
        sftp->download(tmp / "remote/moving.pt", tmp / "local/moving.pt", opts);
        FAIL() << "a short file passed the size check";
    } catch (const RemoteError& e) {
        EXPECT_NE(std::string(e.what()).find("expected " + std::to_string(data.size())), std::string::npos) << e.what();
    }
    EXPECT_FALSE(exists(tmp / "local/moving.pt"));  // never renamed into place
    // The file is stable again: a new download succeeds.
    sftp->download(tmp / "remote/moving.pt", tmp / "local/moving.pt");
    EXPECT_EQ(slurp(tmp / "local/moving.pt"), data.substr(0, 1024 * 1024));
}

TEST_F(SftpTest, CachedFileWithSameSizeAndMtimeIsNotDownloadedAgain) {
    const std::string data = randomBytes(500000, 6);
    const std::string remote = tmp / "runs/a/checkpoints/checkpoint_1.pt";
    write(remote, data);
    setMtime(remote, 1600000000);
    const RemoteCache cache(tmp / "cache");
    DownloadResult r;
    const std::string local = sftp->fetchToCache(cache, remote, {}, &r);
    EXPECT_EQ(local, cache.pathFor(RemoteCache::hostKey("127.0.0.1", target->port()), remote));
    EXPECT_NE(local.find("/127.0.0.1_" + std::to_string(target->port()) + "/"), std::string::npos) << local;
    EXPECT_FALSE(r.upToDate);
    EXPECT_EQ(slurp(local), data);
    sftp->fetchToCache(cache, remote, {}, &r);
    EXPECT_TRUE(r.upToDate);
    EXPECT_EQ(r.transferred, 0u);
    // A new version on the server (other mtime) is downloaded again.
    const std::string data2 = randomBytes(500000, 7);
    write(remote, data2);
    setMtime(remote, 1600000100);
    sftp->fetchToCache(cache, remote, {}, &r);
    EXPECT_FALSE(r.upToDate);
    EXPECT_EQ(slurp(local), data2);
}

TEST_F(SftpTest, DownloadsThroughTheJumpHost) {
    startJump();
    SshOptions o = options();
    o.jump = "127.0.0.1:" + std::to_string(jump->port());
    auto s = SshSession::connect(o);
    SftpClient viaJump(*s);
    const std::string data = randomBytes(2 * 1024 * 1024, 8);
    write(tmp / "remote/j.pt", data);
    viaJump.download(tmp / "remote/j.pt", tmp / "local/j.pt");
    EXPECT_EQ(slurp(tmp / "local/j.pt"), data);
    EXPECT_GT(s->tunnelBytes(), data.size());
}
