#include <gtest/gtest.h>

#include <torch/torch.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/model/Presets.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/checkpoint/TorchPickleReader.h"
#include "ml/data/BatchLoader.h"
#include "ml/data/SyntheticSource.h"
#include "ml/model/Discriminator.h"
#include "ml/train/TrainStep.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;

namespace {

TrainConfig tinyConfig() {
    TrainConfig cfg;
    cfg.model = Presets::get("tiny-32");
    cfg.batch = 8;
    return cfg;
}

void trainSteps(TrainStep& step, const TrainConfig& cfg, int n) {
    LoaderOptions lo;
    lo.batch = cfg.batch;
    lo.imgSize = 32;
    lo.nz = cfg.model.nz;
    BatchLoader loader(std::make_shared<SyntheticSource>(0, 256), lo);
    for (int i = 0; i < n; ++i) step.step(loader.make(i));
}

bool bitEqual(const torch::Tensor& a, const torch::Tensor& b) {
    return a.defined() && b.defined() && a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes() && torch::equal(a, b);
}

void expectStateEqual(const StateDict& a, const StateDict& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].first, b[i].first);
        EXPECT_TRUE(bitEqual(a[i].second, b[i].second)) << a[i].first;
    }
}

void expectOptimEqual(const OptimizerState& a, const OptimizerState& b) {
    ASSERT_EQ(a.step.size(), b.step.size());
    EXPECT_EQ(a.lr, b.lr);
    EXPECT_EQ(a.beta1, b.beta1);
    EXPECT_EQ(a.weightDecay, b.weightDecay);
    for (size_t i = 0; i < a.step.size(); ++i) {
        EXPECT_EQ(a.step[i], b.step[i]);
        EXPECT_TRUE(bitEqual(a.expAvg[i], b.expAvg[i])) << i;
        EXPECT_TRUE(bitEqual(a.expAvgSq[i], b.expAvgSq[i])) << i;
    }
}

// A freshly initialised tiny-32 model saved at `path`; returns what was written.
CheckpointData saveTinyCheckpoint(const std::string& path) {
    const TrainConfig cfg = tinyConfig();
    TrainStep step(cfg, torch::kCPU);
    CheckpointData out;
    step.capture(out);
    Checkpoint::save(out, path);
    return out;
}

std::string runPython(const std::string& args) {
    const std::string cmd = std::string(STREETGAN_PYTHON) + " " + STREETGAN_TEST_PYTHON_DIR + "/reference_interop.py " + args;
    return std::system(cmd.c_str()) == 0 ? "" : "python failed: " + cmd;
}

}  // namespace

TEST(Checkpoint, RoundTripIsBitExact) {
    TempDir dir;
    const TrainConfig cfg = tinyConfig();
    torch::manual_seed(3);
    TrainStep step(cfg, torch::kCPU);
    trainSteps(step, cfg, 3);
    CheckpointData out;
    step.capture(out);
    out.configJson = cfg.toJson().dump();
    out.epoch = 4;
    out.step = 3;
    out.fixedNoise = torch::randn({64, cfg.model.nz, 1, 1});
    out.rngState = at::detail::getDefaultCPUGenerator().get_state();
    Checkpoint::save(out, dir / "ck.pt");

    const CheckpointData in = Checkpoint::load(dir / "ck.pt");
    EXPECT_EQ(in.format, "streetgan/1");
    EXPECT_TRUE(in.model.sameArchitecture(cfg.model));
    EXPECT_EQ(in.epoch, 4);
    EXPECT_EQ(in.step, 3);
    EXPECT_EQ(in.configJson, out.configJson);
    EXPECT_TRUE(bitEqual(in.fixedNoise, out.fixedNoise));
    EXPECT_TRUE(bitEqual(in.rngState, out.rngState));
    expectStateEqual(in.generator, out.generator);
    expectStateEqual(in.discriminator, out.discriminator);
    ASSERT_TRUE(in.generatorOptim && in.discriminatorOptim);
    EXPECT_EQ(in.generatorOptim->step.front(), 3);
    expectOptimEqual(*in.generatorOptim, *out.generatorOptim);
    expectOptimEqual(*in.discriminatorOptim, *out.discriminatorOptim);

    // Restoring into a fresh model and capturing again gives the same state.
    torch::manual_seed(99);
    TrainStep other(cfg, torch::kCPU);
    other.restore(in, dir / "ck.pt");
    CheckpointData again;
    other.capture(again);
    expectStateEqual(again.generator, out.generator);
    expectOptimEqual(*again.discriminatorOptim, *out.discriminatorOptim);
}

TEST(Checkpoint, ReferencePythonCheckpointMatchesPyTorchOutputs) {
    for (const bool prefixed : {false, true}) {
        TempDir dir;
        ASSERT_EQ(runPython("make " + dir.path().string() + (prefixed ? " --prefix" : "")), "");
        const std::string path = dir / "reference.pt";
        const CheckpointData ck = Checkpoint::load(path);
        EXPECT_EQ(ck.format, "reference");
        EXPECT_EQ(ck.model.nz, 64);
        EXPECT_EQ(ck.model.ngf, 32);
        EXPECT_EQ(ck.model.ndf, 32);
        EXPECT_EQ(ck.model.imgSize, 32);
        EXPECT_EQ(ck.epoch, 2);
        ASSERT_TRUE(ck.generatorOptim.has_value());
        EXPECT_EQ(ck.generatorOptim->step.front(), 3);
        EXPECT_DOUBLE_EQ(ck.generatorOptim->weightDecay, 0.05);
        ASSERT_TRUE(ck.fixedNoise.defined());

        const PickleValue outputs = TorchPickleReader::load(dir / "outputs.pt");
        Generator g = ModelLoader::generator(ck, path, "tiny-32", torch::kCPU);
        Discriminator d(ck.model);
        Checkpoint::apply(*d, ck.discriminator, "D", path);
        d->eval();
        torch::NoGradGuard noGrad;
        auto gOut = g->forward(ck.fixedNoise);
        auto dOut = d->forward(gOut);
        EXPECT_LT((gOut - outputs.at("g_out").asTensor()).abs().max().item<double>(), 1e-5) << "prefixed=" << prefixed;
        EXPECT_LT((dOut - outputs.at("d_out").asTensor()).abs().max().item<double>(), 1e-4) << "prefixed=" << prefixed;

        // A reference checkpoint's optimizer state resumes in our AdamW.
        TrainConfig cfg = tinyConfig();
        TrainStep step(cfg, torch::kCPU);
        step.restore(ck, path);
        CheckpointData again;
        step.capture(again);
        expectOptimEqual(*again.generatorOptim, *ck.generatorOptim);
    }
}

TEST(Checkpoint, OtherArchitectureNamesFirstMismatchingTensor) {
    TempDir dir;
    saveTinyCheckpoint(dir / "tiny.pt");
    const CheckpointData in = Checkpoint::load(dir / "tiny.pt");
    try {
        ModelLoader::generator(in, dir / "tiny.pt", "naive-64", torch::kCPU);
        FAIL() << "no error";
    } catch (const CheckpointError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("main.0.weight"), std::string::npos) << msg;
        EXPECT_NE(msg.find("[64, 128, 4, 4]"), std::string::npos) << msg;
        EXPECT_NE(msg.find("[100, 512, 4, 4]"), std::string::npos) << msg;
        EXPECT_NE(msg.find("tiny.pt"), std::string::npos) << msg;
    }
}

// The full-disk case on the same path runs in tests/app/trainer (a file-size limit on a real process).
TEST(Checkpoint, UncreatableTargetThrowsIoErrorAndLeavesNoTemp) {
    TempDir dir;
    const std::string path = dir / "ck.pt";
    const CheckpointData out = saveTinyCheckpoint(path);
    const auto before = std::filesystem::file_size(path);
    // Make the target's directory impossible to write into by replacing the checkpoint's folder
    // with a path through a regular file: the temp file cannot be created.
    std::ofstream(dir / "file") << "x";
    EXPECT_THROW(Checkpoint::save(out, dir / "file/ck.pt"), IoError);
    EXPECT_EQ(std::filesystem::file_size(path), before);
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(Checkpoint, CorruptAndTruncatedFilesAreCheckpointErrors) {
    TempDir dir;
    saveTinyCheckpoint(dir / "good.pt");
    std::ifstream in(dir / "good.pt", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    for (const double frac : {0.0, 0.3, 0.9, 0.999}) {
        const std::string path = dir / ("cut" + std::to_string(frac) + ".pt");
        std::ofstream(path, std::ios::binary) << bytes.substr(0, static_cast<size_t>(bytes.size() * frac));
        try {
            Checkpoint::load(path);
            ADD_FAILURE() << "truncated at " << frac << " loaded";
        } catch (const CheckpointError& e) {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(Checkpoint::load(dir / "missing.pt"), CheckpointError);
}
