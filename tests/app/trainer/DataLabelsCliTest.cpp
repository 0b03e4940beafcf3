// `streetgan-trainer data labels --data DIR [--labels ...] [--json]`: the labels of an MSLS tree
// (its postprocessed.csv / raw.csv files and city folders, written here in the real format) and
// of the synthetic scenes, with classes and counts; a label that is absent or has one class only
// is refused with one line each and exit code 6; problems of the CSV files are printed, not fatal.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/CliRunner.h"
#include "support/TempDir.h"

using namespace streetgan::test;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

// train_val/berlin (night and day, two views, winter) and train_val/saopaulo (a July capture:
// winter south of the equator), one malformed row in berlin's postprocessed.csv.
void makeMsls(const fs::path& root) {
    const fs::path tv = root / "train_val";
    write(tv / "berlin/database/postprocessed.csv",
          ",key,utm,night,control_panel,view_direction,unique_cluster\n"
          "0,b1,\"(552103.3, 5808541.2)\",False,False,Forward,1\n"
          "1,b2,\"(552104.1, 5808542.0)\",True,False,Sideways,1\n"
          "2,b3,\"(552105.0, 5808543.9)\",perhaps,False,Forward,2\n");
    write(tv / "berlin/database/raw.csv", "key,lon,lat,ca,captured_at,pano\nb1,13.4,52.5,90,1546300800000,False\nb2,13.4,52.5,90,1546300800000,False\n");
    write(tv / "saopaulo/query/postprocessed.csv", "key,day/night,control_panel,qualitative_view_direction\ns1,day,0,sidewards\n");
    write(tv / "saopaulo/query/raw.csv", "key,lon,lat,ca,captured_at,pano\ns1,-46.6,-23.5,90,1562500000000,False\n");
}

class DataLabelsCli : public ::testing::Test {
protected:
    CliResult labels(const std::vector<std::string>& args) const {
        std::vector<std::string> all{"data", "labels"};
        all.insert(all.end(), args.begin(), args.end());
        return cli.run(all);
    }
    TempDir tmp;
    CliRunner cli{tmp.path()};
};

}  // namespace

TEST_F(DataLabelsCli, MslsClassesCountsAndProblems) {
    makeMsls(tmp.path());
    const std::string dir = tmp / "train_val";
    // season has one class here: refused (exit 6), the document is still written.
    const CliResult js = labels({"--data", dir, "--labels", "night,view_direction,city,season", "--json"});
    EXPECT_EQ(js.code, 6) << js.err;
    const auto j = nlohmann::json::parse(js.out);
    EXPECT_EQ(j["images"], 4);
    EXPECT_EQ(j["labels"]["night"]["classes"], nlohmann::json({{"false", 2}, {"true", 1}}));
    EXPECT_EQ(j["labels"]["view_direction"]["classes"], nlohmann::json({{"forward", 2}, {"sideways", 2}}));
    EXPECT_EQ(j["labels"]["city"]["classes"], nlohmann::json({{"berlin", 3}, {"saopaulo", 1}}));
    EXPECT_EQ(j["labels"]["season"]["classes"], nlohmann::json({{"winter", 3}}));  // January in Berlin, July in São Paulo
    EXPECT_EQ(j["errors"], nlohmann::json::array({"season: every image of " + dir + " is 'winter': a direction needs both classes"})) << js.out;
    ASSERT_EQ(j["problems"].size(), 1u);
    EXPECT_NE(j["problems"][0].get<std::string>().find("postprocessed.csv: 1 malformed row (line 4: night 'perhaps' is not a boolean)"), std::string::npos);

    const CliResult ok = labels({"--data", dir, "--labels", "night,view_direction"});
    ASSERT_EQ(ok.code, 0) << ok.err;
    EXPECT_EQ(ok.err, "");
    EXPECT_NE(ok.out.find("night: 2 classes, 3 images\n  false  2  66.7%\n  true   1  33.3%\n"), std::string::npos) << ok.out;
    EXPECT_NE(ok.out.find("problems:\n  "), std::string::npos) << ok.out;
}

TEST_F(DataLabelsCli, AbsentOrSingleClassLabelsAreRefusedOneLineEach) {
    makeMsls(tmp.path());
    const std::string dir = tmp / "train_val";
    const CliResult r = labels({"--data", dir, "--labels", "winter,season,night"});
    EXPECT_EQ(r.code, 6) << r.out << r.err;
    EXPECT_EQ(r.err, "streetgan-trainer: " + dir + " has no label 'winter': its labels are city, control_panel, night, season, view_direction\n" +
                         "streetgan-trainer: season: every image of " + dir + " is 'winter': a direction needs both classes\n");

    const std::string berlin = tmp / "train_val/berlin";
    const CliResult one = labels({"--data", berlin, "--labels", "city"});
    EXPECT_EQ(one.code, 6);
    EXPECT_EQ(one.err, "streetgan-trainer: city: every image of " + berlin + " is 'berlin': a direction needs both classes\n");

    write(tmp.path() / "empty/readme.txt", "no images here\n");
    const CliResult none = labels({"--data", tmp / "empty"});
    EXPECT_EQ(none.code, 6);
    EXPECT_NE(none.err.find("has no labels: give an MSLS folder"), std::string::npos) << none.err;

    const CliResult missing = labels({"--data", tmp / "nowhere", "--labels", "night"});
    EXPECT_NE(missing.code, 0);
    EXPECT_NE(missing.err.find("is not a folder"), std::string::npos) << missing.err;
}

TEST_F(DataLabelsCli, SyntheticScenesLabelThemselves) {
    const CliResult r = labels({"--data", "synthetic", "--images", "400", "--labels", "night,season,camera_height", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["images"], 400);
    EXPECT_EQ(j["labels"]["night"]["classes"]["true"].get<int>() + j["labels"]["night"]["classes"]["false"].get<int>(), 400);
    EXPECT_EQ(j["labels"]["season"]["classes"].size(), 4u);
    EXPECT_EQ(j["labels"]["camera_height"]["kind"], "number");
    EXPECT_EQ(j["errors"], nlohmann::json::array());
    // The same seed, the same labels; another seed, other scenes.
    EXPECT_EQ(labels({"--data", "synthetic", "--images", "400", "--labels", "night,season,camera_height", "--json"}).out, r.out);
    EXPECT_NE(labels({"--data", "synthetic", "--images", "400", "--seed", "3", "--labels", "time_of_day", "--json"}).out,
              labels({"--data", "synthetic", "--images", "400", "--labels", "time_of_day", "--json"}).out);
}
