// PackRegistry: lines appended whole, read back newest first one per folder, cut or foreign lines
// skipped, sources keyed by their real path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/dataset/PackRegistry.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

TEST(PackRegistry, NewestFirstOneLinePerFolderForItsSourceOnly) {
    TempDir tmp;
    const PackRegistry r(tmp / "sub/registry.jsonl");  // its folder is made
    PackRegistry::Entry e{"/packs/a", "/data/msls", "fp1", 1 << 30, 64, 100, 1000};
    ASSERT_TRUE(r.add(e));
    e.dir = "/packs/b", e.fingerprint = "fp2", e.t = 2000;
    ASSERT_TRUE(r.add(e));
    e.dir = "/packs/a", e.fingerprint = "fp3", e.t = 3000;  // /packs/a packed again
    ASSERT_TRUE(r.add(e));
    e.dir = "/packs/c", e.source = "/data/other";
    ASSERT_TRUE(r.add(e));
    const auto got = r.forSource("/data/msls");
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].dir, "/packs/a");
    EXPECT_EQ(got[0].fingerprint, "fp3");
    EXPECT_EQ(got[0].shardBytes, int64_t{1} << 30);
    EXPECT_EQ(got[0].size, 64);
    EXPECT_EQ(got[0].images, 100);
    EXPECT_EQ(got[1].dir, "/packs/b");
    EXPECT_TRUE(r.forSource("/data/none").empty());
}

TEST(PackRegistry, CutAndForeignLinesAreSkipped) {
    TempDir tmp;
    const PackRegistry r(tmp / "registry.jsonl");
    ASSERT_TRUE(r.add({"/packs/a", "/d", "fp1", 10, 32, 5, 0}));
    std::ofstream(r.file(), std::ios::app) << "{\"dir\":\"/packs/cut\",\"source\":\"/d\",\"finger\n"
                                           << "[1,2,3]\n"
                                           << "{\"dir\":\"/packs/x\",\"source\":\"/d\"}\n";
    ASSERT_TRUE(r.add({"/packs/b", "/d", "fp2", 10, 32, 5, 0}));
    const auto got = r.forSource("/d");
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].dir, "/packs/b");
    EXPECT_GT(got[0].t, 1.7e9);  // stamped now
    EXPECT_EQ(got[1].dir, "/packs/a");
}

TEST(PackRegistry, AnUnwritableRegistryIsNoError) {
    TempDir tmp;
    std::ofstream(tmp / "file") << "x";
    EXPECT_FALSE(PackRegistry(tmp / "file/registry.jsonl").add({"/p", "/d", "f", 1, 32, 1, 0}));
    EXPECT_TRUE(PackRegistry(tmp / "missing.jsonl").forSource("/d").empty());
}

TEST(PackRegistry, SourcesAreKeyedByTheirRealPath) {
    TempDir tmp;
    fs::create_directories(tmp / "data/msls");
    fs::create_directory_symlink(tmp / "data/msls", tmp / "link");
    const std::string real = PackRegistry::sourceKey(tmp / "data/msls");
    EXPECT_EQ(PackRegistry::sourceKey(tmp / "data/msls/"), real);
    EXPECT_EQ(PackRegistry::sourceKey(tmp / "data/./msls"), real);
    EXPECT_EQ(PackRegistry::sourceKey(tmp / "link"), real);
    EXPECT_EQ(PackRegistry::sourceKey("s3://b/msls"), "s3://b/msls");
    EXPECT_EQ(PackRegistry::sourceKey("s3://b/msls", "http://127.0.0.1:9000"), "s3://b/msls at http://127.0.0.1:9000");
}
