// base/util/Paths: the one rule for cache, data and temporary folders (XDG, TMPDIR), and SHA-256
// through OpenSSL (base/util/ContentHash) and without it (base/util/Sha256, a vendored build's).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/util/ContentHash.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"
#include "base/util/Sha256.h"
#include "support/TempDir.h"

namespace streetgan {
namespace {

// Sets environment variables for one test and restores them afterwards.
class EnvGuard {
public:
    void set(const char* name, const char* value) {
        const char* old = std::getenv(name);
        saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
        if (value)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    }
    ~EnvGuard() {
        for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
            if (it->second)
                ::setenv(it->first.c_str(), it->second->c_str(), 1);
            else
                ::unsetenv(it->first.c_str());
        }
    }

private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(Paths, CacheDirFollowsXdgThenHome) {
    EnvGuard env;
    env.set("XDG_CACHE_HOME", "/xdg/cache/");
    env.set("HOME", "/home/ann");
    EXPECT_EQ(Paths::cacheDir(), "/xdg/cache/streetgan");
    EXPECT_EQ(Paths::cacheDir("fid"), "/xdg/cache/streetgan/fid");
    env.set("XDG_CACHE_HOME", "");
    EXPECT_EQ(Paths::cacheDir("directions"), "/home/ann/.cache/streetgan/directions");
    env.set("XDG_CACHE_HOME", "relative/cache");  // the XDG spec: relative paths are invalid, ignored
    EXPECT_EQ(Paths::cacheDir("remote"), "/home/ann/.cache/streetgan/remote");
}

TEST(Paths, DataDirFollowsXdgThenHome) {
    EnvGuard env;
    env.set("XDG_DATA_HOME", "/xdg/data");
    env.set("HOME", "/home/ann");
    EXPECT_EQ(Paths::dataDir("demo"), "/xdg/data/streetgan/demo");
    env.set("XDG_DATA_HOME", nullptr);
    EXPECT_EQ(Paths::dataDir("demo"), "/home/ann/.local/share/streetgan/demo");
}

TEST(Paths, TempDirFollowsTmpdir) {
    EnvGuard env;
    env.set("TMPDIR", "/scratch/me/");
    EXPECT_EQ(Paths::tempDir(), "/scratch/me");
    env.set("TMPDIR", "");
    EXPECT_EQ(Paths::tempDir(), "/tmp");
    env.set("TMPDIR", nullptr);
    EXPECT_EQ(Paths::tempDir(), "/tmp");
}

TEST(Paths, HomeFallsBackToThePasswordDatabase) {
    EnvGuard env;
    env.set("HOME", nullptr);
    env.set("XDG_CACHE_HOME", nullptr);
    const std::string home = Paths::homeDir();
    // Without $HOME the account's home from getpwuid (root in CI: /root); never a relative path.
    if (!home.empty()) {
        EXPECT_EQ(home.front(), '/');
        EXPECT_EQ(Paths::cacheDir("x"), home + "/.cache/streetgan/x");
    }
}

TEST(ContentHash, Sha256OfKnownVectors) {
    EXPECT_EQ(ContentHash::sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(ContentHash::sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(ContentHash::sha256(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

std::string portableSha256(const std::string& bytes, std::size_t piece) {
    Sha256 sha;
    for (std::size_t at = 0; at < bytes.size(); at += piece) sha.update(bytes.data() + at, std::min(piece, bytes.size() - at));
    return sha.finishHex();
}

// The SHA-256 of a build without OpenSSL gives ContentHash's digests (here OpenSSL's), for every
// length around the padding's edges and fed in pieces of every size.
TEST(ContentHash, PortableSha256AgreesWithOpenSsl) {
    EXPECT_EQ(portableSha256("abc", 1), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(portableSha256(std::string(1000000, 'a'), 4096), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    std::string bytes;
    for (int i = 0; i < 300; ++i) bytes += static_cast<char>(i * 131 + 17);
    for (std::size_t n = 0; n <= bytes.size(); ++n) {
        const std::string part = bytes.substr(0, n);
        const std::string expected = ContentHash::sha256(part);
        for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{1000}})
            ASSERT_EQ(portableSha256(part, piece), expected) << n << " bytes in pieces of " << piece;
    }
}

TEST(ContentHash, FileHashEqualsBytesHashAndNamesAMissingFile) {
    test::TempDir dir;
    const std::string path = (dir.path() / "blob.bin").string();
    std::string bytes;
    for (int i = 0; i < 3 * (1 << 20) + 17; ++i) bytes += static_cast<char>(i * 31 + 7);  // spans several 1 MiB reads
    std::ofstream(path, std::ios::binary) << bytes;
    EXPECT_EQ(ContentHash::sha256File(path), ContentHash::sha256(bytes));
    try {
        ContentHash::sha256File(path + ".missing");
        FAIL() << "no error for a missing file";
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("blob.bin.missing"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace streetgan
