// PhotoListing and the verdict cache seen from the loader: data stats' check decodes every image
// once (a re-run decodes nothing, a changed file is checked again), the loader never re-reads a
// known-bad file and counts each bad file once per run, and the image count of the check equals
// the number of distinct images one epoch of the loader feeds: for a folder, a zip and a tar.gz.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "ml/dataset/BatchLoader.h"
#include "ml/dataset/PhotoListing.h"
#include "ml/dataset/PhotoSource.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A 176x132 JPEG of its own colour (i < 60 gives 60 different images at any scale).
std::vector<uchar> photo(int i) {
    cv::Mat img(132, 176, CV_8UC3, cv::Scalar(20 + 3 * i, 230 - 2 * i, (i * 53) % 256));
    cv::rectangle(img, {40, 30}, {120, 100}, cv::Scalar((i * 97) % 256, 60, 200 - i), -1);
    std::vector<uchar> jpg;
    cv::imencode(".jpg", img, jpg);
    return jpg;
}

void write(const fs::path& path, const std::vector<uchar>& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// The folder of the issue: 60 good JPEGs, a truncated JPEG, a text file named .jpg, an empty file.
void makeFolder(const fs::path& root) {
    for (int i = 0; i < 60; ++i) write(root / ("street" + std::to_string(i / 20)) / ("img" + std::to_string(i) + ".jpg"), photo(i));
    const auto good = photo(61);
    write(root / "street1" / "cut.jpg", std::vector<uchar>(good.begin(), good.begin() + static_cast<long>(good.size() / 2)));
    std::ofstream(root / "street2" / "notes.jpg") << "this is a text file, not a photo\n";
    std::ofstream(root / "street2" / "empty.jpg");  // NOLINT(bugprone-unused-raii): creates an empty file
}

void makeArchive(const fs::path& folder, const std::string& base, const std::string& format) {
    const std::string cmd = std::string(STREETGAN_PYTHON) + " -c \"import shutil,sys; shutil.make_archive(sys.argv[1], sys.argv[2], root_dir=sys.argv[3])\" '" +
                            base + "' " + format + " '" + folder.string() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

AugmentParams plain32() {  // no random shift, flip or noise: an entry always gives the same pixels
    AugmentParams a;
    a.size = 32;
    a.maxShift = 0;
    a.noiseStd = 0;
    a.flip = false;
    return a;
}

// Distinct images (by their pixels) the loader feeds in `epochs` epochs of `source`.
size_t distinctFed(const std::shared_ptr<const ImageSource>& source, int epochs) {
    LoaderOptions o;
    o.batch = 2;
    o.imgSize = 32;
    o.nz = 4;
    o.threads = 2;
    o.seed = 5;
    BatchLoader loader(source, o);
    loader.start(0);
    std::set<std::string> seen;
    const size_t floats = 3 * 32 * 32;
    for (int64_t s = 0; s < loader.stepsPerEpoch() * epochs; ++s) {
        const Batch b = loader.next();
        const float* p = b.real.data_ptr<float>();
        for (int64_t i = 0; i < o.batch; ++i) seen.insert(std::string(reinterpret_cast<const char*>(p + i * floats), floats * sizeof(float)));
    }
    loader.stop();
    return seen.size();
}

int64_t count(const std::map<std::string, int64_t>& m, const std::string& k) {
    const auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
}

}  // namespace

TEST(PhotoListing, CheckDecodesOnceAndRechecksAChangedFile) {
    TempDir dir;
    makeFolder(dir.path());
    PhotoListing first = PhotoListing::folder(dir.path());
    const auto c1 = first.check(IndexOptions{}, true, 2);
    EXPECT_EQ(c1.decoded, 62);  // the empty file is the lister's: never decoded
    EXPECT_EQ(c1.cached, 0);
    const DatasetIndex idx = first.index(IndexOptions{});
    EXPECT_EQ(idx.size(), 60);
    EXPECT_EQ(idx.skipped(), (std::map<std::string, int64_t>{{"empty file", 1}, {"not-an-image", 1}, {"truncated", 1}}));
    EXPECT_EQ(idx.skippedFiles().at("truncated"), std::vector<std::string>{"street1/cut.jpg"});
    EXPECT_EQ(idx.skippedFiles().at("not-an-image"), std::vector<std::string>{"street2/notes.jpg"});
    EXPECT_EQ(idx.skippedFiles().at("empty file"), std::vector<std::string>{"street2/empty.jpg"});

    // A second check decodes nothing: every verdict comes from the cache, with the same result.
    PhotoListing second = PhotoListing::folder(dir.path());
    const auto c2 = second.check(IndexOptions{}, true, 2);
    EXPECT_EQ(c2.decoded, 0);
    EXPECT_EQ(c2.cached, 62);
    EXPECT_EQ(second.index(IndexOptions{}).stats(), idx.stats());

    // A changed file is checked again (and only it): the cut file repaired, a good one broken.
    write(dir.path() / "street1" / "cut.jpg", photo(61));
    std::ofstream(dir.path() / "street0" / "img3.jpg") << "<html>error page</html>";
    PhotoListing third = PhotoListing::folder(dir.path());
    const auto c3 = third.check(IndexOptions{}, true, 2);
    EXPECT_EQ(c3.decoded, 2);
    EXPECT_EQ(c3.cached, 60);
    const DatasetIndex after = third.index(IndexOptions{});
    EXPECT_EQ(after.size(), 60);
    EXPECT_EQ(after.skipped(), (std::map<std::string, int64_t>{{"empty file", 1}, {"not-an-image", 2}}));
    EXPECT_EQ(after.skippedFiles().at("not-an-image"), (std::vector<std::string>{"street0/img3.jpg", "street2/notes.jpg"}));

    // --no-decode uses what is known and decodes nothing new.
    std::ofstream(dir.path() / "street0" / "img4.jpg") << "more text";
    PhotoListing listingOnly = PhotoListing::folder(dir.path());
    const auto c4 = listingOnly.check(IndexOptions{}, false);
    EXPECT_EQ(c4.decoded, 0);
    EXPECT_EQ(c4.unchecked, 1);
    EXPECT_EQ(listingOnly.index(IndexOptions{}).size(), 60);  // img4 not checked: still counted as an image
}

TEST(PhotoListing, StatsImageCountEqualsWhatOneLoaderEpochFeeds) {
    TempDir dir;
    makeFolder(dir.path());
    // A run before any check: the loader finds the bad files itself, counts each once per run
    // (two epochs here) and records their verdicts into the same cache.
    {
        auto fresh = PhotoSource::folder(dir.path(), IndexOptions{}, plain32());
        EXPECT_EQ(fresh->size(), 62);  // 60 good + cut + notes (the empty file is skipped by the lister)
        EXPECT_EQ(distinctFed(fresh, 2), 60u);
        const auto skipped = fresh->skipped();
        EXPECT_EQ(count(skipped, "truncated"), 1);
        EXPECT_EQ(count(skipped, "not-an-image"), 1);
        EXPECT_EQ(count(skipped, "empty file"), 1);
    }
    // data stats now decodes nothing (the loader's verdicts) and agrees with what it fed.
    PhotoListing listing = PhotoListing::folder(dir.path());
    const auto check = listing.check(IndexOptions{});
    EXPECT_EQ(check.decoded, 0);
    const DatasetIndex stats = listing.index(IndexOptions{});
    EXPECT_EQ(stats.size(), 60);
    EXPECT_EQ(stats.skippedTotal(), 3);

    // The next run never sees the known-bad files: every position of an epoch is a distinct image.
    auto known = PhotoSource::folder(dir.path(), IndexOptions{}, plain32());
    EXPECT_EQ(known->size(), stats.size());
    EXPECT_EQ(distinctFed(known, 1), static_cast<size_t>(stats.size()));
    EXPECT_EQ(known->skipped(), stats.skipped());
}

TEST(PhotoListing, ZipAndTarGzAgreeWithTheirLoader) {
    TempDir dir, arc;
    makeFolder(dir.path());
    makeArchive(dir.path(), arc / "batch", "zip");
    makeArchive(dir.path(), arc / "batch", "gztar");
    for (const std::string name : {"batch.zip", "batch.tar.gz"}) {
        PhotoListing listing = PhotoListing::archive(arc / name);
        const auto c1 = listing.check(IndexOptions{}, true, 2);
        EXPECT_EQ(c1.decoded, 62) << name;
        const DatasetIndex stats = listing.index(IndexOptions{});
        EXPECT_EQ(stats.size(), 60) << name;
        EXPECT_EQ(stats.skipped(), (std::map<std::string, int64_t>{{"empty file", 1}, {"not-an-image", 1}, {"truncated", 1}})) << name;
        EXPECT_TRUE(fs::exists(arc / (name + ".sgverdicts"))) << name;
        EXPECT_EQ(PhotoListing::archive(arc / name).check(IndexOptions{}).decoded, 0) << name;

        auto source = PhotoSource::archive(arc / name, IndexOptions{}, plain32());
        EXPECT_EQ(source->size(), 60) << name;
        EXPECT_EQ(distinctFed(source, 1), 60u) << name;
        EXPECT_EQ(source->skipped(), stats.skipped()) << name;
    }
}
