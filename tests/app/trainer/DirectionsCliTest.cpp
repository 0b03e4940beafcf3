// `streetgan-trainer directions`: named directions fitted on the synthetic streets' labels with the
// demo tiny-32 (the file's contents, the same file for the same seed), a session carrying one
// rendered by `render` (frames change with it), an MSLS folder of photos, a training checkpoint's
// discriminator features, and bad input refused with one line each and
// nothing written: a label absent or with one class (an MSLS tree in the real format), a class
// no image has, a class label without its class, a checkpoint that is not one, too few labelled
// images, --orthogonal-to naming no direction.
#include <gtest/gtest.h>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/CliRunner.h"
#include "support/TempDir.h"

using namespace streetgan::test;
namespace fs = std::filesystem;

namespace {

const std::string kTiny32 = std::string(STREETGAN_DEMO_DIR) + "/tiny-32-synthetic.pt";

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class DirectionsCli : public ::testing::Test {
protected:
    CliResult directions(const std::vector<std::string>& args) const {
        std::vector<std::string> all{"directions", "--checkpoint", kTiny32, "--threads", "2"};
        all.insert(all.end(), args.begin(), args.end());
        return cli.run(all);
    }
    TempDir tmp;
    CliRunner cli{tmp.path()};
};

}  // namespace

TEST_F(DirectionsCli, FitsNamedDirectionsThatRenderReplays) {
    const std::vector<std::string> args{"--data", "synthetic", "--labels", "night,layout=urban", "--orthogonal-to", "urban", "--images", "600", "--samples",
                                        "2000",   "--seed",    "5"};
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--out", tmp / "d.json", "--json"});
    const CliResult r = directions(a);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(slurp(tmp / "d.json"));
    EXPECT_EQ(nlohmann::json::parse(r.out)["directions"], j["directions"]);
    EXPECT_EQ(j["format"], "streetgan-directions/1");
    EXPECT_EQ(j["checkpoint_sha256"].get<std::string>().size(), 64U);
    EXPECT_EQ(j["samples"], 2000);
    ASSERT_EQ(j["directions"].size(), 2U);
    const auto& night = j["directions"][0];
    EXPECT_EQ(night["name"], "night");
    EXPECT_EQ(night["label"], "night");
    EXPECT_EQ(night["z"].size(), 64U);  // tiny-32's nz
    EXPECT_GT(night["classifier"]["held_out_accuracy"].get<double>(), 0.9);
    EXPECT_GT(night["boundary"]["held_out_accuracy"].get<double>(), 0.85);
    EXPECT_EQ(night["boundary"]["extremes_per_side"], 40);
    EXPECT_EQ(night["orthogonal"]["to"], nlohmann::json::array({"urban"}));
    EXPECT_FALSE(j["directions"][1].contains("orthogonal"));
    // The same seed writes the same directions.
    a = args;
    a.insert(a.end(), {"--out", tmp / "again.json"});
    ASSERT_EQ(directions(a).code, 0);
    EXPECT_EQ(nlohmann::json::parse(slurp(tmp / "again.json"))["directions"], j["directions"]);

    // A session with the direction: render replays it, and the frames differ from the plain walk.
    nlohmann::json session = {
        {"checkpoint", kTiny32}, {"keyframes", nlohmann::json::parse(R"([{"seed": 2}, {"seed": 20}])")}, {"frames_per_segment", 2}, {"size", 32}};
    write(tmp / "plain.json", session.dump());
    session["named_directions"] = {{{"name", "night"}, {"z", night["z"]}, {"amount", 3}}};
    write(tmp / "night.json", session.dump());
    for (const std::string s : {"plain", "night"}) {
        const CliResult rr = cli.run({"render", "--session", tmp / (s + ".json"), "--out", tmp / (s + ".png")});
        ASSERT_EQ(rr.code, 0) << rr.err;
        EXPECT_EQ(rr.err, "");
    }
    EXPECT_NE(slurp(tmp / "plain.png"), slurp(tmp / "night.png"));
    session["named_directions"][0]["z"].push_back(1.0);  // nz + 1 numbers: another checkpoint's
    write(tmp / "bad.json", session.dump());
    const CliResult bad = cli.run({"render", "--session", tmp / "bad.json", "--out", tmp / "bad.png"});
    EXPECT_EQ(bad.code, 3);
    EXPECT_NE(bad.err.find("named_directions[0].z"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(tmp / "bad.png"));
}

// The photo path: an MSLS tree of JPEG photos (the synthetic scenes written by `data synth`, labels
// in postprocessed.csv unrelated to them, so the classifier guesses and a warning says so).
TEST_F(DirectionsCli, FitsOnAnMslsFolderOfPhotos) {
    const CliResult synth = cli.run({"data", "synth", "--count", "100", "--out", tmp / "raw"});
    ASSERT_EQ(synth.code, 0) << synth.err;
    const fs::path db = tmp.path() / "msls/train_val/berlin/database";
    fs::create_directories(db / "images");
    std::string csv = ",key,utm,night,control_panel,view_direction,unique_cluster\n";
    for (int i = 0; i < 100; ++i) {
        fs::rename(tmp.path() / "raw/synthetic" / (std::to_string(i) + ".jpg"), db / "images" / (std::to_string(i) + ".jpg"));
        csv += std::to_string(i) + "," + std::to_string(i) + ",\"(1, 2)\"," + (i % 3 == 0 ? "True" : "False") + ",False,Forward,1\n";
    }
    write(db / "postprocessed.csv", csv);
    const CliResult r = directions({"--data", tmp / "msls/train_val", "--labels", "night", "--samples", "1000", "--out", tmp / "d.json", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["labelled_images"], 100);
    const auto& c = j["directions"][0]["classifier"];
    EXPECT_EQ(c["train"].get<int>() + c["held_out"].get<int>(), 100);
    EXPECT_EQ(c["positives"], 34);
    EXPECT_EQ(c["discriminator_features"], false);  // the demo holds G only
    // The warning shows exactly when the classifier is near chance.
    EXPECT_EQ(r.err.find("warning: the classifier of 'night' is") != std::string::npos, c["held_out_accuracy"].get<double>() < 0.65) << r.err;

    // The same tree as an MSLS batch read in place (the downloaded zip): the same images and labels.
    const std::string zip = std::string(STREETGAN_PYTHON) + " -m zipfile -c '" + (tmp / "batch.zip") + "' '" + (tmp / "msls/train_val") + "'";
    ASSERT_EQ(std::system(zip.c_str()), 0) << zip;
    const CliResult z = directions({"--data", tmp / "batch.zip", "--labels", "night", "--samples", "1000", "--out", tmp / "z.json", "--json"});
    ASSERT_EQ(z.code, 0) << z.err;
    const auto zj = nlohmann::json::parse(z.out);
    EXPECT_EQ(zj["labelled_images"], 100);
    EXPECT_EQ(zj["directions"][0]["classifier"]["positives"], 34);
}

// A training checkpoint has a discriminator: the classifier adds D's features to the thumbnail.
TEST_F(DirectionsCli, UsesTheDiscriminatorOfATrainingCheckpoint) {
    const CliResult train =
        cli.run({"train", "--run-dir", tmp / "run", "--preset", "tiny-32", "--steps", "4", "--batch", "4", "--log-every", "2", "--threads", "2"});
    ASSERT_EQ(train.code, 0) << train.err;
    const CliResult r = cli.run({"directions", "--checkpoint", tmp / "run/checkpoints/checkpoint_0.pt", "--data", "synthetic", "--labels", "night", "--samples",
                                 "500", "--images", "300", "--threads", "2", "--out", tmp / "d.json", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto d = nlohmann::json::parse(r.out)["directions"][0];
    EXPECT_EQ(d["classifier"]["discriminator_features"], true);
    EXPECT_GT(d["classifier"]["held_out_accuracy"].get<double>(), 0.9);
    EXPECT_EQ(d["boundary"]["extremes_per_side"], 10);
}

TEST_F(DirectionsCli, BadInputIsOneLineAndWritesNothing) {
    // An MSLS tree's metadata in the real format: every image by day, two cities.
    write(tmp / "msls/train_val/berlin/database/postprocessed.csv",
          ",key,utm,night,control_panel,view_direction,unique_cluster\n0,b1,\"(1, 2)\",False,False,Forward,1\n1,b2,\"(1, 2)\",False,False,Sideways,1\n");
    write(tmp / "msls/train_val/paris/query/postprocessed.csv", "key,night,control_panel,view_direction\np1,False,False,Forward\n");
    std::ofstream(tmp / "not-a-checkpoint.pt") << "hello";
    const std::string out = tmp / "d.json";
    auto refused = [&](std::vector<std::string> args, int code, const std::string& start) {
        args.insert(args.end(), {"--out", out});
        const CliResult r = directions(args);
        EXPECT_EQ(r.code, code) << r.err;
        EXPECT_EQ(r.err.rfind("streetgan-trainer: " + start, 0), 0U) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fs::exists(out));
    };
    const std::string msls = tmp / "msls/train_val";
    refused({"--data", "synthetic", "--labels", "night,view_direction"}, 6, "synthetic has no label 'view_direction'");
    refused({"--data", msls, "--labels", "night"}, 6, "night: every image of " + msls + " is 'false'");
    refused({"--data", msls, "--labels", "city=tokyo"}, 6, msls + ": no image has city 'tokyo'; its classes are berlin (2), paris (1)");
    refused({"--data", msls, "--labels", "city"}, 3, "--labels entry 'city': say which class the direction points to, e.g. city=berlin");
    refused({"--data", "synthetic", "--labels", "night", "--images", "12"}, 6, "night: too few labelled images: ");
    refused({"--data", "synthetic", "--labels", "night", "--orthogonal-to", "city"}, 3, "--orthogonal-to city names no direction being fitted");
    refused({"--data", "synthetic", "--labels", "night", "--samples", "300"}, 3, "--samples 300 at ");
    const CliResult ck = cli.run({"directions", "--checkpoint", tmp / "not-a-checkpoint.pt", "--data", "synthetic", "--labels", "night", "--out", out});
    EXPECT_EQ(ck.code, 4) << ck.err;
    EXPECT_NE(ck.err.find("not-a-checkpoint.pt"), std::string::npos) << ck.err;
    EXPECT_EQ(std::count(ck.err.begin(), ck.err.end(), '\n'), 1) << ck.err;
    EXPECT_FALSE(fs::exists(out));
}
