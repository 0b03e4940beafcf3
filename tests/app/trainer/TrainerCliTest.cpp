// streetgan-trainer end to end: real processes, real files, the reference Python side.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <sstream>
#include <tuple>

#include "base/run/TrainOption.h"
#include "support/CliRunner.h"
#include "support/TempDir.h"

using namespace streetgan::test;
namespace fs = std::filesystem;

namespace {

int lineCount(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// One tiny trained run shared by the tests of this file (trained once, read-only afterwards).
class TrainerCli : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new TempDir();
        CliRunner cli(dir_->path());
        const CliResult r = cli.run({"train", "--run-dir", run(), "--preset", "tiny-32", "--steps", "12", "--batch", "8", "--log-every", "4", "--sample-every",
                                     "6", "--synthetic-images", "256", "--seed", "3"});
        trainResult_ = new CliResult(r);
    }
    static void TearDownTestSuite() {
        delete trainResult_;
        delete dir_;
    }
    static std::string run() { return *dir_ / "run"; }
    static std::string checkpoint() { return *dir_ / "run/checkpoints/checkpoint_0.pt"; }

    TempDir tmp;
    CliRunner cli{tmp.path()};
    static TempDir* dir_;
    static CliResult* trainResult_;
};
TempDir* TrainerCli::dir_ = nullptr;
CliResult* TrainerCli::trainResult_ = nullptr;

std::string python(const std::string& args) { return std::string(STREETGAN_PYTHON) + " " + STREETGAN_TEST_PYTHON_DIR + "/" + args; }

}  // namespace

TEST_F(TrainerCli, TrainPrintsPlainLinesWhenNotATerminal) {
    ASSERT_EQ(trainResult_->code, 0) << trainResult_->err;
    EXPECT_NE(trainResult_->out.find("step 12/12"), std::string::npos) << trainResult_->out;
    EXPECT_NE(trainResult_->out.find("status finished"), std::string::npos);
    EXPECT_NE(trainResult_->out.find("settings: tiny-32, batch 8, lr 0.0002, amp off, instance noise 0, G_ema 0.999 per step, DiffAugment off, R1 off\n"),
              std::string::npos)
        << trainResult_->out;
    EXPECT_EQ(trainResult_->out.find('\r'), std::string::npos);  // no progress-bar redraws in a log
    EXPECT_TRUE(fs::exists(checkpoint()));
    EXPECT_TRUE(fs::exists(run() + "/samples/step_6.png"));
}

// ls, attach, control and remote run in streetgan-trainer itself, which loads no LibTorch (its
// one to two seconds of loading would be paid by every `ls --json` the app runs over SSH and every
// `remote fetch`); every other command runs in streetgan-trainer-torch, exec'd in the same process.
TEST_F(TrainerCli, TorchFreeCommandsLoadNoLibTorchAndTheOthersDo) {
    const auto loads = [&](const std::vector<std::string>& args) {
        const CliResult r = cli.run(args, "LD_DEBUG=libs");
        EXPECT_EQ(r.code, 0) << args.front() << ": " << r.err.substr(r.err.size() > 2000 ? r.err.size() - 2000 : 0);
        return r.err.find("libtorch") != std::string::npos;
    };
    EXPECT_FALSE(loads({"ls", "--json", dir_->path().string()})) << "ls loaded LibTorch";
    EXPECT_FALSE(loads({"attach", run()})) << "attach loaded LibTorch";
    EXPECT_FALSE(loads({"remote", "--help"})) << "remote loaded LibTorch";
    EXPECT_TRUE(loads({"version"})) << "version runs without LibTorch: is it in the front?";
    const CliResult ls = cli.run({"ls", "--json", dir_->path().string()});
    EXPECT_NE(ls.out.find("\"finished\""), std::string::npos) << ls.out;
}

TEST_F(TrainerCli, ModelInfoJsonMatchesDesignTable) {
    const std::vector<std::tuple<std::string, int64_t, int64_t>> table = {
        {"naive-64", 3576704, 2765568}, {"safe-64", 52448768, 2765568}, {"safe-128", 195063296, 44611072}, {"msls-128", 48772864, 2796928}};
    for (const auto& [preset, g, d] : table) {
        const CliResult r = cli.run({"model-info", "--preset", preset, "--json"});
        ASSERT_EQ(r.code, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["preset"], preset);
        EXPECT_EQ(j["g_params"].get<int64_t>(), g) << preset;
        EXPECT_EQ(j["d_params"].get<int64_t>(), d) << preset;
        EXPECT_EQ(j["nc"], 3);
        for (const char* k : {"nz", "ngf", "ndf", "img_size"}) EXPECT_TRUE(j.contains(k));
    }
}

TEST_F(TrainerCli, EverySubcommandHasHelp) {
    for (const auto& sub : std::vector<std::vector<std::string>>{{"--help"},
                                                                 {"model-info", "--help"},
                                                                 {"train", "--help"},
                                                                 {"sample", "--help"},
                                                                 {"eval", "--help"},
                                                                 {"export", "--help"},
                                                                 {"bench", "train", "--help"},
                                                                 {"start", "--help"},
                                                                 {"ls", "--help"},
                                                                 {"attach", "--help"},
                                                                 {"control", "--help"},
                                                                 {"remote", "--help"},
                                                                 {"serve", "--help"}}) {
        const CliResult r = cli.run(sub);
        EXPECT_EQ(r.code, 0) << sub.front();
        EXPECT_NE(r.out.find("Usage"), std::string::npos) << sub.front();
    }
    const CliResult v = cli.run({"--version"});
    EXPECT_EQ(v.code, 0);
    EXPECT_NE(v.out.find("streetgan-trainer"), std::string::npos);
}

TEST_F(TrainerCli, SampleWritesMakeGridPng) {
    const std::string out = tmp / "grid.png";
    const CliResult r = cli.run({"sample", "--checkpoint", checkpoint(), "--seed", "4", "--count", "16", "--nrow", "4", "--out", out});
    ASSERT_EQ(r.code, 0) << r.err;
    cv::Mat png = cv::imread(out, cv::IMREAD_UNCHANGED);
    ASSERT_FALSE(png.empty());
    EXPECT_EQ(png.cols, 4 * (32 + 4) + 4);  // padding 4 (docs/cli.md default)
    EXPECT_EQ(png.rows, 4 * (32 + 4) + 4);
    double lo, hi;
    cv::minMaxLoc(png.reshape(1), &lo, &hi);
    EXPECT_EQ(hi, 255.0);  // normalised over the batch: full range used
    const std::string fixed = tmp / "fixed.png";
    ASSERT_EQ(cli.run({"sample", "--checkpoint", checkpoint(), "--fixed-noise", "--out", fixed}).code, 0);
    EXPECT_EQ(cv::imread(fixed).cols, 8 * 36 + 4);
}

TEST_F(TrainerCli, EvalReportsParzenLogLikelihood) {
    const CliResult r =
        cli.run({"eval", "--checkpoint", checkpoint(), "--data", "synthetic", "--samples", "300", "--validation", "40", "--test", "40", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["metric"], "parzen");
    EXPECT_TRUE(std::isfinite(j["log_likelihood"].get<double>()));
    EXPECT_GE(j["sigma"].get<double>(), 0.1 - 1e-9);
    EXPECT_LE(j["sigma"].get<double>(), 1.0 + 1e-9);
    EXPECT_EQ(j["sigma_scores"].size(), 10u);
}

TEST_F(TrainerCli, EvalDefaultsToTheDataTheCheckpointWasTrainedOn) {
    const std::string photos = tmp / "photos";
    ASSERT_EQ(cli.run({"data", "synth", "--count", "60", "--out", photos, "--width", "176", "--height", "132"}).code, 0);
    const std::string run = tmp / "photo-run";
    const CliResult t =
        cli.run({"train", "--run-dir", run, "--preset", "tiny-32", "--data", photos, "--steps", "2", "--batch", "4", "--validation-percent", "30"});
    ASSERT_EQ(t.code, 0) << t.err;
    const CliResult r =
        cli.run({"eval", "--checkpoint", run + "/checkpoints/checkpoint_0.pt", "--samples", "50", "--validation", "4", "--test", "4", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["data"], photos);
    EXPECT_TRUE(std::isfinite(j["log_likelihood"].get<double>()));
    // a reference checkpoint carries no config: synthetic, as before
    const CliResult s = cli.run({"eval", "--checkpoint", checkpoint(), "--data", "synthetic", "--samples", "50", "--validation", "4", "--test", "4", "--json"});
    EXPECT_EQ(nlohmann::json::parse(s.out)["data"], "synthetic");
}

TEST_F(TrainerCli, ExportOfReferenceCheckpointReadsBackInPython) {
    ASSERT_EQ(std::system(python("reference_interop.py make " + tmp.path().string()).c_str()), 0);
    const std::string out = tmp / "export.pt";
    const CliResult r = cli.run({"export", "--checkpoint", tmp / "reference.pt", "--format", "state-dict", "--out", out});
    ASSERT_EQ(r.code, 0) << r.err;
    // Python loads it with torch.load, strict-loads the reference model, and reproduces PyTorch's outputs.
    EXPECT_EQ(std::system(python("reference_interop.py check " + out + " " + tmp / "outputs.pt" + " > " + tmp / "check.json").c_str()), 0)
        << CliRunner::slurp(tmp / "check.json");
}

TEST_F(TrainerCli, ExportOfNativeCheckpointLoadsStrictlyInPython) {
    const std::string out = tmp / "native.pt";
    ASSERT_EQ(cli.run({"export", "--checkpoint", checkpoint(), "--out", out}).code, 0);
    const std::string script = tmp / "load.py";
    std::ofstream(script) << "import sys; sys.path.insert(0, '" << STREETGAN_TEST_PYTHON_DIR << "')\n"
                          << "import torch, reference_dcgan as r\n"
                          << "ck = torch.load('" << out << "')\n"
                          << "g, d, p = r.build('tiny-32')\n"
                          << "g.load_state_dict(ck['G_state_dict'], strict=True); d.load_state_dict(ck['D_state_dict'], strict=True)\n"
                          << "assert ck['noise'].shape == (64, 64, 1, 1)\n"
                          << "g.eval(); x = g(ck['noise']); assert torch.isfinite(x).all() and x.abs().max() <= 1\n";
    EXPECT_EQ(std::system((std::string(STREETGAN_PYTHON) + " " + script).c_str()), 0);
}

// The fixture's run has G_ema (on by default). sample draws it unless --generator raw; the slim
// export carries the generator asked for, says which in G_source, and draws what sample draws
// from that generator of the full checkpoint; G_state_dict stays the raw G, which the reference's
// own loader takes.
TEST_F(TrainerCli, GeneratorChoiceEmaByDefaultRawWhenAsked) {
    auto draw = [&](const std::string& ck, const std::string& out, const std::vector<std::string>& extra) {
        std::vector<std::string> args = {"sample", "--checkpoint", ck, "--seed", "4", "--count", "16", "--out", out};
        args.insert(args.end(), extra.begin(), extra.end());
        return cli.run(args);
    };
    auto bytes = [](const std::string& p) { return CliRunner::slurp(p); };
    ASSERT_EQ(draw(checkpoint(), tmp / "default.png", {}).code, 0);
    ASSERT_EQ(draw(checkpoint(), tmp / "ema.png", {"--generator", "ema"}).code, 0);
    ASSERT_EQ(draw(checkpoint(), tmp / "raw.png", {"--generator", "raw"}).code, 0);
    EXPECT_EQ(bytes(tmp / "default.png"), bytes(tmp / "ema.png"));
    EXPECT_NE(bytes(tmp / "raw.png"), bytes(tmp / "ema.png"));

    ASSERT_EQ(cli.run({"export", "--checkpoint", checkpoint(), "--format", "slim", "--out", tmp / "slim_ema.pt"}).code, 0);
    ASSERT_EQ(cli.run({"export", "--checkpoint", checkpoint(), "--format", "slim", "--generator", "raw", "--out", tmp / "slim_raw.pt"}).code, 0);
    ASSERT_EQ(draw(tmp / "slim_ema.pt", tmp / "slim_ema.png", {}).code, 0);
    ASSERT_EQ(draw(tmp / "slim_raw.pt", tmp / "slim_raw.png", {}).code, 0);
    EXPECT_EQ(bytes(tmp / "slim_ema.png"), bytes(tmp / "ema.png"));
    EXPECT_EQ(bytes(tmp / "slim_raw.png"), bytes(tmp / "raw.png"));
    // Their G_state_dicts are, tensor for tensor, the checkpoint's G_ema and G.
    auto state = [&](const std::string& a, const std::string& keyA, const std::string& keyB) {
        const std::string out = tmp / "state.json";
        const int rc = std::system(python("reference_interop.py state " + a + " " + keyA + " " + checkpoint() + " " + keyB + " > " + out).c_str());
        EXPECT_EQ(rc, 0);
        return nlohmann::json::parse(CliRunner::slurp(out));
    };
    const auto e = state(tmp / "slim_ema.pt", "G_state_dict", "G_ema_state_dict");
    EXPECT_EQ(e["max_abs_diff"], 0.0);
    EXPECT_EQ(e["g_source"], "ema");
    const auto r = state(tmp / "slim_raw.pt", "G_state_dict", "G_state_dict");
    EXPECT_EQ(r["max_abs_diff"], 0.0);
    EXPECT_EQ(r["g_source"], "raw");
    // The reference's loader on our checkpoint: strict load of G_state_dict, the raw G, not G_ema.
    const std::string loaded = tmp / "loaded.json";
    ASSERT_EQ(std::system(python("reference_interop.py reference-load " + checkpoint() + " > " + loaded).c_str()), 0) << CliRunner::slurp(loaded);
    const auto l = nlohmann::json::parse(CliRunner::slurp(loaded));
    EXPECT_EQ(l["equals_g_state_dict"], true);
    EXPECT_GT(l["differs_from_g_ema"].get<double>(), 0.0);

    // A choice the file cannot satisfy is one clear line.
    const CliResult noRaw = draw(tmp / "slim_ema.pt", tmp / "x.png", {"--generator", "raw"});
    EXPECT_EQ(noRaw.code, 4);
    EXPECT_NE(noRaw.err.find("holds only G_ema"), std::string::npos) << noRaw.err;
    const CliResult noEma = draw(tmp / "slim_raw.pt", tmp / "x.png", {"--generator", "ema"});
    EXPECT_EQ(noEma.code, 4);
    EXPECT_NE(noEma.err.find("has no G_ema"), std::string::npos) << noEma.err;
    EXPECT_NE(cli.run({"sample", "--checkpoint", checkpoint(), "--generator", "best", "--out", tmp / "x.png"}).code, 0);
}

// --ema, --diffaugment, --r1 and --r1-every reach run.json (and --config reads them back).
TEST_F(TrainerCli, TrainingOptionsReachRunJson) {
    const CliResult r = cli.run({"train", "--run-dir", tmp / "o", "--preset", "tiny-32", "--steps", "2", "--batch", "4", "--synthetic-images", "16", "--ema",
                                 "0.99", "--diffaugment", "color,translation", "--r1", "0.5", "--r1-every", "2"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto config = nlohmann::json::parse(CliRunner::slurp(tmp / "o/run.json")).at("config");
    EXPECT_EQ(config.at("ema"), 0.99);
    EXPECT_EQ(config.at("ema_kimg"), 0.0);  // --ema alone: the per-step rule
    EXPECT_EQ(config.at("diffaugment"), "color,translation");
    EXPECT_EQ(config.at("r1_gamma"), 0.5);
    EXPECT_EQ(config.at("r1_every"), 2);
    std::ofstream(tmp / "c.json") << config.dump();
    ASSERT_EQ(cli.run({"train", "--run-dir", tmp / "c", "--config", tmp / "c.json", "--ema", "0"}).code, 0);
    const auto again = nlohmann::json::parse(CliRunner::slurp(tmp / "c/run.json")).at("config");
    EXPECT_EQ(again.at("ema"), 0.0);  // the flag over the file
    EXPECT_EQ(again.at("r1_every"), 2);
    EXPECT_EQ(again.at("diffaugment"), "color,translation");
    const CliResult bad = cli.run({"train", "--run-dir", tmp / "b", "--preset", "tiny-32", "--steps", "2", "--diffaugment", "color,blur"});
    EXPECT_NE(bad.code, 0);
    EXPECT_NE(bad.err.find("unknown part 'blur'"), std::string::npos) << bad.err;
    EXPECT_EQ(lineCount(bad.err), 1) << bad.err;
}

// ---- bad input: one clear line on stderr, a non-zero exit, nothing half-written ----

TEST_F(TrainerCli, UnknownPreset) {
    const CliResult r = cli.run({"train", "--run-dir", tmp / "r", "--preset", "naive-65", "--steps", "1"});
    EXPECT_EQ(r.code, 3);
    EXPECT_EQ(lineCount(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("unknown preset 'naive-65'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("tiny-32"), std::string::npos);
    EXPECT_EQ(cli.run({"model-info", "--preset", "big"}).code, 3);
}

TEST_F(TrainerCli, ConfigFileKeysOverrideThePresetOption) {
    // --preset sets the architecture, the config file's explicit keys then override parts of it.
    std::ofstream(tmp / "cfg.json") << R"({"ngf": 48, "ndf": 40})";
    const CliResult r = cli.run({"train", "--run-dir", tmp / "r", "--preset", "tiny-32", "--config", tmp / "cfg.json", "--steps", "1", "--batch", "2",
                                 "--synthetic-images", "8", "--sample-every", "0"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto config = nlohmann::json::parse(CliRunner::slurp(tmp / "r/run.json")).at("config");
    EXPECT_EQ(config.at("ngf"), 48);
    EXPECT_EQ(config.at("ndf"), 40);
    EXPECT_EQ(config.at("nz"), 64);  // the rest is tiny-32's
    EXPECT_EQ(config.at("img_size"), 32);
    // Without the file, --preset alone is the whole architecture.
    const CliResult plain =
        cli.run({"train", "--run-dir", tmp / "p", "--preset", "tiny-32", "--steps", "1", "--batch", "2", "--synthetic-images", "8", "--sample-every", "0"});
    ASSERT_EQ(plain.code, 0) << plain.err;
    EXPECT_EQ(nlohmann::json::parse(CliRunner::slurp(tmp / "p/run.json")).at("config").at("ngf"), 32);
}

// Issue 42: train's and start's settings are TrainOption's rows, each flag with its help, and what
// a flag sets is its run.json key; --lr-d (TTUR) trains D at its own rate while "lr" is G's.
TEST_F(TrainerCli, EverySettingOfTheOptionsTableIsAFlagThatReachesRunJson) {
    for (const char* sub : {"train", "start"}) {
        const CliResult help = cli.run({sub, "--help"});
        for (const auto& o : streetgan::TrainOption::all())
            if (*o.flag) {
                const std::string name = "  " + streetgan::TrainOption::flagName(o);  // "  --flip " or "  --channels-last,--no-..."
                EXPECT_TRUE(help.out.find(name + " ") != std::string::npos || help.out.find(name + ",") != std::string::npos) << sub << " lacks " << o.flag;
            }
    }
    const std::string r = tmp / "ttur";
    const CliResult run = cli.run({"train",    "--run-dir",
                                   r,          "--preset",
                                   "tiny-32",  "--steps",
                                   "4",        "--batch",
                                   "4",        "--log-every",
                                   "2",        "--sample-every",
                                   "0",        "--synthetic-images",
                                   "16",       "--metric-every-checkpoints",
                                   "0",        "--lr",
                                   "1e-4",     "--lr-d",
                                   "4e-4",     "--betas",
                                   "0.4,0.99", "--eps",
                                   "1e-7",     "--prefetch",
                                   "3",        "--no-channels-last"});
    ASSERT_EQ(run.code, 0) << run.err;
    EXPECT_NE(run.out.find("settings: tiny-32, batch 4, lr 0.0001 (D 0.0004), amp off"), std::string::npos) << run.out;  // the log says what trains
    const nlohmann::json config = nlohmann::json::parse(CliRunner::slurp(r + "/run.json")).at("config");
    EXPECT_DOUBLE_EQ(config.at("lr").get<double>(), 1e-4);
    EXPECT_DOUBLE_EQ(config.at("lr_d").get<double>(), 4e-4);
    EXPECT_EQ(config.at("betas"), nlohmann::json({0.4, 0.99}));
    EXPECT_DOUBLE_EQ(config.at("eps").get<double>(), 1e-7);
    EXPECT_EQ(config.at("prefetch"), 3);
    EXPECT_EQ(config.at("channels_last"), false);
    EXPECT_EQ(config.at("steps"), 4);
    for (const auto& e : readEvents(r)) {
        if (e.value("kind", "") == "metrics") {
            EXPECT_DOUBLE_EQ(e.at("lr").get<double>(), 1e-4);
        }
    }
    // an out-of-range value is refused by the flag's own check, in one line naming it
    const CliResult bad = cli.run({"train", "--run-dir", tmp / "bad", "--steps", "1", "--lr-d", "11"});
    EXPECT_EQ(bad.code, 2) << bad.err;
    EXPECT_NE(bad.err.find("--lr-d"), std::string::npos) << bad.err;
    // A pair given one number does not swallow the next flag silently: the line says what it needs.
    const CliResult one = cli.run({"train", "--run-dir", tmp / "bad", "--betas", "0.4", "--steps", "1"});
    EXPECT_EQ(one.code, 2) << one.err;
    EXPECT_NE(one.err.find("--betas: needs two numbers separated by a comma (got the flag --steps"), std::string::npos) << one.err;
}

TEST_F(TrainerCli, InvalidNumbers) {
    for (const auto& args :
         std::vector<std::vector<std::string>>{{"--batch", "abc"}, {"--batch", "0"}, {"--steps", "-3"}, {"--lr", "nan"}, {"--seed", "1.5"}}) {
        std::vector<std::string> full = {"train", "--run-dir", tmp / "r", "--steps", "1"};
        if (args[0] == "--steps") full = {"train", "--run-dir", tmp / "r"};
        full.insert(full.end(), args.begin(), args.end());
        const CliResult r = cli.run(full);
        EXPECT_EQ(r.code, 2) << args[0] << " " << args[1] << ": " << r.err;
        EXPECT_EQ(lineCount(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(args[0]), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(tmp / "r"));  // nothing created for a rejected command
}

TEST_F(TrainerCli, UnreadableCorruptAndTruncatedCheckpoints) {
    std::ifstream in(checkpoint(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(tmp / "truncated.pt", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    std::string noise(4096, '\0');
    for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>((i * 2654435761u) >> 13);
    std::ofstream(tmp / "corrupt.pt", std::ios::binary) << noise;
    std::ofstream(tmp / "empty.pt", std::ios::binary);  // NOLINT(bugprone-unused-raii): creates an empty file
    for (const char* name : {"missing.pt", "truncated.pt", "corrupt.pt", "empty.pt"}) {
        const CliResult r = cli.run({"sample", "--checkpoint", tmp / name, "--seed", "1", "--out", tmp / "x.png"});
        EXPECT_EQ(r.code, 4) << name << ": " << r.err;
        EXPECT_EQ(lineCount(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(tmp / "x.png"));
    }
}

TEST_F(TrainerCli, CheckpointOfAnotherArchitecture) {
    const CliResult r = cli.run({"sample", "--checkpoint", checkpoint(), "--preset", "naive-64", "--seed", "1", "--out", tmp / "x.png"});
    EXPECT_EQ(r.code, 4);
    EXPECT_EQ(lineCount(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("main.0.weight"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("[64, 128, 4, 4]"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("[100, 512, 4, 4]"), std::string::npos) << r.err;

    // Resuming a tiny-32 run as naive-64 is refused before anything loads (run.json names the
    // preset: a config error), and the run's checkpoint survives.
    fs::copy(run(), tmp / "copy", fs::copy_options::recursive);
    const auto before = CliRunner::slurp(tmp / "copy/checkpoints/checkpoint_0.pt");
    const CliResult r2 = cli.run({"train", "--run-dir", tmp / "copy", "--resume", "--preset", "naive-64", "--steps", "20"});
    EXPECT_EQ(r2.code, 3) << r2.err;
    EXPECT_NE(r2.err.find("cannot change preset from \"tiny-32\""), std::string::npos) << r2.err;
    EXPECT_EQ(CliRunner::slurp(tmp / "copy/checkpoints/checkpoint_0.pt"), before);
    // Without run.json (a folder of checkpoints only) the checkpoint itself refuses, the same way.
    fs::remove(tmp / "copy/run.json");
    const CliResult r3 = cli.run({"train", "--run-dir", tmp / "copy", "--resume", "--preset", "naive-64", "--steps", "20"});
    EXPECT_EQ(r3.code, 4) << r3.err;
    EXPECT_NE(r3.err.find("main.0.weight"), std::string::npos) << r3.err;
    EXPECT_EQ(CliRunner::slurp(tmp / "copy/checkpoints/checkpoint_0.pt"), before);
}

TEST_F(TrainerCli, RunDirectoryNotWritable) {
    std::ofstream(tmp / "plainfile") << "x";
    const CliResult r = cli.run({"train", "--run-dir", tmp / "plainfile/run", "--preset", "tiny-32", "--steps", "1"});
    EXPECT_EQ(r.code, 5) << r.err;
    EXPECT_EQ(lineCount(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("plainfile/run"), std::string::npos) << r.err;
}

// Issue 41 item 13: `--run-dir /tmp` once made /tmp 0700; a world-writable folder is refused in one
// line and keeps its mode.
TEST_F(TrainerCli, AWorldWritableRunDirectoryIsRefusedAndKeepsItsMode) {
    fs::create_directory(tmp / "public");
    fs::permissions(tmp / "public", fs::perms::all | fs::perms::sticky_bit);
    const CliResult r = cli.run({"train", "--run-dir", tmp / "public", "--preset", "tiny-32", "--steps", "1"});
    EXPECT_EQ(r.code, 5) << r.err;
    EXPECT_EQ(lineCount(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("can be written by any user"), std::string::npos) << r.err;
    EXPECT_EQ(fs::status(tmp / "public").permissions(), fs::perms::all | fs::perms::sticky_bit);
    EXPECT_FALSE(fs::exists(tmp / "public/events.jsonl"));
}

TEST_F(TrainerCli, FullDiskWhileCheckpointingKeepsThePreviousCheckpoint) {
    // A real kernel limit on file size (EFBIG on write, like ENOSPC) for the trainer process:
    // small files (events, run.json, sample PNGs) still fit, a checkpoint (~5 MB) does not.
    fs::copy(run(), tmp / "copy", fs::copy_options::recursive);
    const std::string ck = tmp / "copy/checkpoints/checkpoint_0.pt";
    const std::string before = CliRunner::slurp(ck);
    const CliResult r = cli.run({"train", "--run-dir", tmp / "copy", "--resume", "--steps", "16"}, "ulimit -f 1024;");
    EXPECT_EQ(r.code, 5) << r.err;
    EXPECT_NE(r.err.find("checkpoint_0.pt"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("previous version kept"), std::string::npos) << r.err;
    EXPECT_EQ(CliRunner::slurp(ck), before);
    for (const auto& e : fs::directory_iterator(tmp / "copy/checkpoints")) EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
    // The failure is recorded in the (append-only) event log; earlier events are intact.
    const std::string events = CliRunner::slurp(tmp / "copy/events.jsonl");
    EXPECT_NE(events.find("\"failed\""), std::string::npos);
    EXPECT_EQ(events.rfind(CliRunner::slurp(run() + "/events.jsonl"), 0), 0u);
}

// The listing only (--no-decode): these "images" are text; decoding them is DataStatsCliTest's.
TEST_F(TrainerCli, DataStatsOfAFolder) {
    fs::create_directories(tmp / "photos/berlin");
    fs::create_directories(tmp / "photos/paris");
    for (const char* name : {"berlin/a.jpg", "berlin/b.jpg", "berlin/c.jpg", "paris/d.jpg"})
        std::ofstream(tmp / ("photos/" + std::string(name))) << "jpeg bytes";
    std::ofstream(tmp / "photos/paris/empty.jpg");  // NOLINT(bugprone-unused-raii): creates an empty file
    const CliResult r = cli.run({"data", "stats", tmp / "photos", "--json", "--no-decode"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["images"], 4);
    EXPECT_EQ(j["skipped"], 1);
    EXPECT_EQ(j["skipped_reasons"]["empty file"], 1);
    EXPECT_EQ(j["cities"]["berlin"], 3);
    EXPECT_EQ(j["cities"]["paris"], 1);
    EXPECT_TRUE(j.contains("sequences"));
    const CliResult table = cli.run({"data", "stats", tmp / "photos", "--no-decode"});
    EXPECT_NE(table.out.find("berlin"), std::string::npos);
    const CliResult missing = cli.run({"data", "stats", tmp / "nowhere"});
    EXPECT_EQ(missing.code, 6);
    EXPECT_EQ(lineCount(missing.err), 1) << missing.err;
}

TEST_F(TrainerCli, PhotosFolderPackVerifyAndTrainFromEachSourceKind) {
    ASSERT_EQ(cli.run({"data", "synth", "--count", "40", "--width", "320", "--height", "240", "--out", tmp / "photos"}).code, 0);
    EXPECT_EQ(cli.run({"train", "--run-dir", tmp / "from-folder", "--data", tmp / "photos", "--preset", "tiny-32", "--steps", "3", "--batch", "8"}).code, 0);
    const CliResult pack = cli.run({"data", "pack", tmp / "photos", "--size", "32", "--out", tmp / "cache"});
    ASSERT_EQ(pack.code, 0) << pack.err;
    EXPECT_NE(pack.out.find("40 images"), std::string::npos) << pack.out;
    EXPECT_EQ(cli.run({"data", "verify", tmp / "cache"}).code, 0);
    const CliResult stats = cli.run({"data", "stats", tmp / "cache", "--json"});
    ASSERT_EQ(stats.code, 0) << stats.err;
    EXPECT_EQ(nlohmann::json::parse(stats.out)["images"], 40);
    const CliResult train = cli.run({"train", "--run-dir", tmp / "from-cache", "--data", tmp / "cache", "--preset", "tiny-32", "--steps", "3", "--batch", "8"});
    EXPECT_EQ(train.code, 0) << train.err;
    EXPECT_NE(CliRunner::slurp(tmp / "from-cache/run.json").find("packed cache"), std::string::npos);
    // A damaged shard is found by verify, named, in one line.
    {
        std::fstream f(tmp / "cache/shard_00000.bin", std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(1000);
        f.put('\x5a');
    }
    const CliResult bad = cli.run({"data", "verify", tmp / "cache"});
    EXPECT_EQ(bad.code, 6) << bad.err;
    EXPECT_EQ(lineCount(bad.err), 1) << bad.err;
    EXPECT_NE(bad.err.find("shard_00000.bin"), std::string::npos) << bad.err;
}

// `data pack` without --out packs into the packs cache, and the next run on the same photos with
// the same settings trains from it by itself and says so (--data-path auto); other settings decode
// and say why; --data-path photos decodes quietly (issue 46 item 3).
TEST_F(TrainerCli, APackOfThePhotosIsChosenByTheNextRunAndSaid) {
    ASSERT_EQ(cli.run({"data", "synth", "--count", "40", "--width", "320", "--height", "240", "--out", tmp / "photos"}).code, 0);
    const std::string env = "XDG_CACHE_HOME=" + tmp / "xdg" + " ";
    const CliResult pack = cli.run({"data", "pack", tmp / "photos", "--size", "32", "--flip"}, env);
    ASSERT_EQ(pack.code, 0) << pack.err;
    EXPECT_NE(pack.out.find(tmp / "xdg/streetgan/packs/"), std::string::npos) << pack.out;
    EXPECT_NE(pack.out.find("train from it by themselves"), std::string::npos) << pack.out;
    const std::vector<std::string> train = {"train", "--data", tmp / "photos", "--preset", "tiny-32", "--steps", "3", "--batch", "8", "--flip"};
    auto with = [&](std::vector<std::string> args, const std::vector<std::string>& more) {
        args.insert(args.end(), more.begin(), more.end());
        return args;
    };
    const CliResult chosen = cli.run(with(train, {"--run-dir", tmp / "chosen"}), env);
    ASSERT_EQ(chosen.code, 0) << chosen.err;
    EXPECT_NE(chosen.err.find("data: training from the packed cache '" + tmp / "xdg/streetgan/packs/"), std::string::npos) << chosen.err;
    const auto run = nlohmann::json::parse(CliRunner::slurp(tmp / "chosen/run.json"));
    EXPECT_NE(run["data_source"].get<std::string>().find("chosen for '" + tmp / "photos" + "'"), std::string::npos) << run["data_source"];
    EXPECT_EQ(run["config"]["data_path"], "auto");
    bool evented = false;
    std::istringstream events(CliRunner::slurp(tmp / "chosen/events.jsonl"));
    for (std::string line; std::getline(events, line);)
        if (line.find("\"kind\":\"data\"") != std::string::npos && line.find("\"data_path\"") != std::string::npos) evented = true;
    EXPECT_TRUE(evented) << "no data event says what --data-path chose";

    const CliResult decoded = cli.run(with(train, {"--run-dir", tmp / "decoded", "--data-path", "photos"}), env);
    ASSERT_EQ(decoded.code, 0) << decoded.err;
    EXPECT_EQ(decoded.err.find("data: "), std::string::npos) << decoded.err;
    EXPECT_EQ(CliRunner::slurp(tmp / "decoded/run.json").find("packed cache"), std::string::npos);

    const CliResult other = cli.run(with(train, {"--run-dir", tmp / "other", "--max-shift", "0.1"}), env);
    ASSERT_EQ(other.code, 0) << other.err;
    EXPECT_NE(other.err.find("was made of other photos or with other settings (streetgan-trainer data pack " + tmp / "photos" +
                             " --size 32 --max-shift 0.1 --flip packs them for this run)"),
              std::string::npos)
        << other.err;
    const CliResult bad = cli.run(with(train, {"--run-dir", tmp / "bad", "--data-path", "pack"}), env);
    EXPECT_NE(bad.code, 0);
    EXPECT_EQ(lineCount(bad.err), 1) << bad.err;
}

TEST_F(TrainerCli, TrainFromAZipAndItsStats) {
    ASSERT_EQ(cli.run({"data", "synth", "--count", "24", "--width", "320", "--height", "240", "--out", tmp / "photos"}).code, 0);
    ASSERT_EQ(std::system((std::string(STREETGAN_PYTHON) + " -c \"import shutil; shutil.make_archive('" + tmp / "batch" + "', 'zip', root_dir='" +
                           tmp / "photos" + "')\"")
                              .c_str()),
              0);
    const CliResult stats = cli.run({"data", "stats", tmp / "batch.zip", "--json"});
    ASSERT_EQ(stats.code, 0) << stats.err;
    EXPECT_EQ(nlohmann::json::parse(stats.out)["images"], 24);
    const CliResult train =
        cli.run({"train", "--run-dir", tmp / "from-zip", "--data", tmp / "batch.zip", "--preset", "tiny-32", "--steps", "3", "--batch", "8"});
    EXPECT_EQ(train.code, 0) << train.err;
    EXPECT_NE(CliRunner::slurp(tmp / "from-zip/run.json").find("batch.zip"), std::string::npos);
    // A truncated archive still trains from its intact entries, and says what it skipped.
    const std::string zip = CliRunner::slurp(tmp / "batch.zip");
    std::ofstream(tmp / "cut.zip", std::ios::binary) << zip.substr(0, zip.size() * 6 / 10);
    const CliResult cut = cli.run({"data", "stats", tmp / "cut.zip", "--json"});
    ASSERT_EQ(cut.code, 0) << cut.err;
    const auto j = nlohmann::json::parse(cut.out);
    EXPECT_LT(j["images"].get<int>(), 24);
    EXPECT_GT(j["images"].get<int>(), 0);
}

TEST_F(TrainerCli, EvalOnHeldOutPhotos) {
    ASSERT_EQ(cli.run({"data", "synth", "--count", "200", "--width", "320", "--height", "240", "--out", tmp / "photos"}).code, 0);
    const CliResult r =
        cli.run({"eval", "--checkpoint", checkpoint(), "--data", tmp / "photos", "--samples", "100", "--validation", "3", "--test", "3", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(std::isfinite(nlohmann::json::parse(r.out)["log_likelihood"].get<double>()));
    const CliResult tooMany = cli.run({"eval", "--checkpoint", checkpoint(), "--data", tmp / "photos", "--validation", "500", "--test", "500"});
    EXPECT_EQ(tooMany.code, 6) << tooMany.err;
    EXPECT_NE(tooMany.err.find("held-out"), std::string::npos) << tooMany.err;
}

// Issue 42 item 3: run.json never disagrees with what trains. A resume with --lr trains at that
// rate (the checkpoint's optimiser state held the old one and won), records the change at the
// resume step, and run.json says it; a live set-lr is run.json's rate too, so a plain resume
// continues at it; what a resume cannot change (the model's shape, the seed) is refused in one
// line naming it, with run.json untouched.
TEST_F(TrainerCli, AResumedRunTrainsAtTheRateItsRunJsonSays) {
    const std::string r = tmp / "r";
    const std::vector<std::string> first = {
        "train", "--run-dir",          r,   "--preset",           "tiny-32", "--steps", "8",   "--batch", "8", "--log-every", "2", "--sample-every",
        "0",     "--checkpoint-every", "4", "--synthetic-images", "64",      "--lr",    "2e-4"};
    const CliResult a = cli.run(first);
    ASSERT_EQ(a.code, 0) << a.err;
    const CliResult b = cli.run({"train", "--run-dir", r, "--resume", "--steps", "16", "--lr", "1e-3"});
    ASSERT_EQ(b.code, 0) << b.err;
    const nlohmann::json runJson = nlohmann::json::parse(CliRunner::slurp(r + "/run.json"));
    EXPECT_DOUBLE_EQ(runJson["config"]["lr"].get<double>(), 1e-3);
    ASSERT_TRUE(runJson["resumes"].is_array() && runJson["resumes"].size() == 1) << runJson.dump();
    EXPECT_DOUBLE_EQ(runJson["resumes"][0]["changed"]["lr"]["from"].get<double>(), 2e-4);
    EXPECT_EQ(runJson["resumes"][0]["changed"].size(), 2u) << runJson["resumes"][0].dump();  // lr and steps
    int changeEvents = 0;
    for (const auto& e : readEvents(r)) {
        if (e.value("kind", "") == "control" && e.value("cmd", "") == "set-lr") {
            ++changeEvents;
            EXPECT_EQ(e.value("step", -1), 8);
            EXPECT_DOUBLE_EQ(e.value("value", 0.0), 1e-3);
            EXPECT_EQ(e.value("by", ""), "resume");
            EXPECT_DOUBLE_EQ(e.value("from", 0.0), 2e-4);
        }
        // What trains: every metrics line carries the optimiser's rate.
        if (e.value("kind", "") == "metrics" && e.contains("lr") && e["lr"].is_number()) {
            EXPECT_DOUBLE_EQ(e["lr"].get<double>(), e.value("step", 0) <= 8 ? 2e-4 : 1e-3) << e.dump();
        }
    }
    EXPECT_EQ(changeEvents, 1);

    // Refused, in one line naming the setting; run.json as it was.
    const std::string before = CliRunner::slurp(r + "/run.json");
    for (const auto& [flag, value, key] :
         std::vector<std::tuple<std::string, std::string, std::string>>{{"--seed", "7", "seed"}, {"--preset", "naive-64", "preset"}}) {
        const CliResult refused = cli.run({"train", "--run-dir", r, "--resume", "--steps", "20", flag, value});
        EXPECT_NE(refused.code, 0) << flag;
        EXPECT_EQ(lineCount(refused.err), 1) << refused.err;
        EXPECT_NE(refused.err.find("cannot change " + key + " from"), std::string::npos) << refused.err;
        EXPECT_EQ(CliRunner::slurp(r + "/run.json"), before) << flag;
    }
    // A plain resume continues at run.json's rate: no change recorded.
    const CliResult c = cli.run({"train", "--run-dir", r, "--resume", "--steps", "20"});
    ASSERT_EQ(c.code, 0) << c.err;
    const nlohmann::json after = nlohmann::json::parse(CliRunner::slurp(r + "/run.json"));
    EXPECT_DOUBLE_EQ(after["config"]["lr"].get<double>(), 1e-3);
    EXPECT_FALSE(after["resumes"][1]["changed"].contains("lr")) << after["resumes"][1].dump();
    for (const auto& e : readEvents(r)) {
        if (e.value("kind", "") == "metrics" && e.value("step", 0) > 16 && e["lr"].is_number()) {
            EXPECT_DOUBLE_EQ(e["lr"].get<double>(), 1e-3);
        }
    }
}
