#include <gtest/gtest.h>

#include <torch/torch.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "base/model/Presets.h"
#include "base/run/TrainingScalar.h"
#include "base/tensorboard/TfRecordReader.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/dataset/BatchLoader.h"
#include "ml/dataset/SyntheticSource.h"
#include "ml/train/TrainStep.h"
#include "ml/train/Trainer.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

TrainConfig tinyRun(int64_t steps) {
    TrainConfig cfg;
    cfg.model = Presets::get("tiny-32");
    cfg.batch = 8;
    cfg.steps = steps;
    cfg.logEvery = 5;
    cfg.sampleEvery = 10;
    cfg.checkpointEvery = 0;
    cfg.syntheticImages = 512;
    cfg.loaderThreads = 2;
    cfg.seed = 11;
    return cfg;
}

std::vector<nlohmann::json> readEvents(const std::string& path) {
    std::vector<nlohmann::json> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
    return out;
}

// Every tensor of two state dicts is equal (bit-exact), named on failure.
void expectSameState(const StateDict& a, const StateDict& b, const char* what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i].second, b[i].second)) << what << " " << a[i].first;
}

// A loader of `images` synthetic 32 px images in batches of the run's size.
BatchLoader syntheticLoader(const TrainConfig& cfg, int64_t images) {
    LoaderOptions lo;
    lo.batch = cfg.batch;
    lo.imgSize = 32;
    lo.nz = cfg.model.nz;
    return BatchLoader(std::make_shared<SyntheticSource>(0, images), lo);
}

}  // namespace

TEST(Trainer, TinyRunWritesACompleteRunDirectory) {
    TempDir dir;
    std::atomic<bool> stop{false};
    EXPECT_EQ(Trainer(tinyRun(20), dir.path(), false).run(stop), 20);

    auto run = nlohmann::json::parse(std::ifstream(dir / "run.json"));
    EXPECT_EQ(run["config"]["preset"], "tiny-32");
    EXPECT_EQ(run["config"]["lr"], 2e-4);
    EXPECT_EQ(run["config"]["betas"], (nlohmann::json{0.5, 0.999}));
    EXPECT_EQ(run["config"]["weight_decay"], 0.05);
    EXPECT_TRUE(run.contains("host") && run.contains("start_time") && run.contains("version"));

    const auto events = readEvents(dir / "events.jsonl");
    int metrics = 0, checkpoints = 0, samples = 0;
    std::vector<std::string> states;
    for (const auto& e : events) {
        ASSERT_TRUE(e.contains("t"));
        const std::string kind = e["kind"];
        if (kind == "metrics") {
            ++metrics;
            EXPECT_TRUE(e.contains("step") && e.contains("epoch"));
            for (const TrainingScalar::Spec& s : TrainingScalar::all()) EXPECT_TRUE(e.contains(s.field)) << s.field;  // every one measured
            EXPECT_GT(e["grad_norm_d"].get<double>(), 0.0);
            EXPECT_GT(e["grad_norm_g"].get<double>(), 0.0);
            EXPECT_TRUE(std::isfinite(e["grad_norm_g"].get<double>()));
            EXPECT_GT(e["img_per_s"].get<double>(), 0.0);
            EXPECT_GE(e["data_wait"].get<double>(), 0.0);
            EXPECT_LE(e["data_wait"].get<double>(), 1.0);
            EXPECT_GT(e["d_x"].get<double>(), 0.0);
            EXPECT_LT(e["d_x"].get<double>(), 1.0);
            EXPECT_EQ(e["step"].get<int>() % 5, 0);
        } else if (kind == "checkpoint") {
            ++checkpoints;
        } else if (kind == "sample") {
            ++samples;
        } else if (kind == "status") {
            states.push_back(e["state"]);
        }
    }
    EXPECT_EQ(metrics, 4);
    EXPECT_EQ(samples, 2);  // steps 10 and 20
    EXPECT_EQ(checkpoints, 1);
    EXPECT_EQ(states, (std::vector<std::string>{"running", "finished"}));

    EXPECT_TRUE(fs::exists(dir / "checkpoints/checkpoint_0.pt"));
    for (const char* s : {"samples/step_10.png", "samples/step_20.png"}) {
        cv::Mat png = cv::imread(dir / s, cv::IMREAD_UNCHANGED);
        ASSERT_FALSE(png.empty()) << s;
        EXPECT_EQ(png.cols, 8 * (32 + 2) + 2);  // make_grid: 64 images, nrow 8, padding 2
        EXPECT_EQ(png.rows, 8 * (32 + 2) + 2);
    }

    std::vector<std::string> tbFiles;
    for (const auto& e : fs::directory_iterator(dir / "tb")) tbFiles.push_back(e.path());
    ASSERT_EQ(tbFiles.size(), 1u);
    EXPECT_NE(tbFiles[0].find("events.out.tfevents."), std::string::npos);
    int lossD = 0, gradNormG = 0, images = 0;
    for (const auto& ev : TfRecordReader::readAllEvents(tbFiles[0]))
        for (const auto& v : ev.values) {
            if (v.tag == "loss_d" && v.simpleValue) ++lossD;
            if (v.tag == "grad_norm_g" && v.simpleValue) ++gradNormG;
            if (v.image) ++images;
        }
    EXPECT_EQ(lossD, 4);
    EXPECT_EQ(gradNormG, 4);
    EXPECT_EQ(images, 2);
}

TEST(Trainer, ResumeContinuesExactly) {
    TempDir a, b;
    std::atomic<bool> stop{false};
    Trainer(tinyRun(20), a.path(), false).run(stop);
    Trainer(tinyRun(10), b.path(), false).run(stop);
    EXPECT_EQ(Trainer(tinyRun(20), b.path(), /*resume=*/true).run(stop), 20);

    const auto ca = Checkpoint::load(a / "checkpoints/checkpoint_0.pt");
    const auto cb = Checkpoint::load(b / "checkpoints/checkpoint_0.pt");
    EXPECT_EQ(ca.step, 20);
    EXPECT_EQ(cb.step, 20);
    expectSameState(ca.generator, cb.generator, "G");
    expectSameState(ca.discriminator, cb.discriminator, "D");
    ASSERT_FALSE(ca.generatorEma.empty());  // G_ema is on by default
    expectSameState(ca.generatorEma, cb.generatorEma, "G_ema");
    for (size_t i = 0; i < ca.generatorOptim->expAvg.size(); ++i)
        EXPECT_TRUE(torch::equal(ca.generatorOptim->expAvgSq[i], cb.generatorOptim->expAvgSq[i])) << i;

    // The loss history (one G/D pair per metrics event, steps 5, 10, 15, 20) continued across the
    // resume instead of restarting: the resumed run's checkpoint has all four, equal to the
    // uninterrupted run's and to the logged metrics.
    ASSERT_EQ(ca.losses.g.size(), 4u);
    EXPECT_EQ(cb.losses, ca.losses);
    std::vector<double> loggedG, loggedD;
    for (const auto& e : readEvents(a / "events.jsonl"))
        if (e["kind"] == "metrics") loggedG.push_back(e["loss_g"].get<double>()), loggedD.push_back(e["loss_d"].get<double>());
    EXPECT_EQ(ca.losses.g, loggedG);
    EXPECT_EQ(ca.losses.d, loggedD);

    // The resumed run appended to the same log and recorded the resume.
    const auto events = readEvents(b / "events.jsonl");
    int running = 0;
    for (const auto& e : events) running += e["kind"] == "status" && e["state"] == "running";
    EXPECT_EQ(running, 2);
    auto run = nlohmann::json::parse(std::ifstream(b / "run.json"));
    ASSERT_EQ(run["resumes"].size(), 1u);
    EXPECT_EQ(run["resumes"][0]["step"], 10);
}

// With every option on (G_ema, DiffAugment's draws, R1 every 3rd step so that both halves hold
// R1 steps at another phase), 10 + 10 steps are the 20 steps of one run, bit for bit.
TEST(Trainer, ResumeWithEmaDiffAugmentAndR1ContinuesExactly) {
    auto cfg = [](int64_t steps) {
        TrainConfig c = tinyRun(steps);
        c.ema = 0.99;
        c.diffAugment = "color,translation,cutout";
        c.r1Gamma = 1.0;
        c.r1Every = 3;
        return c;
    };
    TempDir a, b, plain;
    std::atomic<bool> stop{false};
    Trainer(cfg(20), a.path(), false).run(stop);
    Trainer(cfg(10), b.path(), false).run(stop);
    EXPECT_EQ(Trainer(cfg(20), b.path(), /*resume=*/true).run(stop), 20);
    Trainer(tinyRun(20), plain.path(), false).run(stop);
    const auto ca = Checkpoint::load(a / "checkpoints/checkpoint_0.pt");
    const auto cb = Checkpoint::load(b / "checkpoints/checkpoint_0.pt");
    const auto cp = Checkpoint::load(plain / "checkpoints/checkpoint_0.pt");
    expectSameState(ca.generator, cb.generator, "G");
    expectSameState(ca.discriminator, cb.discriminator, "D");
    expectSameState(ca.generatorEma, cb.generatorEma, "G_ema");
    // The options changed the training (else this test would prove nothing), and G_ema is not G.
    EXPECT_FALSE(torch::equal(ca.discriminator[0].second, cp.discriminator[0].second));
    EXPECT_FALSE(torch::equal(ca.generator[0].second, ca.generatorEma[0].second));
    EXPECT_EQ(nlohmann::json::parse(std::ifstream(b / "run.json"))["config"]["diffaugment"], "color,translation,cutout");
}

TEST(Trainer, ResumeWithAnotherArchitectureIsRefused) {
    TempDir dir;
    std::atomic<bool> stop{false};
    Trainer(tinyRun(5), dir.path(), false).run(stop);
    TrainConfig other = tinyRun(10);
    other.model.ngf = 16;
    EXPECT_THROW(Trainer(other, dir.path(), true).run(stop), CheckpointError);
    // the failure is in the log, and the checkpoint is untouched
    const auto events = readEvents(dir / "events.jsonl");
    EXPECT_EQ(events.back()["state"], "failed");
    EXPECT_EQ(Checkpoint::load(dir / "checkpoints/checkpoint_0.pt").step, 5);
}

TEST(Trainer, StopFlagCheckpointsAndStops) {
    TempDir dir;
    std::atomic<bool> stop{true};
    EXPECT_EQ(Trainer(tinyRun(50), dir.path(), false).run(stop), 0);
    const auto events = readEvents(dir / "events.jsonl");
    EXPECT_EQ(events.back()["state"], "stopped");
    EXPECT_TRUE(fs::exists(dir / "checkpoints/checkpoint_0.pt"));
}

TEST(Trainer, CpuBf16AutocastTrains) {
    TrainConfig cfg = tinyRun(4);
    cfg.amp = "bf16";
    torch::manual_seed(1);
    TrainStep step(cfg, torch::kCPU);
    BatchLoader loader = syntheticLoader(cfg, 64);
    auto before = step.generator()->named_parameters()["main.0.weight"].clone();
    for (int i = 0; i < 3; ++i) step.step(loader.make(i));
    const StepMetrics m = step.drain();
    EXPECT_EQ(m.steps, 3);
    EXPECT_TRUE(std::isfinite(m.means.lossD) && std::isfinite(m.means.lossG));
    EXPECT_GT(m.means.dX, 0.0);
    EXPECT_LT(m.means.dX, 1.0);
    // Parameters stay float32 (autocast changes compute, not storage) and did move.
    auto after = step.generator()->named_parameters()["main.0.weight"];
    EXPECT_EQ(after.scalar_type(), torch::kFloat32);
    EXPECT_FALSE(torch::equal(before, after));
}

// The gradient norm logged is the L2 norm over all of the model's gradients of that step (G's are
// left as its optimiser used them; D's are added to by G's pass, so only G's can be recomputed).
TEST(Trainer, GradientNormOfAStepIsTheNormOfTheModelsGradients) {
    TrainConfig cfg = tinyRun(4);
    torch::manual_seed(3);
    TrainStep step(cfg, torch::kCPU);
    BatchLoader loader = syntheticLoader(cfg, 16);
    step.step(loader.make(0));
    const StepMetrics m = step.drain();
    ASSERT_EQ(m.steps, 1);
    double sq = 0;
    for (const auto& p : step.generator()->parameters()) sq += p.grad().to(torch::kFloat64).pow(2).sum().item<double>();
    EXPECT_NEAR(m.means.gradNormG, std::sqrt(sq), 1e-5 * std::sqrt(sq));
    EXPECT_GT(m.means.gradNormD, 0.0);
    EXPECT_TRUE(std::isfinite(m.means.gradNormD));
}

TEST(Trainer, Fp16WithoutCudaIsAClearConfigError) {
    TrainConfig cfg = tinyRun(4);
    cfg.amp = "fp16";
    try {
        TrainStep step(cfg, torch::kCPU);
        FAIL() << "no error";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
    }
}
