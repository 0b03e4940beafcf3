// `streetgan-trainer invert` through the real binary (issue 44 item 1): a synthetic street photo
// projected into the demo naive-64, with --json, --out and --session-out (which `render` then
// plays), the same seed giving the same z; and each bad input refused with one stderr line, its
// exit code, and no file written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "support/CliRunner.h"
#include "support/TempDir.h"

using namespace streetgan::test;
namespace fs = std::filesystem;

namespace {

const std::string kCheckpoint = std::string(STREETGAN_DEMO_DIR) + "/naive-64-synthetic.pt";

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// One synthetic street scene (640 x 480 JPEG) from `data synth`: a photo the model never saw.
std::string streetPhoto(const CliRunner& cli, const TempDir& dir) {
    const CliResult r = cli.run({"data", "synth", "--count", "1", "--seed", "424242", "--out", dir / "held"});
    EXPECT_EQ(r.code, 0) << r.err;
    return dir / "held/synthetic/0.jpg";
}

std::vector<std::string> invertArgs(const std::string& checkpoint, const std::string& image, const TempDir& dir) {
    return {"invert", "--checkpoint", checkpoint, "--image",        image,           "--restarts",      "2", "--steps", "12", "--candidates", "8", "--threads",
            "2",      "--json",       "--out",    dir / "pair.png", "--session-out", dir / "found.json"};
}

}  // namespace

TEST(InvertCli, WritesJsonPairAndSession) {
    TempDir dir;
    CliRunner cli(dir.path().string());
    const std::string photo = streetPhoto(cli, dir);
    const CliResult r = cli.run(invertArgs(kCheckpoint, photo, dir));
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.at("z").size(), 100u);
    EXPECT_GT(j.at("psnr").get<double>(), 10.0);
    EXPECT_GT(j.at("ssim").get<double>(), 0.0);
    EXPECT_LE(j.at("ssim").get<double>(), 1.0);
    EXPECT_GT(j.at("seconds").get<double>(), 0.0);
    EXPECT_EQ(j.at("restarts"), 2);
    EXPECT_EQ(j.at("steps"), 12);
    EXPECT_EQ(j.at("checkpoint"), kCheckpoint);
    EXPECT_EQ(j.at("image"), photo);
    EXPECT_EQ(j.at("discriminator_features"), false);  // the demo holds G alone
    // Progress on stderr: a line per tenth of the steps, then one per restart.
    EXPECT_NE(r.err.find("step 12/12: loss "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("restart 2/2 after exploring: PSNR "), std::string::npos) << r.err;

    // [target | reconstruction], 64 px each with make_grid's 2 px padding.
    const cv::Mat pair = cv::imread(dir / "pair.png");
    EXPECT_EQ(pair.cols, 2 * 64 + 3 * 2);
    EXPECT_EQ(pair.rows, 64 + 2 * 2);

    // The session holds z as its keyframe and renders.
    const nlohmann::json s = nlohmann::json::parse(std::ifstream(dir / "found.json"));
    ASSERT_EQ(s.at("keyframes").size(), 1u);
    ASSERT_EQ(s.at("keyframes")[0].at("z").size(), 100u);
    for (size_t i = 0; i < 100; ++i) EXPECT_FLOAT_EQ(s["keyframes"][0]["z"][i].get<float>(), j["z"][i].get<float>());
    EXPECT_EQ(s.at("checkpoint"), fs::absolute(kCheckpoint).lexically_normal().string());
    const CliResult render = cli.run({"render", "--session", dir / "found.json", "--out", dir / "frame.png"});
    EXPECT_EQ(render.code, 0) << render.err;
    EXPECT_NE(render.out.find("1 frames"), std::string::npos) << render.out;

    // The same seed, the same z; the summary line without --json.
    const CliResult again = cli.run(invertArgs(kCheckpoint, photo, dir));
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_EQ(nlohmann::json::parse(again.out).at("z"), j.at("z"));
    const CliResult text = cli.run({"invert", "--checkpoint", kCheckpoint, "--image", photo, "--steps", "2", "--restarts", "1", "--candidates", "2"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_EQ(text.out.rfind("PSNR ", 0), 0u) << text.out;
    EXPECT_NE(text.out.find(" dB, SSIM "), std::string::npos) << text.out;
    EXPECT_EQ(lines(text.out), 1);
}

TEST(InvertCli, BadInputsOneLineAndNothingWritten) {
    TempDir dir;
    CliRunner cli(dir.path().string());
    const std::string photo = streetPhoto(cli, dir);
    std::ofstream(dir / "notes.jpg") << "not a photo\n";
    cv::Mat small(20, 30, CV_8UC3, cv::Scalar(10, 200, 30));
    cv::imwrite(dir / "small.png", small);
    // A JPEG whose header declares 65535 x 65535 pixels.
    std::vector<uchar> j;
    cv::imencode(".jpg", cv::Mat(48, 64, CV_8UC3, cv::Scalar(90, 90, 90)), j);
    for (size_t i = 2; i + 9 < j.size(); ++i)
        if (j[i] == 0xFF && j[i + 1] == 0xC0) {
            j[i + 5] = j[i + 6] = j[i + 7] = j[i + 8] = 0xFF;
            break;
        }
    std::ofstream(dir / "huge.jpg", std::ios::binary).write(reinterpret_cast<const char*>(j.data()), static_cast<std::streamsize>(j.size()));
    // A torch.save'd dict without G_state_dict (Debian's python3-torch writes it).
    const std::string noG = dir / "no-g.pt";
    ASSERT_EQ(std::system((CliRunner::quote(STREETGAN_PYTHON) + " -c \"import torch; torch.save({'epoch': 3, 'D_state_dict': {}}, '" + noG + "')\"").c_str()),
              0);

    struct Case {
        std::vector<std::string> args;
        int code;
        std::string says;
    };
    // The arguments with `option` set to `value` (replaced where invertArgs has it: CLI11 refuses an
    // option given twice).
    auto with = [&](std::vector<std::string> args, const std::vector<std::string>& more) {
        const auto it = std::find(args.begin(), args.end(), more[0]);
        if (it == args.end()) {
            args.insert(args.end(), more.begin(), more.end());
        } else {
            *(it + 1) = more[1];
        }
        return args;
    };
    const std::vector<Case> cases = {
        {invertArgs(kCheckpoint, dir / "notes.jpg", dir), 6, "not an image"},
        {invertArgs(kCheckpoint, dir / "small.png", dir), 6, "too small"},
        {invertArgs(kCheckpoint, dir / "huge.jpg", dir), 6, "pixels the loader decodes"},
        {invertArgs(kCheckpoint, dir / "missing.jpg", dir), 5, "does not exist"},
        {invertArgs(noG, photo, dir), 4, "has no G_state_dict"},
        {with(invertArgs(kCheckpoint, photo, dir), {"--crop", "600,0,100,100"}), 3, "lies outside image"},
        {with(invertArgs(kCheckpoint, photo, dir), {"--crop", "1,2,3"}), 3, "is not x,y,w,h"},
        {with(invertArgs(kCheckpoint, photo, dir), {"--out", dir / "pair.gif"}), 3, "must name a .png file"},
        {with(invertArgs(kCheckpoint, photo, dir), {"--session-out", dir / "nowhere/s.json"}), 5, "does not exist; create it first"},
    };
    for (const Case& c : cases) {
        const CliResult r = cli.run(c.args);
        std::string what;
        for (const std::string& a : c.args) what += " " + a;
        EXPECT_EQ(r.code, c.code) << what << ": " << r.err;
        EXPECT_EQ(lines(r.err), 1) << what << ": " << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << what << ": " << r.err;
        EXPECT_EQ(r.out, "") << what;
        EXPECT_FALSE(fs::exists(dir / "pair.png")) << what;
        EXPECT_FALSE(fs::exists(dir / "found.json")) << what;
    }
}
