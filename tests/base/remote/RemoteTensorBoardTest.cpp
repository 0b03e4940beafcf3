// A TensorBoard run of another trainer on a host where only sshd runs (no streetgan-trainer: the
// remote shell answers 127): RemoteAttach follows it over SFTP from the last offset read, through
// a restart's new event file and dropped connections, with no gap and no duplicate; listing the
// host's runs finds it over SFTP. The runs are the tensorboard_runs fixture's (SummaryWriter).
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <thread>

#include "base/follow/RunStatus.h"
#include "base/remote/RemoteAttach.h"
#include "base/remote/RemoteError.h"
#include "base/remote/SftpClient.h"
#include "base/remote/SftpEventFiles.h"
#include "base/remote/SshSession.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "support/RemoteTestBase.h"

using namespace streetgan;
using namespace streetgan::test;

namespace {

const std::filesystem::path kRuns = STREETGAN_TEST_TB_RUNS;

std::vector<std::filesystem::path> eventFiles(const std::filesystem::path& dir) {
    LocalEventFiles files;
    std::vector<std::filesystem::path> out;
    for (const auto& e : TensorBoardRun::eventFiles(files.list(dir.string()))) out.push_back(dir / e.name);
    return out;
}

class RemoteTensorBoardTest : public RemoteTest {
protected:
    void SetUp() override {
        RemoteTest::SetUp();
        root = tmp / "runs";
        run = root + "/dcgan-msls/events";
        std::filesystem::create_directories(run);
        source = eventFiles(kRuns / "reference/dcgan-msls/events");
        ASSERT_EQ(source.size(), 2u);
        std::filesystem::copy_file(source[0], std::filesystem::path(run) / source[0].filename());  // the first file; the restart's comes live
    }
    AttachOptions attachOptions() const {
        AttachOptions a;
        a.run = run;
        a.remoteTrainer = tmp / "no-such-dir/streetgan-trainer";  // the host has none
        a.initialBackoffSeconds = 0.05;
        a.maxBackoffSeconds = 0.5;
        return a;
    }
    std::string root, run;
    std::vector<std::filesystem::path> source;
};

TEST_F(RemoteTensorBoardTest, FollowsOverSftpThroughARestartAndDroppedConnectionsWithNoGapOrDuplicate) {
    RemoteAttach attach(options(), attachOptions());
    std::mutex m;
    std::vector<AttachMessage> events;
    std::atomic<int> metrics{0};
    std::atomic<bool> live{false};
    std::thread writer([&] {
        ASSERT_TRUE(waitFor([&] { return live.load(); }, 120));
        // The restart's file, appended in pieces that cut its records, while the follow goes on;
        // the connection is dropped twice on the way.
        const std::string bytes = slurp(source[1].string());
        const std::string to = run + "/" + source[1].filename().string();
        for (size_t at = 0; at < bytes.size(); at += 1500) {
            std::ofstream(to, std::ios::binary | std::ios::app).write(bytes.data() + at, std::streamsize(std::min<size_t>(1500, bytes.size() - at)));
            if (at == 3000 || at == 7500) {
                const int before = metrics.load();
                EXPECT_TRUE(waitFor([&] { return metrics.load() > before; }, 120));  // mid-stream
                target->killSessions();
            }
        }
        EXPECT_TRUE(waitFor([&] { return metrics.load() >= 60; }, 120));
        attach.stop();
    });
    std::vector<AttachStatus> statuses;
    attach.run(
        [&](const AttachMessage& msg) {
            if (msg.kind == AttachMessage::Kind::Live) {
                EXPECT_EQ(msg.state, "tensorboard");
                live = true;
            }
            if (msg.kind != AttachMessage::Kind::Event) return;
            std::lock_guard<std::mutex> lock(m);
            events.push_back(msg);
            if (msg.body["kind"] == "metrics") ++metrics;
        },
        [&](const AttachStatus& s) { statuses.push_back(s); });
    writer.join();
    // Every step once, in order; the byte ranges follow one another with no overlap.
    std::vector<int64_t> steps;
    for (size_t i = 0; i < events.size(); ++i) {
        if (i > 0) {
            EXPECT_LE(events[i - 1].end, events[i].offset) << i;
        }
        if (events[i].body["kind"] == "metrics") steps.push_back(events[i].body["step"].get<int64_t>());
    }
    ASSERT_EQ(steps.size(), 60u);
    for (size_t k = 0; k < steps.size(); ++k) EXPECT_EQ(steps[k], int64_t(k) * 128);
    EXPECT_GE(attach.connections(), 3);
    EXPECT_EQ(attach.resumeOffset(), std::filesystem::file_size(source[0]) + std::filesystem::file_size(source[1]));
}

TEST_F(RemoteTensorBoardTest, CommandsAreRefusedAndAnOwnRunWithoutTrainerIsAClearError) {
    std::filesystem::copy_file(source[1], std::filesystem::path(run) / source[1].filename());
    RemoteAttach attach(options(), attachOptions());
    std::vector<AttachMessage> replies;
    attach.sendCommand({{"cmd", "pause"}});
    attach.run([&](const AttachMessage& msg) {
        if (msg.kind == AttachMessage::Kind::Reply) replies.push_back(msg);
        if (msg.kind == AttachMessage::Kind::Live) attach.stop();
    });
    ASSERT_EQ(replies.size(), 1u);
    EXPECT_EQ(replies[0].body["ok"], false);

    // One of our runs on a host without the trainer: nothing to follow over SFTP.
    const std::string ours = root + "/ours";
    std::filesystem::create_directories(ours);
    std::ofstream(ours + "/events.jsonl") << "{\"kind\":\"status\",\"state\":\"running\"}\n";
    AttachOptions a = attachOptions();
    a.run = ours;
    try {
        RemoteAttach(options(), a).run([](const AttachMessage&) {});
        FAIL() << "no error";
    } catch (const RemoteError& e) {
        EXPECT_NE(std::string(e.what()).find("is not installed on"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("holds no TensorBoard event file"), std::string::npos) << e.what();
    }
}

TEST_F(RemoteTensorBoardTest, ListsTheHostsTensorBoardRunsOverSftp) {
    std::filesystem::create_directories(root + "/tf2-b");
    std::filesystem::copy(kRuns / "tf2/run-b", root + "/tf2-b", std::filesystem::copy_options::recursive);
    std::filesystem::create_directories(root + "/ours/tb");
    std::ofstream(root + "/ours/run.json") << "{}";
    std::filesystem::copy_file(source[1], root + "/ours/tb/" + source[1].filename().string());
    auto session = SshSession::connect(options());
    SftpClient sftp(*session);
    SftpEventFiles files(sftp);
    const auto runs = RunStatus::listTensorBoard(files, root);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].name, "dcgan-msls");  // the reference's RUNS/NAME/events/ is NAME (issue 41 item 3)
    EXPECT_EQ(runs[0].path, run);
    EXPECT_EQ(runs[0].state, "tensorboard");
    EXPECT_EQ(runs[1].name, "tf2-b");
}

}  // namespace
