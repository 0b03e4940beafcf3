// The features a build may leave out (base/util/BuildFeatures.h): where a build has photos (the
// full build, and the `cuda` preset's that the GPU bundle carries) a photo folder opens; in a
// build without them (STREETGAN_WITH_PHOTOS=OFF) every way in says so in one line naming the
// option and what to do instead, and nothing is written. `version` tells which build it is.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/run/TrainConfig.h"
#include "base/util/AtomicFile.h"
#include "base/util/BuildFeatures.h"
#include "base/util/Errors.h"
#include "base/util/PngEncoder.h"
#include "ml/dataset/DataSources.h"
#include "support/TempDir.h"
#include "trainer/TrainerCli.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

struct CliResult {
    int code;
    std::string out, err;
};

CliResult runCli(std::vector<std::string> args) {
    args.insert(args.begin(), "streetgan-trainer");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    const int code = TrainerCli::run(static_cast<int>(argv.size()), argv.data());
    std::string out = testing::internal::GetCapturedStdout();
    return {code, out, testing::internal::GetCapturedStderr()};
}

// A folder of eight 96x80 PNG photos (PNG: this build may have no JPEG encoder).
std::string photoFolder(const TempDir& dir) {
    const fs::path folder = dir / "photos";
    fs::create_directories(folder);
    std::vector<uint8_t> px(96 * 80 * 3);
    for (int i = 0; i < 8; ++i) {
        for (size_t k = 0; k < px.size(); ++k) px[k] = static_cast<uint8_t>(k * 7 + static_cast<size_t>(i) * 31);
        AtomicFile::write((folder / ("p" + std::to_string(i) + ".png")).string(), PngEncoder::encode(px.data(), 96, 80, 3));
    }
    return folder.string();
}

}  // namespace

TEST(BuildFeatures, VersionNamesTheBuildsFeatures) {
    const CliResult r = runCli({"version", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("features"), BuildFeatures::summary());
    EXPECT_EQ(j.at("features"), std::string(STREETGAN_WITH_PHOTOS ? "photos" : "no-photos") + ", " + (STREETGAN_WITH_MP4 ? "mp4" : "no-mp4") + ", " +
                                    (STREETGAN_WITH_SSH ? "ssh" : "no-ssh") + ", " + (STREETGAN_WITH_S3 ? "s3" : "no-s3"));
}

TEST(BuildFeatures, PhotoFoldersOpenOrAreRefusedByName) {
    TempDir dir;
    const std::string folder = photoFolder(dir);
    TrainConfig cfg;
    cfg.model.imgSize = 32;
    cfg.cropFactor = 2.0;
    if (BuildFeatures::kPhotos) {
        EXPECT_EQ(DataSources::open(folder, cfg)->size(), 8);
        return;
    }
    try {
        DataSources::open(folder, cfg);
        FAIL() << "a build without photos opened a photo folder";
    } catch (const ConfigError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("data source '" + folder + "'"), std::string::npos) << m;
        EXPECT_NE(m.find("STREETGAN_WITH_PHOTOS=OFF"), std::string::npos) << m;
        EXPECT_NE(m.find("data pack"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
    // The commands that need photos say the same and write nothing.
    CliResult r = runCli({"data", "pack", folder, "--size", "32", "--out", dir / "cache"});
    EXPECT_EQ(r.code, static_cast<int>(ExitCode::Config));
    EXPECT_NE(r.err.find("STREETGAN_WITH_PHOTOS=OFF"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "cache"));
    r = runCli({"data", "stats", folder});
    EXPECT_EQ(r.code, static_cast<int>(ExitCode::Config));
    EXPECT_NE(r.err.find("STREETGAN_WITH_PHOTOS=OFF"), std::string::npos) << r.err;
    r = runCli({"data", "synth", "--count", "2", "--out", dir / "synth"});
    EXPECT_EQ(r.code, static_cast<int>(ExitCode::Config));
    EXPECT_FALSE(fs::exists(dir / "synth/synthetic/0.jpg"));
}
