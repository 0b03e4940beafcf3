// base/util/CacheFile: the metric caches' file layout read back, and each way a file can be wrong
// reported by name (the caches turn these into "unusable (...): recomputing it").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "base/util/AtomicFile.h"
#include "base/util/CacheFile.h"
#include "base/util/Errors.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;

namespace {

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(CacheFile, WritesAndReadsBackHeaderAndPayload) {
    TempDir dir;
    const std::string path = (dir.path() / "sub" / "folder" / "c.bin").string();  // folders made on write
    const std::string a = "first part", b(1000, 'x');
    CacheFile::write(path, "TESTMAG1", {{"key", {{"source", "s"}}}, {"n", 2}}, {{a.data(), a.size()}, {b.data(), b.size()}}, "hint");
    const CacheFile::Contents c = CacheFile::read(path, "TESTMAG1", "test cache");
    EXPECT_EQ(c.header.at("key").at("source"), "s");
    EXPECT_EQ(c.header.at("n"), 2);
    EXPECT_TRUE(c.header.contains("crc32c"));
    const char* p = c.payload(a.size() + b.size());
    EXPECT_EQ(std::string(p, a.size()), a);
    EXPECT_EQ(std::string(p + a.size(), b.size()), b);
}

TEST(CacheFile, EachDamageIsNamed) {
    TempDir dir;
    const std::string path = (dir.path() / "c.bin").string();
    const std::string payload(64, 'p');
    CacheFile::write(path, "TESTMAG1", {{"n", 1}}, {{payload.data(), payload.size()}}, "hint");
    const std::string good = AtomicFile::read(path);
    auto readWith = [&](const std::string& bytes, size_t expected) {
        AtomicFile::write(path, bytes);
        return errorOf([&] { (void)CacheFile::read(path, "TESTMAG1", "test cache").payload(expected); });
    };
    EXPECT_EQ(readWith(good, 64), "(no error)");
    EXPECT_EQ(readWith(good, 65), "payload is 64 bytes, expected 65");
    std::string flipped = good;
    flipped.back() ^= 0x01;
    EXPECT_EQ(readWith(flipped, 64), "checksum mismatch");
    EXPECT_EQ(readWith("", 64), "not a test cache");
    EXPECT_EQ(readWith("OTHERMAG" + good.substr(8), 64), "not a test cache");
    EXPECT_EQ(readWith(good.substr(0, 20), 64), "truncated header");
    std::string badJson = good;
    badJson[16] = '#';  // the header's first character
    EXPECT_EQ(readWith(badJson, 64).rfind("bad header: ", 0), 0u);
    EXPECT_NE(errorOf([&] { (void)CacheFile::read((dir.path() / "missing.bin").string(), "TESTMAG1", "test cache"); }).find("missing.bin"), std::string::npos);
}

TEST(CacheFile, AFolderThatCannotBeMadeNamesItAndTheHint) {
    TempDir dir;
    std::ofstream(dir.path() / "file") << "x";  // a file where the folder should go
    const std::string err =
        errorOf([&] { CacheFile::write((dir.path() / "file" / "c.bin").string(), "TESTMAG1", nlohmann::json::object(), {}, "set X or --y"); });
    EXPECT_NE(err.find("cannot create the cache folder"), std::string::npos) << err;
    EXPECT_NE(err.find("(set X or --y)"), std::string::npos) << err;
}
