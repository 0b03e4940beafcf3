// The explorer's bfloat16 preview (issue 44 item 4): RenderPrecision's rule (auto, bf16, fp32 by
// device, CPU and the frame's GFLOP), its CPU detection against /proc/cpuinfo, the frame cost of
// the presets, and the stated bound: bfloat16 frames (FrameRenderer with Precision::BFloat16) stay
// within RenderPrecision::kMinPsnrDb of the float32 frames of the same latents on the demo
// checkpoints (tiny-32, naive-64, trained) and on msls-128 with random weights; they are
// deterministic and do not depend on the batch they were rendered in (the worker renders only the
// frames asked for).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "base/model/Presets.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/FrameRenderer.h"
#include "ml/export/RenderPrecision.h"
#include "ml/invert/ImageSimilarity.h"
#include "ml/latent/LatentSeed.h"
#include "ml/model/WeightInit.h"

using namespace streetgan;
using P = FrozenGenerator::Precision;

namespace {

const std::string kDemo = STREETGAN_DEMO_DIR;

// Lowest PSNR over the frames of two uint8 (N, H, W, 3) batches (99 dB for identical frames).
double minPsnr(const at::Tensor& a, const at::Tensor& b) {
    auto chw = [](const at::Tensor& f) { return f.permute({0, 3, 1, 2}).to(at::kDouble).div(255.0); };
    return std::min(99.0, ImageSimilarity::psnr(chw(a), chw(b)).min().item<double>());
}

at::Tensor seedLatents(int64_t nz, int n) {
    std::vector<at::Tensor> rows;
    for (int s = 0; s < n; ++s) rows.push_back(LatentSeed::draw(static_cast<uint64_t>(s), nz));
    return at::stack(rows).view({n, nz, 1, 1});
}

Generator demo(const std::string& file) {
    const std::string path = kDemo + "/" + file;
    return ModelLoader::generator(Checkpoint::load(path), path, "", torch::kCPU);
}

}  // namespace

TEST(RenderPrecision, FrameCostOfThePresets) {
    // By hand: msls-128 = 2*128*2048*16 + 4 stages of 2*C*C/2*16*H^2 (2^30 each) + 2*128*3*16*64^2.
    EXPECT_NEAR(RenderPrecision::frameGflop(Presets::get("msls-128")), 4.353687552, 1e-9);
    EXPECT_NEAR(RenderPrecision::frameGflop(Presets::get("naive-64")), 0.209256448, 1e-9);
    EXPECT_LT(RenderPrecision::frameGflop(Presets::get("tiny-32")), 0.05);
    EXPECT_GT(RenderPrecision::frameGflop(Presets::get("safe-64")), RenderPrecision::kAutoMinGflop);
}

TEST(RenderPrecision, ChoiceFollowsTheRule) {
    const c10::Device cpu(c10::kCPU), cuda(c10::kCUDA, 0);
    const bool hw = RenderPrecision::cpuBf16();
    for (const std::string name : {"tiny-32", "naive-64", "safe-64", "safe-128", "msls-128"}) {
        const ModelConfig m = Presets::get(name);
        const bool heavy = RenderPrecision::frameGflop(m) >= RenderPrecision::kAutoMinGflop;
        EXPECT_EQ(heavy, name != "tiny-32" && name != "naive-64") << name;
        EXPECT_EQ(RenderPrecision::choose("auto", m, cpu), heavy && hw ? P::BFloat16 : P::Float32) << name;
        EXPECT_EQ(RenderPrecision::choose("auto", m, cuda), P::Float32) << name;
        EXPECT_EQ(RenderPrecision::choose("fp32", m, cpu), P::Float32) << name;
        EXPECT_EQ(RenderPrecision::choose("fp32", m, cuda), P::Float32) << name;
        EXPECT_EQ(RenderPrecision::choose("bf16", m, cpu), P::BFloat16) << name;
    }
    try {
        RenderPrecision::choose("bf16", Presets::get("msls-128"), cuda);
        ADD_FAILURE() << "bf16 on CUDA was accepted";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("--precision fp32"), std::string::npos) << e.what();
    }
    try {
        RenderPrecision::choose("half", Presets::get("msls-128"), cpu);
        ADD_FAILURE() << "an unknown precision was accepted";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("'half'"), std::string::npos) << e.what();
    }
    EXPECT_EQ(RenderPrecision::name(P::BFloat16), "bf16");
    EXPECT_EQ(RenderPrecision::name(P::Float32), "fp32");
}

TEST(RenderPrecision, CpuDetectionAgreesWithTheKernel) {
    std::ifstream in("/proc/cpuinfo");
    if (!in) GTEST_SKIP() << "no /proc/cpuinfo here";
    std::string line, flags;
    while (std::getline(in, line))
        if (line.rfind("flags", 0) == 0) {
            flags = " " + line.substr(line.find(':') + 1) + " ";
            break;
        }
    if (flags.empty()) GTEST_SKIP() << "/proc/cpuinfo lists no flags (not x86)";
    // The kernel lists avx512_bf16 and amx_bf16 only where it also saves their state.
    const bool amx = flags.find(" amx_bf16 ") != std::string::npos && flags.find(" amx_tile ") != std::string::npos;
    const bool avx = flags.find(" avx512_bf16 ") != std::string::npos;
    EXPECT_EQ(RenderPrecision::cpuBf16(), amx || avx) << flags;
    EXPECT_EQ(RenderPrecision::cpuBf16Name(), amx ? "amx-bf16" : avx ? "avx512-bf16" : "none");
}

TEST(RenderPrecision, Bf16FramesStayWithinTheStatedPsnrOfFp32) {
    struct Case {
        std::string name;
        Generator g;
    };
    std::vector<Case> cases{{"demo tiny-32", demo("tiny-32-synthetic.pt")}, {"demo naive-64", demo("naive-64-synthetic.pt")}};
    torch::manual_seed(0);
    Generator msls(Presets::get("msls-128"));
    WeightInit::dcgan(*msls);  // random weights, as bench_frame_precision --preset msls-128 makes them
    cases.push_back({"msls-128 (random weights)", msls});
    for (const Case& c : cases) {
        const int64_t nz = c.g->config().nz;
        FrameRenderer::Options o;
        o.size = static_cast<int>(c.g->config().imgSize);
        const at::Tensor z = seedLatents(nz, 12);
        const at::Tensor fp32 = FrameRenderer(c.g, o).render(z);
        o.precision = P::BFloat16;
        std::unique_ptr<FrameRenderer> bf16;
        try {
            bf16 = std::make_unique<FrameRenderer>(c.g, o);
        } catch (const ConfigError& e) {
            GTEST_SKIP() << "this CPU cannot run bfloat16: " << e.what();
        }
        const at::Tensor a = bf16->render(z);
        const double psnr = minPsnr(a, fp32);
        EXPECT_GE(psnr, RenderPrecision::kMinPsnrDb) << c.name;
        EXPECT_FALSE(torch::equal(a, fp32)) << c.name << ": bfloat16 frames equal float32's: the bf16 route did not run";
        // The frames are not flat (a bound on a grey picture would say little): spread of levels.
        EXPECT_GT(fp32.to(at::kFloat).std().item<double>(), 2.0) << c.name;
        std::printf("%s: bf16 against fp32, lowest PSNR of 12 frames %.1f dB\n", c.name.c_str(), psnr);
        // Deterministic, and the same bytes alone as in a batch (the worker renders only the frames asked for).
        EXPECT_TRUE(torch::equal(bf16->render(z), a)) << c.name;
        for (int64_t i : {0, 5, 11}) EXPECT_TRUE(torch::equal(bf16->render(z.narrow(0, i, 1)), a.narrow(0, i, 1))) << c.name << " frame " << i;
        // A FrozenGenerator given to the renderer is used; one of the other precision is refused.
        const auto frozen = std::make_shared<const FrozenGenerator>(c.g, P::BFloat16);
        EXPECT_TRUE(torch::equal(FrameRenderer(c.g, o, frozen).render(z.narrow(0, 0, 2)), a.narrow(0, 0, 2))) << c.name;
        EXPECT_THROW(FrameRenderer(c.g, o, std::make_shared<const FrozenGenerator>(c.g)), ConfigError);
    }
}
