// ArchiveReader on zip / tar / tar.gz archives written by Python's zipfile / tarfile
// (tests/python/make_archives.py): names, sizes and bytes against the original files, random order
// and 4 threads at once, truncated copies, non-archives. Prints zip read throughput vs a folder.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../../common/TempDir.h"
#include "data/ArchiveReader.h"
#include "util/Errors.h"

#ifndef STREETGAN_PYTHON
#define STREETGAN_PYTHON "/usr/bin/python3"
#endif
#ifndef STREETGAN_TEST_PYTHON_DIR
#define STREETGAN_TEST_PYTHON_DIR ""
#endif

using namespace streetgan;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<uint8_t>;

Bytes readFile(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void writeFile(const fs::path& p, const Bytes& b) {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

fs::path scriptPath() {
    fs::path dir = STREETGAN_TEST_PYTHON_DIR;
    if (dir.empty()) dir = fs::path(__FILE__).parent_path() / ".." / ".." / "python";
    return dir / "make_archives.py";
}

/// Fixtures built once for the whole suite (the archives take a second to write).
class ArchiveReaderTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TempDir();
        const std::string cmd = std::string(STREETGAN_PYTHON) + " \"" + scriptPath().string() + "\" \"" + dir_->path().string() + "\"";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        std::ifstream list(dir_->file("list.txt"));
        for (std::string line; std::getline(list, line);)
            if (!line.empty()) (*originals_)[line] = readFile(dir_->path() / "src" / line);
    }
    static void TearDownTestSuite() {
        delete dir_;
        dir_ = nullptr;
    }
    static std::string archive(const std::string& ext) { return dir_->file("batch." + ext); }
    /// A copy of the archive cut at `fraction` of its size.
    static std::string truncatedCopy(const std::string& ext, double fraction) {
        Bytes b = readFile(archive(ext));
        b.resize(static_cast<size_t>(b.size() * fraction));
        const std::string out = dir_->file("cut." + ext);
        writeFile(out, b);
        return out;
    }

    static test::TempDir* dir_;
    static std::map<std::string, Bytes>* originals_;
};
test::TempDir* ArchiveReaderTest::dir_ = nullptr;
std::map<std::string, Bytes>* ArchiveReaderTest::originals_ = new std::map<std::string, Bytes>();

const char* const kFormats[] = {"zip", "tar", "tar.gz"};

std::vector<size_t> shuffled(size_t n, unsigned seed) {
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937(seed));
    return order;
}

}  // namespace

TEST_F(ArchiveReaderTest, NamesAndSizesMatchAcrossFormats) {
    ASSERT_EQ(originals_->size(), 64u);
    for (const char* ext : kFormats) {
        ArchiveReader r(archive(ext));
        EXPECT_FALSE(r.truncated()) << ext;
        EXPECT_EQ(r.formatName(), ext);
        std::map<std::string, uint64_t> got;
        for (const auto& e : r.entries()) got[e.name] = e.size;
        std::map<std::string, uint64_t> want;
        for (const auto& [name, bytes] : *originals_) want[name] = bytes.size();
        EXPECT_EQ(got, want) << ext;  // directory entries are left out
    }
    ArchiveReader gz(archive("tar.gz"));
    EXPECT_GE(gz.accessPoints(), 3u) << "about 12 MiB of output at 4 MiB spans";
    std::printf("[ info ] tar.gz: %zu access points\n", gz.accessPoints());
}

TEST_F(ArchiveReaderTest, EveryEntryReadsBackInRandomOrder) {
    for (const char* ext : kFormats) {
        ArchiveReader r(archive(ext));
        for (size_t i : shuffled(r.size(), 7)) {
            const auto& e = r.entry(i);
            ASSERT_TRUE(originals_->count(e.name)) << e.name;
            EXPECT_TRUE(r.read(i) == originals_->at(e.name)) << ext << " " << e.name;
        }
        const std::string csv = r.readText("train_val/cityA/query/raw.csv");
        EXPECT_EQ(csv, "key,lon,lat\nabc,1.0,2.0\n") << ext;
        EXPECT_THROW(r.readText("missing.csv"), DataError);
        EXPECT_THROW(r.read(r.size()), DataError);
    }
}

TEST_F(ArchiveReaderTest, FourThreadsAtOnce) {
    for (const char* ext : kFormats) {
        ArchiveReader r(archive(ext));
        std::atomic<int> wrong{0}, thrown{0};
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                for (size_t i : shuffled(r.size(), 100 + t)) {
                    try {
                        if (r.read(i) != originals_->at(r.entry(i).name)) ++wrong;
                    } catch (const std::exception&) {
                        ++thrown;
                    }
                }
            });
        for (auto& th : threads) th.join();
        EXPECT_EQ(wrong.load(), 0) << ext;
        EXPECT_EQ(thrown.load(), 0) << ext;
    }
}

TEST_F(ArchiveReaderTest, TruncatedArchivesKeepTheirCompleteEntries) {
    for (const char* ext : kFormats) {
        ArchiveReader full(archive(ext));
        const std::string cut = truncatedCopy(ext, 0.6);
        const auto start = std::chrono::steady_clock::now();
        ArchiveReader r(cut);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_LT(secs, 10.0) << ext;
        EXPECT_TRUE(r.truncated()) << ext;
        ASSERT_GT(r.size(), 3u) << ext;
        ASSERT_LT(r.size(), full.size()) << ext;
        size_t damaged = 0;
        for (size_t i = 0; i < r.size(); ++i) {
            EXPECT_EQ(r.entry(i).name, full.entry(i).name) << ext;
            if (r.intact(i)) {
                EXPECT_TRUE(r.read(i) == originals_->at(r.entry(i).name)) << ext << " " << r.entry(i).name;
            } else {
                ++damaged;
                try {
                    r.read(i);
                    ADD_FAILURE() << ext << ": reading damaged " << r.entry(i).name << " did not throw";
                } catch (const DataError& e) {
                    const std::string msg = e.what();
                    EXPECT_NE(msg.find(cut), std::string::npos) << msg;
                    EXPECT_NE(msg.find(r.entry(i).name), std::string::npos) << msg;
                }
            }
        }
        EXPECT_EQ(damaged, 1u) << ext << ": the entry at the cut is listed and reported damaged";
        std::printf("[ info ] %s cut at 60%%: %zu of %zu entries listed, %zu damaged\n", ext, r.size(), full.size(), damaged);
    }
}

TEST_F(ArchiveReaderTest, NonArchiveIsADataErrorNamingTheFile) {
    const std::string text = dir_->file("notes.zip");
    {
        std::ofstream f(text);
        for (int i = 0; i < 200; ++i) f << "this is not an archive, just a line of text\n";
    }
    const std::string noise = dir_->file("noise.tar");
    {
        std::mt19937 rng(3);
        Bytes b(100000);
        for (auto& x : b) x = static_cast<uint8_t>(rng());
        writeFile(noise, b);
    }
    const std::string gz = dir_->file("plain.csv.gz");
    const std::string cmd = std::string(STREETGAN_PYTHON) + " -c \"import gzip; open('" + gz +
                            "','wb').write(gzip.compress(b'a,b,c\\n' * 1000))\"";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    for (const std::string& p : {text, noise, gz}) {
        try {
            ArchiveReader r(p);
            ADD_FAILURE() << p << " was accepted as " << r.formatName();
        } catch (const DataError& e) {
            EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
        }
    }
    const std::string empty = dir_->file("empty.zip");
    writeFile(empty, {});
    EXPECT_THROW(ArchiveReader{empty}, DataError);
    EXPECT_THROW(ArchiveReader{dir_->file("absent.zip")}, IoError);
}

TEST_F(ArchiveReaderTest, ThroughputZipVsFolder) {
    ArchiveReader r(archive("zip"));
    const auto order = shuffled(r.size(), 11);
    auto time = [&](auto&& readOne) {
        uint64_t bytes = 0;
        const auto start = std::chrono::steady_clock::now();
        for (int rep = 0; rep < 3; ++rep)
            for (size_t i : order) bytes += readOne(i);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return bytes / 1e6 / s;
    };
    const double zip = time([&](size_t i) { return r.read(i).size(); });
    const double folder = time([&](size_t i) { return readFile(dir_->path() / "src" / r.entry(i).name).size(); });
    ArchiveReader tar(archive("tar")), gz(archive("tar.gz"));
    const double tarRate = time([&](size_t i) { return tar.read(i).size(); });
    const double gzRate = time([&](size_t i) { return gz.read(i).size(); });
    std::printf("[ info ] read throughput, one thread, random order (warm page cache): zip %.0f MB/s, folder %.0f MB/s, "
                "tar %.0f MB/s, tar.gz %.0f MB/s\n",
                zip, folder, tarRate, gzRate);
}
