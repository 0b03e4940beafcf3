#include <gtest/gtest.h>

#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/model/Presets.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/CheckpointWriter.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/checkpoint/TorchPickleReader.h"
#include "ml/dataset/BatchLoader.h"
#include "ml/dataset/SyntheticSource.h"
#include "ml/explore/GeneratorCache.h"
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
    out.losses.g = {0.75, 1.5, 2.0};
    out.losses.d = {1.25, 0.5, 0.0625};
    Checkpoint::save(out, dir / "ck.pt");

    const CheckpointData in = Checkpoint::load(dir / "ck.pt");
    EXPECT_EQ(in.losses, out.losses);
    EXPECT_FALSE(in.generatorOnly());
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
        EXPECT_EQ(ck.step, 3);  // no step in reference files: G_optim's AdamW step count
        // This fixture's losses are the [G, D] lists of the older reference scripts.
        EXPECT_EQ(ck.losses.g, (std::vector<double>{0.5, 0.4}));
        EXPECT_EQ(ck.losses.d, (std::vector<double>{1.5, 1.2}));
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

// The keys the reference's resume path reads (gpu_dcgan.start_or_resume_training_run), in the
// form it reads them: losses a dict of two float lists, img_list a list, noise a tensor.
TEST(Checkpoint, NativeFileCarriesEveryKeyTheReferenceResumeReads) {
    TempDir dir;
    CheckpointData out = saveTinyCheckpoint(dir / "unused.pt");
    out.fixedNoise = torch::randn({64, 64, 1, 1});
    out.losses.append(0.25, 1.75);
    out.losses.append(0.5, 1.5);
    Checkpoint::save(out, dir / "ck.pt");
    const PickleValue root = TorchPickleReader::load(dir / "ck.pt");
    for (const char* key : {"epoch", "G_state_dict", "D_state_dict", "G_optim", "D_optim", "losses", "img_list", "noise"})
        EXPECT_NE(root.find(key), nullptr) << key;
    const PickleValue& losses = root.at("losses");
    ASSERT_TRUE(losses.isDict());
    ASSERT_TRUE(losses.at("_G").isList());
    ASSERT_EQ(losses.at("_G").items().size(), 2u);
    EXPECT_TRUE(losses.at("_G").items()[1].isFloat());  // Python floats, so .append works on them
    EXPECT_EQ(losses.at("_D").items()[0].asDouble(), 1.75);
    ASSERT_TRUE(root.at("img_list").isList());
    EXPECT_TRUE(root.at("img_list").items().empty());
    ASSERT_TRUE(root.at("noise").isTensor());
    EXPECT_TRUE(torch::equal(root.at("noise").asTensor(), out.fixedNoise));

    // Without fixed noise the key is still there, as None.
    CheckpointData noNoise = out;
    noNoise.fixedNoise = torch::Tensor();
    Checkpoint::save(noNoise, dir / "nonoise.pt");
    const PickleValue r2 = TorchPickleReader::load(dir / "nonoise.pt");
    ASSERT_NE(r2.find("noise"), nullptr);
    EXPECT_TRUE(r2.at("noise").isNone());
    EXPECT_FALSE(Checkpoint::load(dir / "nonoise.pt").fixedNoise.defined());
}

// A checkpoint written before losses/img_list existed (the dict the previous version saved).
TEST(Checkpoint, OldNativeCheckpointWithoutLossesLoadsAndResumes) {
    TempDir dir;
    const TrainConfig cfg = tinyConfig();
    torch::manual_seed(5);
    TrainStep step(cfg, torch::kCPU);
    trainSteps(step, cfg, 2);
    CheckpointData now;
    step.capture(now);
    auto state = [](const StateDict& s) {
        c10::impl::GenericDict d(c10::StringType::get(), c10::TensorType::get());
        for (const auto& [k, t] : s) d.insert(k, t);
        return d;
    };
    c10::impl::GenericDict root(c10::StringType::get(), c10::AnyType::get());
    root.insert("format", std::string("streetgan/1"));
    root.insert("epoch", int64_t{0});
    root.insert("step", int64_t{2});
    root.insert("G_state_dict", state(now.generator));
    root.insert("D_state_dict", state(now.discriminator));
    root.insert("noise", torch::randn({8, cfg.model.nz, 1, 1}));
    root.insert("config", cfg.toJson().dump());
    root.insert("amp_scale", 0.0);
    root.insert("amp_growth", int64_t{0});
    const std::vector<char> bytes = torch::pickle_save(c10::IValue(root));
    const std::string path = dir / "old.pt";
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));

    const CheckpointData in = Checkpoint::load(path);
    EXPECT_EQ(in.format, "streetgan/1");
    EXPECT_EQ(in.step, 2);
    EXPECT_TRUE(in.losses.empty());
    TrainStep resumed(cfg, torch::kCPU);
    EXPECT_NO_THROW(resumed.restore(in, path));

    // Saved again, it gains the new keys (empty history).
    CheckpointData again = in;
    Checkpoint::save(again, dir / "again.pt");
    const PickleValue r = TorchPickleReader::load(dir / "again.pt");
    EXPECT_TRUE(r.at("losses").at("_G").items().empty());
    EXPECT_TRUE(r.at("img_list").isList());
}

// Reference losses in a layout we do not know leave the history empty; the model still loads.
TEST(Checkpoint, UnknownLossLayoutIsIgnored) {
    TempDir dir;
    const CheckpointData out = saveTinyCheckpoint(dir / "ck.pt");
    auto state = [](const StateDict& s) {
        c10::impl::GenericDict d(c10::StringType::get(), c10::TensorType::get());
        for (const auto& [k, t] : s) d.insert(k, t);
        return d;
    };
    for (const c10::IValue& losses : {c10::IValue(std::string("not losses")), c10::IValue(int64_t{3}), c10::IValue()}) {
        c10::impl::GenericDict root(c10::StringType::get(), c10::AnyType::get());
        root.insert("epoch", int64_t{1});
        root.insert("G_state_dict", state(out.generator));
        root.insert("D_state_dict", state(out.discriminator));
        root.insert("losses", losses);
        const std::vector<char> bytes = torch::pickle_save(c10::IValue(root));
        std::ofstream(dir / "odd.pt", std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        const CheckpointData in = Checkpoint::load(dir / "odd.pt");
        EXPECT_TRUE(in.losses.empty());
        EXPECT_EQ(in.epoch, 1);
    }
}

// A week-long run logs ~100k steps: the history must not make checkpoints slow. Prints the times
// (no timed assertion: the numbers are for the report, the assertion is the exact round trip).
TEST(Checkpoint, LargeLossHistoryRoundTripsExactly) {
    TempDir dir;
    CheckpointData out = saveTinyCheckpoint(dir / "base.pt");
    const std::string base = dir / "base.pt";
    for (int i = 0; i < 100000; ++i) out.losses.append(1.0 / (i + 1), 0.5 + i * 1e-6);
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    Checkpoint::save(out, dir / "big.pt");
    const auto t1 = Clock::now();
    const CheckpointData in = Checkpoint::load(dir / "big.pt");
    const auto t2 = Clock::now();
    Checkpoint::load(base);
    const auto t3 = Clock::now();
    EXPECT_EQ(in.losses, out.losses);
    auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
    std::printf("100k logged steps: save %.1f ms, load %.1f ms (without history: load %.1f ms); file %lld bytes (without: %lld)\n", ms(t1 - t0), ms(t2 - t1),
                ms(t3 - t2), static_cast<long long>(std::filesystem::file_size(dir / "big.pt")), static_cast<long long>(std::filesystem::file_size(base)));
}

// export --format slim's writer: the reference's slim layout, loadable as a G-only checkpoint by
// everything that only needs G, refused with a clear error by training.
TEST(Checkpoint, SlimCheckpointIsGeneratorOnly) {
    TempDir dir;
    const TrainConfig cfg = tinyConfig();
    torch::manual_seed(8);
    TrainStep step(cfg, torch::kCPU);
    trainSteps(step, cfg, 2);
    CheckpointData full;
    step.capture(full);
    full.epoch = 6;
    full.step = 2;
    full.fixedNoise = torch::randn({16, cfg.model.nz, 1, 1});
    full.losses.append(1, 2);
    Checkpoint::save(full, dir / "full.pt");
    // As export --format slim: G_ema by default (the run kept one), the raw G when asked.
    ASSERT_FALSE(full.generatorEma.empty());
    Checkpoint::saveSlim(ModelLoader::select(Checkpoint::load(dir / "full.pt"), GeneratorChoice::Default, dir / "full.pt"), dir / "slim.pt");
    Checkpoint::saveSlim(ModelLoader::select(Checkpoint::load(dir / "full.pt"), GeneratorChoice::Raw, dir / "full.pt"), dir / "slim_raw.pt");

    const PickleValue root = TorchPickleReader::load(dir / "slim.pt");
    std::vector<std::string> keys;
    for (const auto& [k, v] : root.entries()) {
        keys.push_back(k.asString());
        if (k.asString() == "epoch") {
            EXPECT_EQ(v.asInt(), 6);
        } else if (k.asString() == "G_state_dict") {
            EXPECT_TRUE(v.isDict());
        } else if (k.asString() == "G_source") {
            EXPECT_EQ(v.asString(), "ema");
        } else {
            EXPECT_TRUE(v.isNone()) << k.asString();
        }
    }
    EXPECT_EQ(keys, (std::vector<std::string>{"epoch", "D_state_dict", "G_state_dict", "D_optim", "G_optim", "losses", "img_list", "noise", "G_source"}));
    EXPECT_LT(std::filesystem::file_size(dir / "slim.pt"), std::filesystem::file_size(dir / "full.pt") / 2);

    const std::string slim = dir / "slim.pt";
    const CheckpointData in = Checkpoint::load(slim);
    EXPECT_TRUE(in.generatorOnly());
    EXPECT_EQ(in.epoch, 6);
    EXPECT_EQ(in.format, "reference");
    EXPECT_FALSE(in.fixedNoise.defined());
    EXPECT_FALSE(in.generatorOptim.has_value());
    EXPECT_TRUE(in.losses.empty());
    EXPECT_EQ(in.model.nz, cfg.model.nz);
    EXPECT_EQ(in.model.ngf, cfg.model.ngf);
    EXPECT_EQ(in.model.imgSize, cfg.model.imgSize);
    EXPECT_TRUE(in.model.sameArchitecture(Presets::get("tiny-32")));  // ndf from the preset with this G
    expectStateEqual(in.generator, full.generatorEma);
    EXPECT_EQ(in.generatorSource, "ema");
    const CheckpointData raw = Checkpoint::load(dir / "slim_raw.pt");
    expectStateEqual(raw.generator, full.generator);
    EXPECT_EQ(raw.generatorSource, "raw");
    EXPECT_THROW(ModelLoader::generator(in, slim, "", torch::kCPU, GeneratorChoice::Raw), CheckpointError);  // it holds only G_ema
    EXPECT_THROW(ModelLoader::generator(raw, dir / "slim_raw.pt", "", torch::kCPU, GeneratorChoice::Ema), CheckpointError);

    // What sample/serve/render build from it draws what the full checkpoint draws.
    Generator a = ModelLoader::generator(in, slim, "", torch::kCPU);
    Generator b = ModelLoader::generator(Checkpoint::load(dir / "full.pt"), dir / "full.pt", "tiny-32", torch::kCPU);
    torch::NoGradGuard noGrad;
    const auto z = torch::randn({4, cfg.model.nz, 1, 1});
    EXPECT_TRUE(torch::equal(a->forward(z), b->forward(z)));
    // The explorer's cache (the app's latent explorer) opens it too.
    GeneratorCache cache(torch::kCPU);
    const auto loaded = cache.get(slim);
    EXPECT_EQ(loaded->preset, "tiny-32");
    EXPECT_EQ(loaded->epoch, 6);

    // Training needs D: a clear error naming the file, not "lacks D tensor main.0.weight".
    TrainStep other(cfg, torch::kCPU);
    try {
        other.restore(in, slim);
        FAIL() << "no error";
    } catch (const CheckpointError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(slim), std::string::npos) << msg;
        EXPECT_NE(msg.find("slim"), std::string::npos) << msg;
        EXPECT_NE(msg.find("only the generator"), std::string::npos) << msg;
    }
}

TEST(CheckpointWriter, WritesOffTheCallingThreadInOrderAndReportsAFailureOnce) {
    TempDir dir;
    const TrainConfig cfg = tinyConfig();
    torch::manual_seed(4);
    TrainStep step(cfg, torch::kCPU);
    CheckpointData out;
    step.capture(out);
    out.configJson = cfg.toJson().dump();
    CheckpointWriter writer;
    std::vector<int64_t> done;
    for (int64_t tag : {10, 20, 30}) {
        out.step = tag;
        writer.submit(out, dir / ("ck_" + std::to_string(tag) + ".pt"), tag);
        for (int64_t t : writer.poll()) done.push_back(t);
    }
    for (int64_t t : writer.finish()) done.push_back(t);
    EXPECT_EQ(done, (std::vector<int64_t>{10, 20, 30}));
    for (int64_t tag : {10, 20, 30}) {
        const CheckpointData in = Checkpoint::load(dir / ("ck_" + std::to_string(tag) + ".pt"));
        EXPECT_EQ(in.step, tag);
        expectStateEqual(in.generator, out.generator);
    }
    // A write that fails (its folder is a file) is rethrown once by the training thread's next
    // call, with Checkpoint::save's error; the writer then goes on.
    std::ofstream(dir / "file") << "x";
    writer.submit(out, dir / "file/ck.pt", 40);
    EXPECT_THROW(writer.finish(), IoError);
    EXPECT_TRUE(writer.finish().empty());
    writer.submit(out, dir / "ck_50.pt", 50);
    EXPECT_EQ(writer.finish(), std::vector<int64_t>{50});
}
