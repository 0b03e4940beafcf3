#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/dataset/DatasetIndex.h"
#include "base/util/Errors.h"
#include "base/util/SeedHash.h"
#include "ml/dataset/PackedCacheSource.h"
#include "ml/dataset/PackedCacheWriter.h"
#include "ml/dataset/PhotoSource.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A 640x480 (or w x h) photo-like JPEG with texture, varied by `i`.
std::vector<uchar> photo(int i, int w = 640, int h = 480) {
    cv::Mat img(h, w, CV_8UC3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            img.at<cv::Vec3b>(y, x) = cv::Vec3b(static_cast<uchar>((x * 3 + i * 7) % 256), static_cast<uchar>(150 + (y / 8 + i) % 60),
                                                static_cast<uchar>(90 + (x / 16 + y / 16) % 100));
    std::vector<cv::Point> road = {{w / 2 - 10 - i, h / 2}, {w / 2 + 10 + i, h / 2}, {w, h}, {0, h}};
    cv::fillConvexPoly(img, road, cv::Scalar(80, 80, 80));
    cv::circle(img, {(i * 37) % w, h / 2}, 30, cv::Scalar(0, 0, 255), -1);
    std::vector<uchar> jpg;
    cv::imencode(".jpg", img, jpg, {cv::IMWRITE_JPEG_QUALITY, 92});
    return jpg;
}

void write(const std::string& path, const std::vector<uchar>& bytes) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

constexpr int kGood = 30;

// 30 photos in two cities (three of them 800x480, one 480x640 portrait), a truncated JPEG, a
// text file named .jpg and a too-small photo.
void makeFolder(const std::string& root) {
    for (int i = 0; i < 18; ++i) write(root + "/cityA/seq1/a" + std::to_string(100 + i) + ".jpg", i < 3 ? photo(i, 800, 480) : photo(i));
    for (int i = 0; i < 12; ++i) write(root + "/cityB/b" + std::to_string(100 + i) + ".jpg", i == 5 ? photo(20 + i, 480, 640) : photo(20 + i));
    auto good = photo(50);
    write(root + "/cityB/truncated.jpg", std::vector<uchar>(good.begin(), good.begin() + static_cast<long>(good.size() / 2)));
    std::ofstream(root + "/cityB/notes.jpg") << "this is not an image\n";
    write(root + "/cityB/tiny.jpg", photo(60, 100, 80));
}

AugmentParams params(int size, double cropFactor = 4.0, bool flip = true) {
    AugmentParams a;
    a.size = size;
    a.cropFactor = cropFactor;
    a.flip = flip;
    return a;
}

std::map<std::string, std::string> dirContents(const std::string& dir) {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out[e.path().filename().string()] = readAll(e.path().string());
    return out;
}

struct Fixture {
    TempDir data;
    DatasetIndex index;
    Fixture() {
        makeFolder(data.path());
        index = DatasetIndex::scanFolder(data.path(), IndexOptions{});
    }
};

}  // namespace

TEST(PackedCache, PacksUsableImagesAndRecordsSkips) {
    Fixture f;
    TempDir out;
    int64_t lastDone = -1, lastTotal = -1;
    const auto summary = PackedCacheWriter::pack(
        f.index, PackedCacheWriter::folderReader(f.data.path()), out.path(), params(32),
        [&](int64_t done, int64_t total) {
            EXPECT_GE(done, lastDone);
            lastDone = done;
            lastTotal = total;
        },
        nullptr, 60'000);
    EXPECT_TRUE(summary.complete);
    EXPECT_EQ(summary.images, kGood);
    EXPECT_EQ(lastDone, f.index.size());
    EXPECT_EQ(lastTotal, f.index.size());
    EXPECT_GE(summary.shards, 3);
    EXPECT_FALSE(fs::exists(out / "progress.json"));

    PackedCacheSource src(out.path());
    EXPECT_EQ(src.size(), kGood);
    const auto skipped = src.skipped();
    EXPECT_EQ(skipped.at("truncated"), 1);
    EXPECT_EQ(skipped.at("not-an-image"), 1);
    EXPECT_EQ(skipped.at("too-small"), 1);
    EXPECT_DOUBLE_EQ(src.noiseStd(), 0.05);
    EXPECT_NE(src.describe().find("30 images"), std::string::npos) << src.describe();
    const auto index = nlohmann::json::parse(readAll(out / "index.json"));
    EXPECT_EQ(index["skipped_images"].size(), 3u);
    EXPECT_EQ(index["records"].size(), static_cast<size_t>(kGood));
    EXPECT_EQ(index["records"][0][1], "cityA");
    EXPECT_EQ(index["shards"].size(), static_cast<size_t>(summary.shards));
    for (const auto& r : src.records()) {
        EXPECT_EQ(r.cols, 32 + 2 * r.margin);
        EXPECT_EQ(r.margin, static_cast<int>(std::lround(0.2 * r.width * 32 / 128.0))) << r.key;
    }
    PackedCacheSource::verify(out.path());

    // Packing again is a no-op.
    const auto again = PackedCacheWriter::pack(f.index, PackedCacheWriter::folderReader(f.data.path()), out.path(), params(32), {}, nullptr, 60'000);
    EXPECT_TRUE(again.alreadyComplete);

    std::vector<uint8_t> img(32 * 32 * 3);
    EXPECT_THROW(src.load(0, 64, 1, img.data()), ConfigError);
    EXPECT_THROW(src.load(kGood, 32, 1, img.data()), DataError);
}

TEST(PackedCache, VerifyNamesACorruptShardAndOpeningRejectsATruncatedOne) {
    Fixture f;
    TempDir out;
    PackedCacheWriter::pack(f.index, PackedCacheWriter::folderReader(f.data.path()), out.path(), params(32), {}, nullptr, 60'000);
    const std::string shard1 = out / "shard_00001.bin";
    ASSERT_TRUE(fs::exists(shard1));
    {
        std::fstream io(shard1, std::ios::binary | std::ios::in | std::ios::out);
        io.seekg(1000);
        char c = 0;
        io.read(&c, 1);
        c = static_cast<char>(c ^ 0x10);
        io.seekp(1000);
        io.write(&c, 1);
    }
    PackedCacheSource opened(out.path());  // opening does not read every byte
    try {
        PackedCacheSource::verify(out.path());
        FAIL() << "verify accepted a flipped byte";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("shard_00001.bin"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("corrupt"), std::string::npos) << e.what();
    }

    fs::resize_file(out / "shard_00002.bin", 100);
    try {
        PackedCacheSource src(out.path());
        FAIL() << "opened a cache with a truncated shard";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("shard_00002.bin' is truncated"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("pack the data again"), std::string::npos) << e.what();
    }
    EXPECT_THROW(PackedCacheSource::verify(out.path()), DataError);
    fs::remove(out / "shard_00002.bin");
    EXPECT_THROW(PackedCacheSource src(out.path()), DataError);

    // Another version.
    auto index = nlohmann::json::parse(readAll(out / "index.json"));
    index["version"] = 99;
    std::ofstream(out / "index.json") << index.dump();
    try {
        PackedCacheSource src(out.path());
        FAIL();
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("version 99"), std::string::npos) << e.what();
    }
    fs::remove(out / "index.json");
    EXPECT_THROW(PackedCacheSource src(out.path()), DataError);
}

TEST(PackedCache, CancelledPackResumesToByteIdenticalOutput) {
    Fixture f;
    TempDir whole, parts;
    const auto reader = PackedCacheWriter::folderReader(f.data.path());
    PackedCacheWriter::pack(f.index, reader, whole.path(), params(32), {}, nullptr, 50'000, 3);

    std::atomic<bool> cancel{false};
    const int64_t total = f.index.size();
    const auto first = PackedCacheWriter::pack(
        f.index, reader, parts.path(), params(32),
        [&](int64_t done, int64_t) {
            if (done >= total / 2) cancel = true;
        },
        &cancel, 50'000, 3);
    EXPECT_FALSE(first.complete);
    EXPECT_FALSE(fs::exists(parts / "index.json"));
    EXPECT_TRUE(fs::exists(parts / "progress.json"));
    EXPECT_GE(first.shards, 1);
    EXPECT_THROW(PackedCacheSource src(parts.path()), DataError);

    // A crash mid-shard leaves a partial .tmp shard and maybe a stray later shard: both ignored.
    write(parts / (PackedCacheWriter::shardName(first.shards) + ".tmp"), std::vector<uchar>(777, 1));
    write(parts / PackedCacheWriter::shardName(first.shards + 3), std::vector<uchar>(5, 2));

    const auto second = PackedCacheWriter::pack(f.index, reader, parts.path(), params(32), {}, nullptr, 50'000, 1);
    EXPECT_TRUE(second.complete);
    EXPECT_GT(second.resumedFromEntry, 0);
    EXPECT_LT(second.resumedFromEntry, total);
    const auto a = dirContents(whole.path()), b = dirContents(parts.path());
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [name, bytes] : a) {
        ASSERT_TRUE(b.count(name)) << name;
        EXPECT_TRUE(bytes == b.at(name)) << name << " differs";
    }
    PackedCacheSource::verify(parts.path());

    // Different parameters start over.
    TempDir other;
    cancel = false;
    PackedCacheWriter::pack(
        f.index, reader, other.path(), params(32),
        [&](int64_t done, int64_t) {
            if (done >= total / 2) cancel = true;
        },
        &cancel, 50'000);
    const auto fresh = PackedCacheWriter::pack(f.index, reader, other.path(), params(16), {}, nullptr, 50'000);
    EXPECT_EQ(fresh.resumedFromEntry, 0);
    EXPECT_EQ(PackedCacheSource(other.path()).params().size, 16);
}

// For the same (image, seed) the cache shows the same shift and flip as PhotoSource; pixels are
// identical in the reference JPEG case (crop / reduction == size) and close otherwise: there the
// cache resamples crop and margins together (slightly different horizontal scale) and can only
// shift by whole cache pixels while PhotoSource shifts by whole decoded pixels (2/3 of a cache
// pixel at crop factor 3), which shows on this test's sharp sawtooth edges.
void compareWithFolder(const AugmentParams& p, double maxMeanDiff, double maxDiff) {
    Fixture f;
    TempDir out;
    PackedCacheWriter::pack(f.index, PackedCacheWriter::folderReader(f.data.path()), out.path(), p);
    PackedCacheSource cache(out.path());
    auto folder = PhotoSource::folder(f.data.path(), IndexOptions{}, p);
    ASSERT_EQ(folder->index().size(), f.index.size());
    std::map<std::string, int64_t> folderIndexOfKey;
    for (int64_t i = 0; i < folder->size(); ++i) folderIndexOfKey[folder->index().entries()[static_cast<size_t>(i)].key] = i;

    const int S = p.size;
    std::vector<uint8_t> a(static_cast<size_t>(S) * S * 3), b(a.size());
    double worst = 0.0, sum = 0.0;
    int flips = 0, n = 0;
    for (int64_t i = 0; i < cache.size(); ++i) {
        const int64_t j = folderIndexOfKey.at(cache.records()[static_cast<size_t>(i)].key);
        for (uint64_t s = 0; s < 12; ++s) {
            const uint64_t seed = SeedHash::of(7, static_cast<uint64_t>(i), s);
            cache.load(i, S, seed, a.data());
            folder->load(j, S, seed, b.data());
            double diff = 0.0;
            for (size_t k = 0; k < a.size(); ++k) diff += std::abs(int(a[k]) - int(b[k]));
            diff /= static_cast<double>(a.size());
            worst = std::max(worst, diff);
            sum += diff;
            ++n;
            flips += cache.draw(i, seed).flipped;
            EXPECT_LE(diff, maxDiff) << "image " << cache.records()[static_cast<size_t>(i)].key << " seed " << seed;
        }
    }
    std::printf("[ info ] size %d crop factor %.1f: mean |diff| %.3f grey levels (worst %.3f), %d of %d flipped\n", S, p.cropFactor, sum / n, worst, flips, n);
    EXPECT_LE(sum / n, maxMeanDiff);
    EXPECT_GT(flips, n / 4);
    EXPECT_LT(flips, 3 * n / 4);
}

TEST(PackedCache, MatchesPhotoSourceExactlyInTheReferenceCase) { compareWithFolder(params(32), 0.0, 0.0); }

TEST(PackedCache, MatchesPhotoSourceUpToResamplingOtherwise) { compareWithFolder(params(32, 3.0), 3.0, 8.0); }
