// --data-path (issue 46 item 3): a run on photos trains from the packed cache made of the same
// photos with its settings when there is one, packs first where DataPathChoice says (on a GPU, or
// when asked), decodes otherwise, and says which and why. Real photos, real packs, a real
// registry in a temporary XDG_CACHE_HOME; the GPU's rule is taken with cuda=true (openForTraining
// uses the flag only to decide).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "base/dataset/PackRegistry.h"
#include "base/run/TrainConfig.h"
#include "base/util/Errors.h"
#include "ml/dataset/DataSources.h"
#include "ml/dataset/PackedCacheSource.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

void writePhoto(const std::string& path, int i) {
    cv::Mat img(240, 320, CV_8UC3, cv::Scalar(40 + i * 5 % 200, 120, 200 - i * 3 % 150));
    cv::circle(img, {(i * 37) % 320, 120}, 30, cv::Scalar(0, 0, 255), -1);
    std::vector<uchar> jpg;
    cv::imencode(".jpg", img, jpg);
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(jpg.data()), static_cast<std::streamsize>(jpg.size()));
}

class DataPathTest : public ::testing::Test {
protected:
    void SetUp() override {
        setenv("XDG_CACHE_HOME", (tmp / "cache").c_str(), 1);
        for (int i = 0; i < 40; ++i) writePhoto(photos + "/cityA/s1/" + std::to_string(100 + i) + ".jpg", i);
        cfg.model.imgSize = 32;
        cfg.data = photos;
        cfg.batch = 8;
        cfg.epochs = 5;
        cfg.cropFactor = 7;  // 224 source pixels: the crop fits the 240-row photos
    }
    void TearDown() override { unsetenv("XDG_CACHE_HOME"); }

    // openForTraining with what it said.
    std::shared_ptr<const ImageSource> open(bool cuda = false, int world = 1, const std::atomic<bool>* stop = nullptr) {
        said.clear();
        return DataSources::openForTraining(
            cfg.data, cfg, cuda, world, [&](const std::string& line) { said.push_back(line); }, stop);
    }
    static bool packed(const std::shared_ptr<const ImageSource>& s) { return dynamic_cast<const PackedCacheSource*>(s.get()) != nullptr; }
    bool saidSomething(const std::string& what) const {
        for (const auto& l : said)
            if (l.find(what) != std::string::npos) return true;
        return false;
    }
    std::string allSaid() const {
        std::string s;
        for (const auto& l : said) s += l + "\n";
        return s;
    }

    TempDir tmp;
    std::string photos = tmp / "photos";
    TrainConfig cfg;
    std::vector<std::string> said;
};

}  // namespace

TEST_F(DataPathTest, OnTheCpuWithNoPackThePhotosAreDecodedAndNothingIsSaid) {
    const auto s = open();
    EXPECT_FALSE(packed(s));
    EXPECT_TRUE(s->decodesPhotos());
    EXPECT_EQ(s->size(), 40);
    EXPECT_TRUE(said.empty()) << allSaid();
    EXPECT_FALSE(fs::exists(PackRegistry::defaultFile()));
}

TEST_F(DataPathTest, PackedPacksOnceRecordsItAndLaterRunsFindItByThemselves) {
    cfg.dataPath = "packed";
    const auto first = open();
    ASSERT_TRUE(packed(first));
    EXPECT_TRUE(saidSomething("data: packing the photos once before training (--data-path packed)")) << allSaid();
    EXPECT_TRUE(saidSomething("data: packing 40/40 images")) << allSaid();
    EXPECT_NE(first->describe().find("chosen for '" + photos + "'"), std::string::npos) << first->describe();
    const auto registered = PackRegistry().forSource(PackRegistry::sourceKey(photos));
    ASSERT_EQ(registered.size(), 1u);
    EXPECT_EQ(registered[0].images, 40);
    EXPECT_TRUE(fs::exists(registered[0].dir + "/index.json"));

    // The default (auto) on the CPU: the same pack, said; the photos given with a trailing slash
    // are the same photos.
    cfg.dataPath = "auto";
    cfg.data = photos + "/";
    const auto again = open();
    ASSERT_TRUE(packed(again));
    EXPECT_TRUE(saidSomething("data: training from the packed cache '" + registered[0].dir + "'")) << allSaid();
    EXPECT_FALSE(saidSomething("packing")) << allSaid();

    // The images are the pack's: the same as the photos give, up to resampling (same draws).
    cfg.dataPath = "photos";
    const auto decoded = open();
    EXPECT_FALSE(packed(decoded));
    EXPECT_TRUE(said.empty()) << allSaid();
    std::vector<uint8_t> a(32 * 32 * 3), b(32 * 32 * 3);
    again->load(7, 32, 1234, a.data());
    decoded->load(7, 32, 1234, b.data());
    int worst = 0;
    for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(int(a[i]) - int(b[i])));
    EXPECT_LE(worst, 24);  // same crop, shift and flip; the pack resizes once from a DCT-reduced decode
}

TEST_F(DataPathTest, APackOfOtherSettingsOrOtherPhotosIsNotUsedAndSaidSo) {
    cfg.dataPath = "packed";
    ASSERT_TRUE(packed(open()));
    const std::string dir = PackRegistry().forSource(PackRegistry::sourceKey(photos)).at(0).dir;
    cfg.dataPath = "auto";
    cfg.maxShift = 0.1;  // other augmentation
    auto s = open();
    EXPECT_FALSE(packed(s));
    EXPECT_TRUE(saidSomething("the packed cache '" + dir + "' was made of other photos or with other settings")) << allSaid();
    EXPECT_TRUE(saidSomething("data pack " + photos + " --size 32 --crop-factor 7 --max-shift 0.1 packs them for this run")) << allSaid();

    cfg.maxShift = TrainConfig().maxShift;
    writePhoto(photos + "/cityA/s1/999.jpg", 99);  // a photo more
    s = open();
    EXPECT_FALSE(packed(s));
    EXPECT_EQ(s->size(), 41);
    EXPECT_TRUE(saidSomething("was made of other photos")) << allSaid();

    // Another size: a pack for other runs, not stale.
    fs::remove(photos + "/cityA/s1/999.jpg");
    cfg.model.imgSize = 64;
    cfg.cropFactor = 3;
    s = open();
    EXPECT_FALSE(packed(s));
    EXPECT_TRUE(said.empty()) << allSaid();
}

TEST_F(DataPathTest, ADeletedOrDamagedPackIsNotTrusted) {
    cfg.dataPath = "packed";
    ASSERT_TRUE(packed(open()));
    const std::string dir = PackRegistry().forSource(PackRegistry::sourceKey(photos)).at(0).dir;
    fs::resize_file(dir + "/shard_00000.bin", 100);  // truncated
    cfg.dataPath = "auto";
    const auto s = open();
    EXPECT_FALSE(packed(s));
    EXPECT_TRUE(said.empty()) << allSaid();
    // --data-path packed packs it again, in the same place.
    cfg.dataPath = "packed";
    EXPECT_TRUE(packed(open()));
}

TEST_F(DataPathTest, OnAGpuARunThatReadsThePhotosTwiceOrMorePacksFirst) {
    const auto s = open(/*cuda=*/true);
    ASSERT_TRUE(packed(s));
    EXPECT_TRUE(saidSomething("data: packing the photos once before training: a GPU step outruns JPEG decoding and this run reads them 5 times")) << allSaid();
    EXPECT_TRUE(saidSomething("--data-path photos decodes them instead")) << allSaid();

    // Once only: a run of under two epochs on other settings decodes, and says nothing new.
    cfg.maxShift = 0.05;
    cfg.epochs = 0;
    cfg.steps = 5;  // 40 images at batch 8: one epoch
    const auto once = open(true);
    EXPECT_FALSE(packed(once));
    EXPECT_TRUE(saidSomething("reads them less than twice")) << allSaid();
}

TEST_F(DataPathTest, AStoppedRunStopsPackingAndTheNextOneGoesOn) {
    cfg.dataPath = "packed";
    const std::atomic<bool> stop{true};  // SIGTERM before packing began
    try {
        open(false, 1, &stop);
        FAIL() << "no error";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("for this run stopped after 0 of 40 images: start the run again to go on packing"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(PackRegistry().forSource(PackRegistry::sourceKey(photos)).empty());  // nothing recorded for a pack not made
    const auto s = open();
    ASSERT_TRUE(packed(s));
    EXPECT_EQ(s->size(), 40);
}

TEST_F(DataPathTest, DistributedRanksDoNotPackButSayHow) {
    const auto s = open(/*cuda=*/true, /*world=*/2);
    EXPECT_FALSE(packed(s));
    EXPECT_TRUE(saidSomething("the ranks of a distributed run do not pack by themselves")) << allSaid();
    EXPECT_TRUE(saidSomething("streetgan-trainer data pack " + photos + " --size 32 --crop-factor 7")) << allSaid();
    cfg.dataPath = "packed";
    try {
        open(true, 2);
        FAIL() << "no error";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("pack once first"), std::string::npos) << e.what();
    }
}

TEST_F(DataPathTest, PackedRefusesWhatItCannotPack) {
    cfg.dataPath = "packed";
    cfg.data = tmp / "photos.zip";
    std::ofstream(cfg.data) << "not really";
    try {
        open();
        FAIL() << "no error";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("'" + cfg.data + "' is neither"), std::string::npos) << e.what();
    }
    cfg.data = "synthetic";  // nothing to pack: the scenes are drawn, as always
    EXPECT_FALSE(packed(open()));
}
