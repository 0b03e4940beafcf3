// The reference Python project's checkpoint code paths against our files, all real processes
// (tests/python/reference_resume.py follows its code): its training resumes from a checkpoint
// `streetgan-trainer train` wrote and ours resumes from what it saved, with the loss history
// continuing on both sides; its API's loader loads `export --format slim`, and the slim file
// draws what our `sample` draws; our sample/render/serve take the slim file, train refuses it.
#include <gtest/gtest.h>

#include <algorithm>
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

const std::string kDemoCheckpoint = std::string(STREETGAN_DEMO_DIR) + "/tiny-32-synthetic.pt";

// Runs tests/python/reference_resume.py with `args`; its stdout parsed as JSON (null when not JSON).
struct PyResult {
    int code = -1;
    nlohmann::json out;
    std::string text, err;
};

PyResult python(const TempDir& dir, const std::vector<std::string>& args) {
    std::string cmd = CliRunner::quote(STREETGAN_PYTHON) + " " + CliRunner::quote(std::string(STREETGAN_TEST_PYTHON_DIR) + "/reference_resume.py");
    for (const auto& a : args) cmd += " " + CliRunner::quote(a);
    const std::string out = dir / ".py.out", err = dir / ".py.err";
    const int status = std::system((cmd + " >" + CliRunner::quote(out) + " 2>" + CliRunner::quote(err)).c_str());
    PyResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.text = CliRunner::slurp(out);
    r.err = CliRunner::slurp(err);
    r.out = nlohmann::json::parse(r.text, nullptr, false);
    if (r.out.is_discarded()) r.out = nullptr;
    return r;
}

std::vector<double> numbers(const nlohmann::json& j) { return j.is_array() ? j.get<std::vector<double>>() : std::vector<double>{}; }

bool sameImage(const std::string& a, const std::string& b) {
    const cv::Mat x = cv::imread(a, cv::IMREAD_UNCHANGED), y = cv::imread(b, cv::IMREAD_UNCHANGED);
    return !x.empty() && x.size == y.size && x.type() == y.type() && cv::norm(x, y, cv::NORM_INF) == 0;
}

}  // namespace

TEST(ReferenceResume, ReferenceTrainingResumesFromOursAndOursFromIts) {
    TempDir dir;
    CliRunner cli(dir.path());
    const std::string run = dir / "run", cks = dir / "run/checkpoints";
    // 64 synthetic images, batch 8: 8 steps an epoch; 12 steps end in epoch 1 (checkpoint_1.pt).
    const std::vector<std::string> common = {"--preset", "tiny-32", "--batch", "8", "--log-every", "2", "--synthetic-images", "64", "--seed", "3"};
    std::vector<std::string> train = {"train", "--run-dir", run, "--steps", "12"};
    train.insert(train.end(), common.begin(), common.end());
    const CliResult t = cli.run(train);
    ASSERT_EQ(t.code, 0) << t.err;
    ASSERT_TRUE(fs::exists(cks + "/checkpoint_1.pt"));

    // Our checkpoint: losses hold every metrics event's loss_g/loss_d, img_list is an empty list.
    std::vector<double> loggedG, loggedD;
    for (const auto& e : readEvents(run))
        if (e["kind"] == "metrics") loggedG.push_back(e["loss_g"]), loggedD.push_back(e["loss_d"]);
    ASSERT_EQ(loggedG.size(), 6u);  // steps 2, 4, ..., 12
    const PyResult ours = python(dir, {"inspect", cks + "/checkpoint_1.pt"});
    ASSERT_EQ(ours.code, 0) << ours.err;
    EXPECT_EQ(numbers(ours.out["losses"]["_G"]), loggedG);
    EXPECT_EQ(numbers(ours.out["losses"]["_D"]), loggedD);
    EXPECT_EQ(ours.out["img_list"], 0);
    EXPECT_EQ(ours.out["epoch"], 1);
    EXPECT_EQ(ours.out["noise_shape"], (nlohmann::json{64, 64, 1, 1}));
    // G_ema (on by default) rides along under a key of its own, which the reference never reads;
    // the G_state_dict it loads strictly below is the trained G.
    const auto keys = ours.out["keys"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(keys.begin(), keys.end(), "G_ema_state_dict"), keys.end());

    // The reference's own resume (its st_epoch 1, n_epochs 3) over 32 images of batch 8: epochs
    // 1 and 2, 4 steps each, logging batches 0 and 2 of each epoch; saves checkpoint_1 and _2.
    const PyResult ref = python(dir, {"resume", cks, "1", "3", "--images", "32", "--batch", "8", "--log-frequency", "2"});
    ASSERT_EQ(ref.code, 0) << ref.err << ref.text;
    EXPECT_EQ(ref.out["start_epoch"], 1);
    EXPECT_EQ(numbers(ref.out["losses_in"]["_G"]), loggedG);
    EXPECT_EQ(numbers(ref.out["losses_in"]["_D"]), loggedD);
    EXPECT_EQ(ref.out["img_list_in"], 0);
    EXPECT_EQ(ref.out["noise_in_shape"], (nlohmann::json{64, 64, 1, 1}));
    EXPECT_EQ(ref.out["g_optim_step_in"], 12);  // our AdamW state became its optimizer's
    EXPECT_EQ(ref.out["steps"], 8);
    EXPECT_EQ(ref.out["img_list_out"], 2);
    const std::vector<double> refG = numbers(ref.out["losses_out"]["_G"]), refD = numbers(ref.out["losses_out"]["_D"]);
    ASSERT_EQ(refG.size(), 10u);  // our 6, then its 4: the history continued
    EXPECT_TRUE(std::equal(loggedG.begin(), loggedG.end(), refG.begin()));
    ASSERT_TRUE(fs::exists(cks + "/checkpoint_2.pt"));

    // Its file is a checkpoint our tools read (sample with its noise)...
    const std::string png = dir / "theirs.png";
    const CliResult s = cli.run({"sample", "--checkpoint", cks + "/checkpoint_2.pt", "--fixed-noise", "--out", png});
    ASSERT_EQ(s.code, 0) << s.err;
    EXPECT_FALSE(cv::imread(png).empty());

    // ...and our training resumes from it (the latest, checkpoint_2.pt): at step 12 + 8 = 20, from
    // G_optim's step count, and carries its loss history on.
    std::vector<std::string> resume = {"train", "--run-dir", run, "--resume", "--steps", "30"};
    resume.insert(resume.end(), common.begin(), common.end());
    const CliResult r = cli.run(resume);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto runJson = nlohmann::json::parse(std::ifstream(run + "/run.json"));
    ASSERT_EQ(runJson["resumes"].size(), 1u);
    EXPECT_EQ(runJson["resumes"][0]["step"], 20);
    EXPECT_NE(runJson["resumes"][0]["checkpoint"].get<std::string>().find("checkpoint_2.pt"), std::string::npos);
    const PyResult last = python(dir, {"inspect", cks + "/checkpoint_3.pt"});  // step 30: epoch 29 / 8 = 3
    ASSERT_EQ(last.code, 0) << last.err;
    EXPECT_EQ(last.out["format"], "streetgan/1");
    EXPECT_EQ(last.out["step"], 30);
    // Resumed from the reference's file, which has no G_ema: ours started it at G and saves it again.
    const auto lastKeys = last.out["keys"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(lastKeys.begin(), lastKeys.end(), "G_ema_state_dict"), lastKeys.end());
    const std::vector<double> lastG = numbers(last.out["losses"]["_G"]), lastD = numbers(last.out["losses"]["_D"]);
    ASSERT_EQ(lastG.size(), 15u);  // its 10, then ours at steps 22, 24, ..., 30
    EXPECT_TRUE(std::equal(refG.begin(), refG.end(), lastG.begin()));
    EXPECT_TRUE(std::equal(refD.begin(), refD.end(), lastD.begin()));
    // Its fixed-noise grids go on too: its 2, then one per checkpoint of ours since the resume.
    int oursSince = 0;
    for (const auto& e : readEvents(run))
        if (e["kind"] == "checkpoint" && e["step"].get<int>() > 20) ++oursSince;
    ASSERT_GE(oursSince, 1);
    EXPECT_EQ(last.out["img_list"], 2 + oursSince);
}

// The reference's checkpoint resumed on other data (as a reference run on a DL1 box, continued
// here on another subset): the epoch count goes on from its epoch, the file numbering with it,
// and its losses and grids are kept and appended to; the reference's own resume, which asks for
// checkpoint_<epoch>.pt by number, then finds our file and carries everything on.
TEST(ReferenceResume, AResumedReferenceCheckpointKeepsItsEpochCountLossesAndGrids) {
    TempDir dir;
    CliRunner cli(dir.path());
    const std::string run = dir / "run", cks = dir / "run/checkpoints";
    const std::vector<std::string> common = {"--preset", "tiny-32", "--batch", "8", "--log-every", "2", "--seed", "3"};
    std::vector<std::string> train = {"train", "--run-dir", run, "--steps", "12", "--synthetic-images", "64"};
    train.insert(train.end(), common.begin(), common.end());
    ASSERT_EQ(cli.run(train).code, 0);
    // The reference: epochs 1 and 2 over 32 images (4 steps each): checkpoint_2.pt, epoch 2, step
    // 20, two grids.
    const PyResult ref = python(dir, {"resume", cks, "1", "3", "--images", "32", "--batch", "8", "--log-frequency", "2"});
    ASSERT_EQ(ref.code, 0) << ref.err << ref.text;
    ASSERT_EQ(ref.out["img_list_out"], 2);
    const std::vector<double> refG = numbers(ref.out["losses_out"]["_G"]);

    // Ours on 256 images: 32 steps an epoch, so its step 20 is in our epoch 0; 44 steps.
    std::vector<std::string> resume = {"train", "--run-dir", run, "--resume", "--steps", "44", "--synthetic-images", "256", "--checkpoint-every", "8"};
    resume.insert(resume.end(), common.begin(), common.end());
    const CliResult r = cli.run(resume);
    ASSERT_EQ(r.code, 0) << r.err;
    std::vector<int> epochs;
    int saved = 0;
    for (const auto& e : readEvents(run))
        if (e["kind"] == "checkpoint" && e["step"].get<int>() > 20) {
            epochs.push_back(e["epoch"].get<int>());
            ++saved;
        }
    ASSERT_FALSE(epochs.empty());
    EXPECT_GE(epochs.front(), 2) << "the epoch count ran backwards";
    EXPECT_TRUE(std::is_sorted(epochs.begin(), epochs.end()));
    EXPECT_EQ(epochs.back(), 3);  // step 44: the reference's epoch 2 and one more of ours (step 32 + 12)
    ASSERT_TRUE(fs::exists(cks + "/checkpoint_3.pt"));
    const PyResult last = python(dir, {"inspect", cks + "/checkpoint_3.pt"});
    ASSERT_EQ(last.code, 0) << last.err;
    EXPECT_EQ(last.out["epoch"], 3);
    EXPECT_EQ(last.out["img_list"], 2 + saved);
    const std::vector<double> lastG = numbers(last.out["losses"]["_G"]);
    ASSERT_EQ(lastG.size(), refG.size() + 12);  // its history, then ours at steps 22, 24, ..., 44
    EXPECT_TRUE(std::equal(refG.begin(), refG.end(), lastG.begin()));

    // Its grids as the app's sample timeline gets them: `export --format img-list`, one PNG per
    // grid, each the 8-bit image torch's own conversion makes of it.
    const std::string grids = dir / "grids";
    const CliResult x = cli.run({"export", "--checkpoint", cks + "/checkpoint_3.pt", "--format", "img-list", "--out", grids});
    ASSERT_EQ(x.code, 0) << x.err;
    EXPECT_EQ(x.out, grids + "\n");
    const nlohmann::json index = nlohmann::json::parse(CliRunner::slurp(grids + "/img_list.json"));
    EXPECT_EQ(index["epoch"], 3);
    ASSERT_EQ(index["files"].size(), last.out["grids"].size());
    for (size_t k = 0; k < index["files"].size(); ++k) {
        const cv::Mat png = cv::imread(grids + "/" + index["files"][k].get<std::string>(), cv::IMREAD_UNCHANGED);
        const auto& want = last.out["grids"][k];
        ASSERT_FALSE(png.empty()) << k;
        EXPECT_EQ(png.cols, want[0].get<int>()) << k;
        EXPECT_EQ(png.rows, want[1].get<int>()) << k;
        EXPECT_EQ(png.channels(), 3);
        EXPECT_EQ(static_cast<int64_t>(cv::sum(png)[0] + cv::sum(png)[1] + cv::sum(png)[2]), want[2].get<int64_t>()) << k;
    }
    // A checkpoint of ours alone keeps its grids as sample files: a one-line error, exit 4.
    const CliResult none = cli.run({"export", "--checkpoint", kDemoCheckpoint, "--format", "img-list", "--out", dir / "none"});
    EXPECT_EQ(none.code, 4);
    EXPECT_NE(none.err.find("holds no img_list grids"), std::string::npos) << none.err;

    // The reference's resume by number: checkpoint_3.pt, everything carried on.
    const PyResult again = python(dir, {"resume", cks, "3", "4", "--images", "32", "--batch", "8", "--log-frequency", "2"});
    ASSERT_EQ(again.code, 0) << again.err << again.text;
    EXPECT_EQ(again.out["start_epoch"], 3);
    EXPECT_EQ(again.out["img_list_in"], 2 + saved);
    EXPECT_EQ(again.out["img_list_out"], 3 + saved);
    EXPECT_EQ(numbers(again.out["losses_in"]["_G"]), lastG);
}

TEST(ReferenceResume, SlimExportLoadsInTheReferenceApiAndDrawsWhatSampleDraws) {
    TempDir dir;
    CliRunner cli(dir.path());
    const std::string slim = dir / "slim_checkpoint_8.pt";
    const CliResult e = cli.run({"export", "--checkpoint", kDemoCheckpoint, "--format", "slim", "--out", slim});
    ASSERT_EQ(e.code, 0) << e.err;
    EXPECT_EQ(e.out, slim + "\n");

    // Our sample from the slim file equals our sample from the full one (same G, same draws).
    const std::vector<std::string> draw = {"--seed", "5", "--count", "16", "--nrow", "4", "--padding", "4"};
    std::vector<std::string> fromSlim = {"sample", "--checkpoint", slim, "--out", dir / "slim.png"};
    std::vector<std::string> fromFull = {"sample", "--checkpoint", kDemoCheckpoint, "--out", dir / "full.png"};
    fromSlim.insert(fromSlim.end(), draw.begin(), draw.end());
    fromFull.insert(fromFull.end(), draw.begin(), draw.end());
    const CliResult a = cli.run(fromSlim), b = cli.run(fromFull);
    ASSERT_EQ(a.code, 0) << a.err;
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_TRUE(sameImage(dir / "slim.png", dir / "full.png"));

    // The reference API's loader (get_checkpoint + restore_G_for_inference) takes the slim file,
    // and its generator draws our sample's grid from the same noise.
    const PyResult api = python(dir, {"api-load", slim, "--seed", "5", "--count", "16", "--nrow", "4", "--padding", "4", "--png", dir / "slim.png"});
    ASSERT_EQ(api.code, 0) << api.err << api.text;
    EXPECT_EQ(api.out["problems"], nlohmann::json::array());
    EXPECT_LE(api.out["max_pixel_diff"].get<int>(), 1);
    EXPECT_LT(api.out["differing_fraction"].get<double>(), 0.01);

    // render takes it in place of the session's checkpoint: the same frames as the full file.
    nlohmann::json session = nlohmann::json::parse(std::ifstream(std::string(STREETGAN_DEMO_DIR) + "/tiny-32-walk.json"));
    session["checkpoint"] = kDemoCheckpoint;
    session["frames_per_segment"] = 2;
    std::ofstream(dir / "walk.json") << session.dump();
    const std::string cache = "XDG_CACHE_HOME=" + CliRunner::quote(dir / "cache");
    const CliResult rs = cli.run({"render", "--session", dir / "walk.json", "--checkpoint", slim, "--out", dir / "slim_walk.png"}, cache);
    ASSERT_EQ(rs.code, 0) << rs.err;
    const CliResult rf = cli.run({"render", "--session", dir / "walk.json", "--out", dir / "full_walk.png"}, cache);
    ASSERT_EQ(rf.code, 0) << rf.err;
    EXPECT_TRUE(sameImage(dir / "slim_walk.png", dir / "full_walk.png"));

    // serve starts on it (port 0: any free port) and stops on SIGTERM.
    const std::string served = dir / "serve.out";
    const std::string script = CliRunner::quote(STREETGAN_TRAINER) + " serve --checkpoint " + CliRunner::quote(slim) + " --bind 127.0.0.1:0 >" +
                               CliRunner::quote(served) + " 2>&1 & p=$!; i=0; while [ $i -lt 600 ] && ! grep -q serving " + CliRunner::quote(served) +
                               " && kill -0 $p 2>/dev/null; do sleep 0.1; i=$((i+1)); done; kill -TERM $p; wait $p";
    const int serveStatus = std::system(("sh -c " + CliRunner::quote(script)).c_str());
    (void)serveStatus;  // its exit status after SIGTERM is serve's business; the output is checked
    const std::string serveOut = CliRunner::slurp(served);
    EXPECT_NE(serveOut.find("serving http://127.0.0.1:"), std::string::npos) << serveOut;
    EXPECT_NE(serveOut.find("tiny-32"), std::string::npos) << serveOut;

    // What needs more than G says so: no fixed noise in a slim file; training cannot resume from it.
    const CliResult fixed = cli.run({"sample", "--checkpoint", slim, "--fixed-noise", "--out", dir / "x.png"});
    EXPECT_EQ(fixed.code, 4);
    EXPECT_NE(fixed.err.find("no fixed noise"), std::string::npos) << fixed.err;
    fs::create_directories(dir / "slimrun/checkpoints");
    fs::copy_file(slim, dir / "slimrun/checkpoints/checkpoint_8.pt");
    const CliResult tr =
        cli.run({"train", "--run-dir", dir / "slimrun", "--resume", "--preset", "tiny-32", "--steps", "4", "--batch", "8", "--synthetic-images", "64"});
    EXPECT_EQ(tr.code, 4);
    EXPECT_NE(tr.err.find("only the generator"), std::string::npos) << tr.err;
    EXPECT_NE(tr.err.find("checkpoint_8.pt"), std::string::npos) << tr.err;
    EXPECT_EQ(std::count(tr.err.begin(), tr.err.end(), '\n'), 1) << tr.err;
}
