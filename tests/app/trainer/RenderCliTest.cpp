// `streetgan-trainer render` through the real binary: the demo session to every output kind,
// the reference project's walk (t 0..8 past both keyframes, 16 frames), --checkpoint override
// with a hash-mismatch warning, and bad input (one stderr line, non-zero exit, nothing
// half-written).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "support/CliRunner.h"
#include "support/TempDir.h"

using namespace streetgan::test;
namespace fs = std::filesystem;

namespace {

const std::string kDemo = STREETGAN_DEMO_DIR;

size_t entries(const fs::path& dir) { return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator())); }

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// The demo session, made smaller (fewer frames) so the test stays fast; written into `dir`.
std::string smallSession(const TempDir& dir, const nlohmann::json& patch = nlohmann::json::object()) {
    std::ifstream in(kDemo + "/tiny-32-walk.json");
    nlohmann::json j = nlohmann::json::parse(in);
    j["checkpoint"] = kDemo + "/tiny-32-synthetic.pt";
    j["frames_per_segment"] = 3;
    j["size"] = 64;
    j.merge_patch(patch);
    std::string path = dir / "walk.json";
    std::ofstream(path) << j.dump(2);
    return path;
}

}  // namespace

TEST(RenderCli, WritesEveryOutputKind) {
    TempDir dir;
    CliRunner cli(dir.path().string());
    const std::string session = smallSession(dir);
    const std::string cache = "XDG_CACHE_HOME=" + CliRunner::quote(dir / "cache");
    for (const std::string out : {"walk.gif", "grid.png", "walk.mp4", "frames"}) {
        const CliResult r = cli.run({"render", "--session", session, "--out", dir / out}, cache);
        ASSERT_EQ(r.code, 0) << out << ": " << r.err;
        EXPECT_NE(r.out.find("wrote " + (dir / out)), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("12 frames"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("bytes"), std::string::npos) << r.out;
        EXPECT_EQ(r.err, "") << out;
    }
    EXPECT_EQ(entries(dir.path() / "frames"), 12u);
    const cv::Mat grid = cv::imread(dir / "grid.png");
    EXPECT_EQ(grid.cols, 8 * (64 + 2) + 2);
    EXPECT_EQ(grid.rows, 2 * (64 + 2) + 2);
    const cv::Mat f0 = cv::imread(dir / "frames/frame_0000.png");
    EXPECT_EQ(f0.cols, 64);
}

TEST(RenderCli, ReferenceWalkRendersSixteenFramesPastTheKeyframes) {
    TempDir dir;
    CliRunner cli(dir.path().string());
    // The explorer's "Reference walk" (LatentSession::makeReferenceWalk) as a file: two keyframes,
    // SLERP t from 0 to 8 (torch.linspace(0, 8, 16) of gen_img_sequence_array), no loop.
    const nlohmann::json walk = {{"keyframes", nlohmann::json::parse(R"([{"seed": 2}, {"seed": 20}])")},
                                 {"interpolation", "slerp"},
                                 {"easing", "linear"},
                                 {"t_range", {0, 8}},
                                 {"frames_per_segment", 15},
                                 {"loop", false},
                                 {"truncation", 1.0},
                                 {"size", 32}};
    const std::string session = smallSession(dir, walk);
    for (const std::string out : {"walk.gif", "frames"}) {
        const CliResult r = cli.run({"render", "--session", session, "--out", dir / out});
        ASSERT_EQ(r.code, 0) << out << ": " << r.err;
        EXPECT_NE(r.out.find("16 frames 32x32"), std::string::npos) << r.out;
        EXPECT_EQ(r.err, "") << out;
    }
    EXPECT_EQ(entries(dir.path() / "frames"), 16u);
    // The same keyframes from 0 to 1: 16 frames too, the same first frame, another last one (the
    // reference walk's last is t = 8, round the circle, not keyframe 2).
    nlohmann::json plain = walk;
    plain["t_range"] = nlohmann::json::array({0, 1});
    const std::string plainSession = smallSession(dir, plain);
    const CliResult r = cli.run({"render", "--session", plainSession, "--out", dir / "plain"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(entries(dir.path() / "plain"), 16u);
    auto same = [&](const std::string& a, const std::string& b) {
        const cv::Mat x = cv::imread(dir / a), y = cv::imread(dir / b);
        return !x.empty() && x.size == y.size && cv::norm(x, y, cv::NORM_INF) == 0;
    };
    EXPECT_TRUE(same("frames/frame_0000.png", "plain/frame_0000.png"));
    EXPECT_FALSE(same("frames/frame_0015.png", "plain/frame_0015.png"));
    EXPECT_FALSE(same("frames/frame_0007.png", "plain/frame_0007.png"));
}

TEST(RenderCli, CheckpointOverrideWarnsOnHashMismatch) {
    TempDir dir;
    CliRunner cli(dir.path().string());
    const std::string session = smallSession(dir, {{"checkpoint_sha256", std::string(64, '0')}, {"frames_per_segment", 1}});
    const CliResult r = cli.run({"render", "--session", session, "--checkpoint", kDemo + "/tiny-32-synthetic.pt", "--out", dir / "w.gif"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(dir / "w.gif"));
}

TEST(RenderCli, BadInputIsOneLineAndWritesNothing) {
    TempDir dir;
    CliRunner cli(dir.path().string());
    const std::string session = smallSession(dir);
    auto refused = [&](const std::vector<std::string>& args, int code, const std::string& needle) {
        const CliResult r = cli.run(args);
        EXPECT_EQ(r.code, code) << r.err;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    };
    refused({"render", "--session", session, "--out", dir / "missing/w.gif"}, 5, "does not exist");
    std::ofstream(dir / "not-a-checkpoint.pt") << "hello";
    refused({"render", "--session", session, "--checkpoint", dir / "not-a-checkpoint.pt", "--out", dir / "w.gif"}, 4, "not-a-checkpoint.pt");
    const std::string huge = smallSession(dir, {{"size", 100000}});
    refused({"render", "--session", huge, "--out", dir / "w.gif"}, 3, "'size'");
    const std::string zero = smallSession(dir, {{"frames_per_segment", 0}});
    refused({"render", "--session", zero, "--out", dir / "w.gif"}, 3, "'frames_per_segment'");
    EXPECT_FALSE(fs::exists(dir / "w.gif"));
    EXPECT_EQ(entries(dir.path()), 4u);  // walk.json, not-a-checkpoint.pt, .stdout, .stderr
}
