// ImageVerdictCache: verdicts saved and read back, keyed by path, size and mtime; a file of
// another version, key or a damaged one is ignored (rebuilt), never misread; the fallback place.
// The decoding side (PhotoListing: a re-run decodes nothing, a changed file is re-checked):
// tests/ml/dataset/PhotoListingTest.cpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unordered_set>

#include "base/dataset/DatasetIndexTestSupport.h"
#include "base/dataset/ImageVerdictCache.h"

using namespace streetgan;
using namespace streetgan::test::datasetindex;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST(ImageVerdictCache, SavedVerdictsAreReadBackForTheSameSizeAndMtimeOnly) {
    TempDir t;
    auto cache = ImageVerdictCache::forFolder(t.str(), "checks v1");
    EXPECT_TRUE(cache->load().empty());  // nothing saved yet
    cache->record("a/good.jpg", 1000, 111, ImageVerdictCache::kOk);
    cache->record("a/cut.jpg", 500, 222, "truncated");
    EXPECT_EQ(cache->pending(), 2);
    EXPECT_EQ(cache->save(), t.str() + "/.sgverdicts");  // next to the data first
    EXPECT_EQ(cache->pending(), 0);

    const auto map = ImageVerdictCache::forFolder(t.str(), "checks v1")->load();
    ASSERT_EQ(map.size(), 2u);
    ASSERT_NE(ImageVerdictCache::lookup(map, "a/cut.jpg", 500, 222), nullptr);
    EXPECT_EQ(*ImageVerdictCache::lookup(map, "a/cut.jpg", 500, 222), "truncated");
    EXPECT_EQ(*ImageVerdictCache::lookup(map, "a/good.jpg", 1000, 111), "ok");
    // A changed file (other size or mtime) has no verdict: it is checked again.
    EXPECT_EQ(ImageVerdictCache::lookup(map, "a/cut.jpg", 501, 222), nullptr);
    EXPECT_EQ(ImageVerdictCache::lookup(map, "a/cut.jpg", 500, 223), nullptr);
    EXPECT_EQ(ImageVerdictCache::lookup(map, "a/other.jpg", 500, 222), nullptr);

    // Saving merges: a replaced verdict wins, the others stay; `live` drops deleted files.
    auto again = ImageVerdictCache::forFolder(t.str(), "checks v1");
    again->record("a/cut.jpg", 900, 333, ImageVerdictCache::kOk);
    again->record("b/new.jpg", 10, 1, "not-an-image");
    const std::unordered_set<std::string> live{"a/cut.jpg", "b/new.jpg"};
    EXPECT_FALSE(again->save(&live).empty());
    const auto merged = again->load();
    EXPECT_EQ(merged.size(), 2u);
    EXPECT_EQ(*ImageVerdictCache::lookup(merged, "a/cut.jpg", 900, 333), "ok");
    EXPECT_EQ(*ImageVerdictCache::lookup(merged, "b/new.jpg", 10, 1), "not-an-image");
    EXPECT_EQ(merged.count("a/good.jpg"), 0u);
}

TEST(ImageVerdictCache, OtherChecksOrAnotherArchiveVersionStartAfresh) {
    TempDir t;
    auto v1 = ImageVerdictCache::forFolder(t.str(), "checks v1");
    v1->record("x.jpg", 1, 1, ImageVerdictCache::kOk);
    ASSERT_FALSE(v1->save().empty());
    EXPECT_TRUE(ImageVerdictCache::forFolder(t.str(), "checks v2")->load().empty());  // new checks: old verdicts not trusted

    // An archive's cache is keyed by the archive's size and mtime: rewriting it drops the verdicts.
    const fs::path zip = t.path() / "batch.zip";
    writeFile(zip, "first version");
    auto a = ImageVerdictCache::forArchive(zip.string(), "checks v1");
    a->record("img/1.jpg", 5, 0, "corrupt");
    EXPECT_EQ(a->save(), zip.string() + ".sgverdicts");
    EXPECT_EQ(ImageVerdictCache::forArchive(zip.string(), "checks v1")->load().size(), 1u);
    writeFile(zip, "second, longer version");
    EXPECT_TRUE(ImageVerdictCache::forArchive(zip.string(), "checks v1")->load().empty());
}

TEST(ImageVerdictCache, DamagedOrOtherVersionFilesAreIgnoredNeverMisread) {
    TempDir t;
    auto cache = ImageVerdictCache::forFolder(t.str(), "c");
    for (int i = 0; i < 20; ++i) cache->record("p/" + std::to_string(i) + ".jpg", 100 + i, 7, i % 3 ? "ok" : "truncated");
    ASSERT_FALSE(cache->save().empty());
    const fs::path file = t.path() / ".sgverdicts";
    const std::string good = slurp(file);
    ASSERT_EQ(good.compare(0, 8, "SGVERDC1"), 0);
    ASSERT_EQ(cache->load().size(), 20u);

    // Cut at every length: never a partial map, always all or nothing.
    for (size_t n = 0; n < good.size(); n += 7) {
        writeFile(file, good.substr(0, n));
        EXPECT_TRUE(ImageVerdictCache::forFolder(t.str(), "c")->load().empty()) << n;
    }
    writeFile(file, good + "x");  // trailing bytes
    EXPECT_TRUE(ImageVerdictCache::forFolder(t.str(), "c")->load().empty());
    std::string other = good;
    other[7] = '2';  // a later format version: not read by this one
    writeFile(file, other);
    EXPECT_TRUE(ImageVerdictCache::forFolder(t.str(), "c")->load().empty());
    // ... and rewritten in this version on the next save.
    auto rebuilt = ImageVerdictCache::forFolder(t.str(), "c");
    rebuilt->record("q.jpg", 3, 4, "ok");
    ASSERT_FALSE(rebuilt->save().empty());
    EXPECT_EQ(slurp(file).compare(0, 8, "SGVERDC1"), 0);
    EXPECT_EQ(rebuilt->load().size(), 1u);
}

TEST(ImageVerdictCache, FallsBackToTheUserCacheWhenTheDataFolderIsNotWritable) {
    TempDir t;
    writeFile(t.path() / "blocker", "a file where the cache's folder would be");
    ImageVerdictCache cache({(t.path() / "blocker" / ".sgverdicts").string(), (t.path() / "cache" / "v.sgverdicts").string()}, "k");
    cache.record("a.jpg", 1, 2, "ok");
    EXPECT_EQ(cache.save(), (t.path() / "cache" / "v.sgverdicts").string());
    EXPECT_EQ(cache.load().size(), 1u);
    EXPECT_EQ(cache.path(), (t.path() / "cache" / "v.sgverdicts").string());
    // Nothing writable at all: not an error, the verdicts stay pending.
    ImageVerdictCache nowhere({(t.path() / "blocker" / "x").string()}, "k");
    nowhere.record("a.jpg", 1, 2, "ok");
    EXPECT_EQ(nowhere.save(), "");
    EXPECT_EQ(nowhere.pending(), 1);
}
