// Spot and preemptible instances (issue 47 item 3), with real trainer processes and a real S3
// server on loopback (SeaweedFS): `train --checkpoint-sync s3://...` stopped by SIGTERM puts the
// checkpoint of the step it stopped at in the bucket before it exits; a second trainer in another,
// empty folder (`--resume --checkpoint-sync`, a new machine) continues from it with every step
// logged once; the EC2 spot interruption notice (an IMDSv2 server on loopback, through
// AWS_EC2_METADATA_SERVICE_ENDPOINT) stops a trainer likewise; a SIGKILLed trainer is continued
// from its last synced checkpoint; an upload that fails (no such bucket) is one line and the run
// goes on; a checkpoint larger than --checkpoint-sync-part-size goes up in parts of that size
// (S3's multipart ETag says how many), byte for byte, and a resume takes the part size back.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "base/s3/S3Client.h"
#include "base/s3/S3Error.h"
#include "base/s3/SpotImdsServer.h"
#include "base/util/Sha256.h"
#include "support/CliRunner.h"
#include "support/RankProcess.h"
#include "support/SeaweedFixture.h"
#include "support/TempDir.h"

using namespace streetgan::s3;
using streetgan::test::RankProcess;
using streetgan::test::readEvents;
using streetgan::test::SeaweedFixture;
using streetgan::test::SpotImdsServer;
using streetgan::test::TempDir;

namespace {

constexpr int kInterrupted = 130;  // ExitCode::Interrupted: a stop by signal (or the spot notice)

bool waitFor(const std::function<bool()>& done, std::chrono::seconds limit = std::chrono::seconds(240)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
}

std::vector<int64_t> metricSteps(const std::string& runDir) {
    std::vector<int64_t> steps;
    for (const auto& e : readEvents(runDir))
        if (e.value("kind", "") == "metrics") steps.push_back(e.value("step", int64_t{-1}));
    return steps;
}

int64_t lastMetricStep(const std::string& runDir) {
    const auto steps = metricSteps(runDir);
    return steps.empty() ? 0 : steps.back();
}

std::vector<int64_t> oneTo(int64_t n) {
    std::vector<int64_t> v;
    for (int64_t i = 1; i <= n; ++i) v.push_back(i);
    return v;
}

std::string sha256(const std::string& bytes) {
    streetgan::Sha256 h;
    h.update(bytes.data(), bytes.size());
    return h.finishHex();
}

// The part count S3 puts after the '-' of a multipart object's ETag ("<md5 of the parts' md5s>-N");
// 0 for an object of one PUT (a plain MD5).
uint64_t etagParts(const std::string& etag) {
    const size_t dash = etag.rfind('-');
    return dash == std::string::npos ? 0 : std::stoull(etag.substr(dash + 1));
}

class CheckpointSyncTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (const std::string reason = SeaweedFixture::unavailableReason(); !reason.empty()) GTEST_SKIP() << reason;
        std::filesystem::create_directories(dir_.file("server"));
        server_ = std::make_unique<SeaweedFixture>(dir_.file("server"));
        S3ClientOptions o;
        o.endpoint = server_->endpoint();
        client_ = std::make_unique<S3Client>("spot", o, [] {
            return S3Credentials{SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey, "", std::nullopt, "test"};
        });
        client_->createBucket();
    }

    // The trainer's environment: the keys of the test's server through the AWS chain's variables,
    // no metadata service unless a test gives one.
    std::map<std::string, std::string> environment(const std::string& imds = "") const {
        std::map<std::string, std::string> env = {{"AWS_ACCESS_KEY_ID", SeaweedFixture::kAccessKey},
                                                  {"AWS_SECRET_ACCESS_KEY", SeaweedFixture::kSecretKey},
                                                  {"AWS_SESSION_TOKEN", ""},
                                                  {"AWS_PROFILE", ""},
                                                  {"AWS_REGION", "us-east-1"},
                                                  {"HOME", dir_.path().string()},
                                                  {"OMP_NUM_THREADS", "1"}};
        if (imds.empty())
            env["AWS_EC2_METADATA_DISABLED"] = "true";
        else
            env["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds;
        return env;
    }

    // A tiny run, long enough to be stopped mid-way, a checkpoint every `every` steps, synced.
    std::unique_ptr<RankProcess> startTrainer(const std::string& runDir, const std::string& sync, int64_t every, const std::string& imds = "") const {
        std::vector<std::string> argv = {STREETGAN_TRAINER,
                                         "train",
                                         "--run-dir",
                                         runDir,
                                         "--preset",
                                         "tiny-32",
                                         "--batch",
                                         "4",
                                         "--steps",
                                         "100000",
                                         "--synthetic-images",
                                         "4096",
                                         "--log-every",
                                         "1",
                                         "--sample-every",
                                         "0",
                                         "--checkpoint-every",
                                         std::to_string(every),
                                         "--loader-threads",
                                         "1",
                                         "--threads",
                                         "1",
                                         "--metric-every-checkpoints",
                                         "0",
                                         "--checkpoint-sync",
                                         sync,
                                         "--s3-endpoint",
                                         server_->endpoint()};
        return std::make_unique<RankProcess>(argv, environment(imds), runDir + "-trainer");
    }

    // `train --resume --checkpoint-sync` in `runDir` up to `steps`, to its end.
    std::unique_ptr<RankProcess> resumeTrainer(const std::string& runDir, const std::string& sync, int64_t steps) const {
        return std::make_unique<RankProcess>(std::vector<std::string>{STREETGAN_TRAINER, "train", "--run-dir", runDir, "--resume", "--checkpoint-sync", sync,
                                                                      "--s3-endpoint", server_->endpoint(), "--steps", std::to_string(steps)},
                                             environment(), runDir + "-trainer");
    }

    nlohmann::json manifest(const std::string& prefix) const {
        try {
            return nlohmann::json::parse(client_->get(prefix + "/latest.json"));
        } catch (const S3Error&) {
            return nlohmann::json();
        }
    }

    /// The step of the prefix's manifest, 0 while there is none.
    int64_t manifestStep(const std::string& prefix) const {
        const nlohmann::json m = manifest(prefix);
        return m.is_object() ? m.value("step", int64_t{0}) : 0;
    }

    // The checkpoint a manifest names is in the bucket at the size it says.
    void expectCheckpointIn(const std::string& prefix, const nlohmann::json& m) const {
        const S3Object o = client_->head(prefix + "/" + m.at("checkpoint").get<std::string>());
        EXPECT_EQ(o.size, m.at("checkpoint_bytes").get<uint64_t>());
        EXPECT_GT(o.size, 1000U);
    }

    TempDir dir_;
    std::unique_ptr<SeaweedFixture> server_;
    std::unique_ptr<S3Client> client_;
};

}  // namespace

TEST_F(CheckpointSyncTest, SigtermUploadsTheStopCheckpointAndAnEmptyFolderContinuesWithEveryStepOnce) {
    const std::string a = dir_.file("machine-a"), b = dir_.file("machine-b");
    auto trainer = startTrainer(a, "s3://spot/runs/one", 5);
    // A periodic sync first, then the signal some steps later, mid-interval or not.
    ASSERT_TRUE(waitFor([&] { return manifest("runs/one").is_object(); })) << trainer->err();
    ASSERT_TRUE(waitFor([&] { return lastMetricStep(a) >= manifestStep("runs/one") + 3; })) << trainer->err();
    trainer->signal(SIGTERM);
    const auto code = trainer->wait(240);
    ASSERT_TRUE(code.has_value()) << "the trainer did not stop on SIGTERM";
    EXPECT_EQ(*code, kInterrupted) << trainer->err();
    const auto events = readEvents(a);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back().value("state", ""), "stopped");
    const int64_t stopped = events.back().value("step", int64_t{-1});
    EXPECT_EQ(stopped, lastMetricStep(a));
    // The checkpoint of the stop's own step, not only the last periodic one: in the bucket.
    const nlohmann::json m = manifest("runs/one");
    ASSERT_TRUE(m.is_object());
    EXPECT_EQ(m.value("step", int64_t{-1}), stopped);
    expectCheckpointIn("runs/one", m);
    EXPECT_NE(trainer->err().find("checkpoint of step " + std::to_string(stopped) + " synced to s3://spot/runs/one"), std::string::npos) << trainer->err();

    // Another machine: an empty folder, the same prefix.
    auto resumed = resumeTrainer(b, "s3://spot/runs/one", stopped + 6);
    const auto done = resumed->wait(240);
    ASSERT_TRUE(done.has_value());
    ASSERT_EQ(*done, 0) << resumed->err();
    EXPECT_NE(resumed->err().find("continuing from s3://spot/runs/one: the checkpoint of step " + std::to_string(stopped)), std::string::npos)
        << resumed->err();
    EXPECT_EQ(metricSteps(b), oneTo(stopped + 6)) << "a gap or a step twice across the resume";
    const auto run = nlohmann::json::parse(streetgan::test::CliRunner::slurp(b + "/run.json"));
    ASSERT_TRUE(run.contains("resumes"));
    EXPECT_EQ(run["resumes"].back().value("step", int64_t{-1}), stopped);
    EXPECT_EQ(run["config"].value("checkpoint_sync", ""), "s3://spot/runs/one");
    // The resumed run syncs on: the bucket now holds its end.
    EXPECT_EQ(manifestStep("runs/one"), stopped + 6);
}

TEST_F(CheckpointSyncTest, TheSpotInterruptionNoticeStopsTheRunWithItsCheckpointInTheBucket) {
    SpotImdsServer imds;
    const std::string a = dir_.file("spot");
    auto trainer = startTrainer(a, "s3://spot/runs/two", 1000, imds.url());
    ASSERT_TRUE(waitFor([&] { return imds.polls >= 1 && lastMetricStep(a) >= 3; })) << trainer->err();
    EXPECT_TRUE(manifest("runs/two").is_null()) << "nothing synced before the notice (a checkpoint every 1000 steps)";
    imds.notice();
    const auto code = trainer->wait(240);
    ASSERT_TRUE(code.has_value()) << "the trainer did not stop at the spot notice";
    EXPECT_EQ(*code, kInterrupted) << trainer->err();
    EXPECT_NE(trainer->err().find("EC2 spot interruption notice: the instance is to terminate at 2026-11-30T12:00:00Z"), std::string::npos) << trainer->err();
    const auto events = readEvents(a);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back().value("state", ""), "stopped");
    const int64_t stopped = events.back().value("step", int64_t{-1});
    const nlohmann::json m = manifest("runs/two");
    ASSERT_TRUE(m.is_object()) << trainer->err();
    EXPECT_EQ(m.value("step", int64_t{-1}), stopped);
    expectCheckpointIn("runs/two", m);
}

TEST_F(CheckpointSyncTest, AKilledTrainerIsContinuedFromItsLastSyncedCheckpoint) {
    const std::string a = dir_.file("killed"), b = dir_.file("after-kill");
    auto trainer = startTrainer(a, "s3://spot/runs/three", 4);
    ASSERT_TRUE(waitFor([&] { return manifestStep("runs/three") >= 8; })) << trainer->err();
    trainer->signal(SIGKILL);  // no chance to upload anything more
    ASSERT_TRUE(trainer->wait(60).has_value());
    const nlohmann::json m = manifest("runs/three");
    const int64_t synced = m.value("step", int64_t{-1});
    ASSERT_GE(synced, 8);
    expectCheckpointIn("runs/three", m);

    // (A request the killed trainer had sent whole may still complete on the server after this
    // read: the resume may find the next checkpoint, hence the steps' room and the >= below.)
    auto resumed = resumeTrainer(b, "s3://spot/runs/three", synced + 8);
    const auto done = resumed->wait(240);
    ASSERT_TRUE(done.has_value());
    ASSERT_EQ(*done, 0) << resumed->err();
    const std::string said = "the checkpoint of step ";
    const size_t at = resumed->err().find(said);
    ASSERT_NE(at, std::string::npos) << resumed->err();
    const int64_t restored = std::stoll(resumed->err().substr(at + said.size()));
    EXPECT_GE(restored, synced);
    // One of the killed run's own checkpoints (how many intervals behind its last it is depends on
    // the upload's pace against the steps', not a thing to assert on a busy machine).
    bool written = false;
    for (const auto& e : readEvents(a)) written = written || (e.value("kind", "") == "checkpoint" && e.value("step", int64_t{0}) == restored);
    EXPECT_TRUE(written) << restored;
    EXPECT_EQ(metricSteps(b), oneTo(synced + 8)) << "a gap or a step twice across the resume";
}

TEST_F(CheckpointSyncTest, AnUploadThatFailsIsOneLineAndTheRunGoesOn) {
    const std::string a = dir_.file("no-bucket");
    const streetgan::test::CliRunner cli(dir_.path().string());
    std::string env = "env -u AWS_PROFILE -u AWS_SESSION_TOKEN";
    for (const auto& [k, v] : environment()) env += " " + k + "=" + streetgan::test::CliRunner::quote(v);
    const auto r = cli.run({"train",
                            "--run-dir",
                            a,
                            "--preset",
                            "tiny-32",
                            "--batch",
                            "4",
                            "--steps",
                            "12",
                            "--synthetic-images",
                            "64",
                            "--log-every",
                            "1",
                            "--sample-every",
                            "0",
                            "--checkpoint-every",
                            "4",
                            "--loader-threads",
                            "1",
                            "--metric-every-checkpoints",
                            "0",
                            "--checkpoint-sync",
                            "s3://gone/runs/four",
                            "--s3-endpoint",
                            server_->endpoint()},
                           env);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(metricSteps(a), oneTo(12));
    const std::string line = "checkpoint sync to s3://gone/runs/four failed: ";
    const size_t at = r.err.find(line);
    ASSERT_NE(at, std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(line, at + 1), std::string::npos) << "more than one line for the same failure:\n" << r.err;
    const std::string said = r.err.substr(at, r.err.find('\n', at) - at);
    EXPECT_NE(said.find("there is no bucket 'gone'"), std::string::npos) << said;
    EXPECT_NE(said.find("training goes on"), std::string::npos) << said;
}

// Issue 47: a checkpoint well above the part size goes up in parts through the trainer. naive-64's
// checkpoint (~90 MB with the optimisers' state) is the cheapest preset's above a few parts
// (tiny-32's, ~7 MB, would be two); two steps of batch 2 on one thread.
TEST_F(CheckpointSyncTest, ALargeCheckpointGoesUpInPartsOfTheGivenSizeAndAnEmptyFolderContinuesFromIt) {
    const std::string a = dir_.file("parts"), b = dir_.file("parts-resumed");
    constexpr uint64_t kPart = 5ULL << 20;
    RankProcess trainer({STREETGAN_TRAINER,
                         "train",
                         "--run-dir",
                         a,
                         "--preset",
                         "naive-64",
                         "--batch",
                         "2",
                         "--steps",
                         "2",
                         "--synthetic-images",
                         "64",
                         "--log-every",
                         "1",
                         "--sample-every",
                         "0",
                         "--loader-threads",
                         "1",
                         "--threads",
                         "1",
                         "--metric-every-checkpoints",
                         "0",
                         "--checkpoint-sync",
                         "s3://spot/runs/mp",
                         "--checkpoint-sync-part-size",
                         "5",
                         "--s3-endpoint",
                         server_->endpoint()},
                        environment(), a + "-trainer");
    const auto code = trainer.wait(300);
    ASSERT_TRUE(code.has_value()) << "the trainer did not end";
    ASSERT_EQ(*code, 0) << trainer.err();
    const nlohmann::json m = manifest("runs/mp");
    ASSERT_TRUE(m.is_object()) << trainer.err();
    EXPECT_EQ(m.value("step", int64_t{-1}), 2);
    const std::string local = a + "/checkpoints/" + m.value("checkpoint_file", "");
    ASSERT_TRUE(std::filesystem::is_regular_file(local)) << "the manifest names " << m.dump();
    const uint64_t size = std::filesystem::file_size(local);
    ASSERT_GT(size, 3 * kPart) << "the checkpoint is too small to show parts";
    const S3Object o = client_->head("runs/mp/" + m.at("checkpoint").get<std::string>());
    EXPECT_EQ(o.size, size);
    EXPECT_EQ(m.value("checkpoint_bytes", uint64_t{0}), size);
    EXPECT_EQ(etagParts(o.etag), (size + kPart - 1) / kPart) << "ETag " << o.etag << ": not a multipart upload of 5 MiB parts";
    EXPECT_EQ(sha256(client_->get("runs/mp/" + m.at("checkpoint").get<std::string>())), sha256(streetgan::test::CliRunner::slurp(local)));
    const auto run = nlohmann::json::parse(streetgan::test::CliRunner::slurp(a + "/run.json"));
    EXPECT_EQ(run["config"].value("checkpoint_sync_part_size", int64_t{0}), 5) << run.dump();

    // Another machine, an empty folder, the part size not given: the run's own comes back.
    auto resumed = resumeTrainer(b, "s3://spot/runs/mp", 4);
    const auto done = resumed->wait(300);
    ASSERT_TRUE(done.has_value());
    ASSERT_EQ(*done, 0) << resumed->err();
    EXPECT_NE(resumed->err().find("continuing from s3://spot/runs/mp: the checkpoint of step 2"), std::string::npos) << resumed->err();
    EXPECT_EQ(metricSteps(b), oneTo(4)) << "a gap or a step twice across the resume";
    const auto resumedRun = nlohmann::json::parse(streetgan::test::CliRunner::slurp(b + "/run.json"));
    EXPECT_EQ(resumedRun["config"].value("checkpoint_sync_part_size", int64_t{0}), 5) << resumedRun.dump();
    const nlohmann::json after = manifest("runs/mp");
    ASSERT_EQ(after.value("step", int64_t{-1}), 4);
    const S3Object again = client_->head("runs/mp/" + after.at("checkpoint").get<std::string>());
    EXPECT_EQ(etagParts(again.etag), (again.size + kPart - 1) / kPart) << "ETag " << again.etag << ": the resumed run did not sync in 5 MiB parts";
}

// S3 refuses parts under 5 MiB: the flag says so in one line before anything starts, and so does
// the run.json key of a --config file.
TEST(CheckpointSyncPartSize, BelowS3sSmallestPartIsRefusedInOneLine) {
    const TempDir dir;
    const streetgan::test::CliRunner cli(dir.path().string());
    const auto r = cli.run({"train", "--run-dir", dir.file("r"), "--checkpoint-sync", "s3://spot/runs/small", "--checkpoint-sync-part-size", "4"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("--checkpoint-sync-part-size: 4 MiB is below S3's smallest part, 5 MiB: give 5 or more"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("r")));

    const std::string config = dir.file("config.json");
    { std::ofstream(config) << R"({"checkpoint_sync_part_size": 4})"; }
    const auto fromFile = cli.run({"train", "--run-dir", dir.file("r"), "--config", config});
    EXPECT_NE(fromFile.code, 0);
    EXPECT_EQ(std::count(fromFile.err.begin(), fromFile.err.end(), '\n'), 1) << fromFile.err;
    EXPECT_NE(fromFile.err.find("checkpoint_sync_part_size 4 is out of range: use 5..5120"), std::string::npos) << fromFile.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("r")));
}
