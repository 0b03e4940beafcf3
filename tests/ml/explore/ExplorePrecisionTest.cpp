// The explore worker's interactive path (issue 44 item 4), through ExploreOps on the demo tiny-32:
// - `frames` computes only the frames it renders, and a session edited between requests (truncation,
//   PCA amounts and count, named directions, a keyframe, the walk's shape) gives exactly the frames
//   of `render` (SessionExporter::frames) for that session, frame by frame and in runs;
// - precision: "auto" keeps float32 (render's bytes) for a generator this small; "bf16" renders
//   `frames` and `latents` in bfloat16 (said in the replies, within RenderPrecision::kMinPsnrDb of
//   float32) while `export` stays float32; bad precisions are one line each.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/latent/LatentSession.h"
#include "base/util/ContentHash.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/explore/ExploreOps.h"
#include "ml/export/PngSequenceWriter.h"
#include "ml/export/RenderPrecision.h"
#include "ml/export/SessionExporter.h"
#include "ml/invert/ImageSimilarity.h"
#include "support/TempDir.h"

using namespace streetgan;
using nlohmann::json;
using streetgan::test::TempDir;

namespace {

const std::string kDemo = STREETGAN_DEMO_DIR;
const std::string kCk = kDemo + "/tiny-32-synthetic.pt";

json demoSession(json patch = json::object()) {
    std::ifstream in(kDemo + "/tiny-32-walk.json");
    json j = json::parse(in);
    j["checkpoint"] = kCk;
    j["frames_per_segment"] = 5;
    j["size"] = 48;
    j.merge_patch(patch);
    return j;
}

at::Tensor payload(const ExploreReply& r) { return r.payload; }

double minPsnr(const at::Tensor& a, const at::Tensor& b) {
    auto chw = [](const at::Tensor& f) { return f.permute({0, 3, 1, 2}).to(at::kDouble).div(255.0); };
    return std::min(99.0, ImageSimilarity::psnr(chw(a), chw(b)).min().item<double>());
}

class ExplorePrecisionTest : public ::testing::Test {
protected:
    TempDir dir;
    std::atomic<bool> cancel{false};
    Generator g = ModelLoader::generator(Checkpoint::load(kCk), kCk, "", torch::kCPU);
    std::string sha = ContentHash::sha256File(kCk);

    ExploreReply run(ExploreOps& ops, const json& request) { return ops.run(request, cancel, {}); }
    at::Tensor rendered(const json& session) { return SessionExporter::frames(LatentSession::fromJson(session), g, sha, {}, nullptr, dir / "pca"); }
};

}  // namespace

TEST_F(ExplorePrecisionTest, EditedSessionsGiveRendersFramesRequestByRequest) {
    ExploreOps ops(c10::Device(c10::kCPU), dir / "pca");
    std::vector<double> night(64, 0.0);
    night[3] = 1.0;
    night[40] = -0.5;
    // One drag after another, as the explorer sends them: each request carries the edited session.
    const std::vector<json> edits{
        json::object(),
        {{"truncation", 0.7}},
        {{"truncation", 0.71}},
        {{"directions", {{{"index", 0}, {"amount", 2.0}}}}, {"pca_components", 3}, {"pca_samples", 300}},
        {{"directions", {{{"index", 0}, {"amount", 2.5}}, {{"index", 2}, {"amount", -1.0}}}}, {"pca_components", 3}, {"pca_samples", 300}},
        {{"directions", {{{"index", 4}, {"amount", 1.0}}}}, {"pca_components", 5}, {"pca_samples", 300}},
        {{"named_directions", {{{"name", "night"}, {"z", night}, {"amount", 1.5}}}}},
        {{"named_directions", {{{"name", "night"}, {"z", night}, {"amount", -3.0}}}}, {"truncation", 0.9}},
        {{"keyframes", {{{"seed", 7}}, {{"seed", 8}, {"easing", "ease-in"}}, {{"seed", 9}, {"t_range", {-0.5, 1.5}}}}}},
        {{"interpolation", "linear"}, {"loop", false}},
    };
    json session = demoSession();
    for (size_t e = 0; e < edits.size(); ++e) {
        session.merge_patch(edits[e]);
        const at::Tensor expected = rendered(session);
        const int64_t total = expected.size(0);
        for (int64_t i = 0; i < total; ++i) {
            const ExploreReply r = run(ops, {{"op", "frames"}, {"checkpoint", kCk}, {"session", session}, {"from", i}, {"count", 1}});
            ASSERT_EQ(r.fields["frame_count"], total);
            ASSERT_EQ(r.fields["precision"], "fp32");  // auto, tiny-32
            ASSERT_TRUE(torch::equal(payload(r), expected.narrow(0, i, 1))) << "edit " << e << " frame " << i << ": " << session.dump();
        }
        const ExploreReply run3 = run(ops, {{"op", "frames"}, {"checkpoint", kCk}, {"session", session}, {"from", total - 3}, {"count", 3}});
        EXPECT_TRUE(torch::equal(payload(run3), expected.narrow(0, total - 3, 3))) << "edit " << e;
    }
}

TEST_F(ExplorePrecisionTest, AutoKeepsFloat32OnASmallGenerator) {
    ExploreOps ops(c10::Device(c10::kCPU), dir / "pca");
    const ExploreReply open = run(ops, {{"op", "open"}, {"checkpoint", kCk}});
    EXPECT_EQ(open.fields["precision"], "fp32");
    EXPECT_EQ(open.fields["cpu_bf16"], RenderPrecision::cpuBf16Name());
    EXPECT_LT(open.fields["frame_gflop"].get<double>(), RenderPrecision::kAutoMinGflop);
    const ExploreReply all = run(ops, {{"op", "frames"}, {"checkpoint", kCk}, {"session", demoSession()}});
    EXPECT_TRUE(torch::equal(payload(all), rendered(demoSession())));
}

TEST_F(ExplorePrecisionTest, Bf16PreviewsAndFloat32Exports) {
    ExploreOps bf16(c10::Device(c10::kCPU), dir / "pca", 4, GeneratorChoice::Default, "bf16");
    ExploreReply open;
    try {
        open = run(bf16, {{"op", "open"}, {"checkpoint", kCk}});
    } catch (const ConfigError& e) {
        GTEST_SKIP() << "this CPU cannot run bfloat16: " << e.what();
    }
    EXPECT_EQ(open.fields["precision"], "bf16");
    const json s = demoSession({{"truncation", 0.8}});
    const at::Tensor fp32 = rendered(s);
    const ExploreReply frames = run(bf16, {{"op", "frames"}, {"checkpoint", kCk}, {"session", s}});
    EXPECT_EQ(frames.fields["precision"], "bf16");
    EXPECT_FALSE(torch::equal(payload(frames), fp32));
    EXPECT_GE(minPsnr(payload(frames), fp32), RenderPrecision::kMinPsnrDb);
    // One frame alone is that frame of the whole walk's request.
    const ExploreReply one = run(bf16, {{"op", "frames"}, {"checkpoint", kCk}, {"session", s}, {"from", 7}, {"count", 1}});
    EXPECT_TRUE(torch::equal(payload(one), payload(frames).narrow(0, 7, 1)));
    const ExploreReply lat = run(bf16, {{"op", "latents"}, {"checkpoint", kCk}, {"seeds", {1, 2, 3}}});
    EXPECT_EQ(lat.fields["precision"], "bf16");

    // export writes render's float32 frames whatever the preview precision.
    const std::string out = dir / "seq";
    run(bf16, {{"op", "export"}, {"checkpoint", kCk}, {"session", s}, {"out", out}});
    for (int64_t i : {int64_t{0}, int64_t{7}, fp32.size(0) - 1}) {
        const std::string name = PngSequenceWriter::fileName(i, fp32.size(0));
        cv::Mat bgr = cv::imread(out + "/" + name, cv::IMREAD_COLOR);
        ASSERT_FALSE(bgr.empty()) << out << "/" << name;
        cv::Mat rgb;
        cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
        const at::Tensor file = torch::from_blob(rgb.data, {1, rgb.rows, rgb.cols, 3}, torch::kUInt8).clone();
        EXPECT_TRUE(torch::equal(file, fp32.narrow(0, i, 1))) << name;
    }
}

TEST_F(ExplorePrecisionTest, BadPrecisionsAreOneLineEach) {
    try {
        ExploreOps ops(c10::Device(c10::kCPU), "", 4, GeneratorChoice::Default, "half");
        ADD_FAILURE() << "precision 'half' was accepted";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("'half'"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
    try {
        ExploreOps ops(c10::Device(c10::kCUDA, 0), "", 4, GeneratorChoice::Default, "bf16");
        ADD_FAILURE() << "bf16 on CUDA was accepted";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos) << e.what();
    }
}
