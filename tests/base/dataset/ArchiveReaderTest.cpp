// ArchiveReader on zip / tar / tar.gz archives written by Python's zipfile / tarfile
// (tests/python/make_archives.py): names, sizes and bytes against the original files and against
// what Python's zipfile / tarfile read back, random order and 4 threads at once, truncated and
// corrupt copies, non-archives. Prints zip read throughput vs a folder.
// Zip, tar and tar.gz never go through libarchive; test_archive_reader_lean (tests/base/
// CMakeLists.txt) builds ArchiveReader as STREETGAN_WITH_LIBARCHIVE=OFF does and runs these tests
// again (STREETGAN_TEST_NO_LIBARCHIVE), where another compressed tar is refused in one line.
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

#include "base/dataset/ArchiveReader.h"
#include "base/dataset/DatasetNames.h"
#include "base/util/Errors.h"
#include "support/TempDir.h"

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
    Bytes b(static_cast<size_t>(fs::file_size(p)));
    std::FILE* f = std::fopen(p.string().c_str(), "rb");
    if (!f) return {};
    const size_t n = std::fread(b.data(), 1, b.size(), f);
    std::fclose(f);
    b.resize(n);
    return b;
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
        // The ctest fixture `archives_build` made them once (tests/base/CMakeLists.txt): a copy of
        // our own, as tests write beside them; without it (a run by hand) this process makes them.
        const fs::path shared = STREETGAN_TEST_ARCHIVES;
        if (fs::exists(shared / "list.txt")) {
            fs::copy(shared, dir_->path(), fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        } else {
            const std::string cmd = std::string(STREETGAN_PYTHON) + " \"" + scriptPath().string() + "\" \"" + dir_->path().string() + "\"";
            ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        }
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
        std::string out = dir_->file("cut." + ext);
        writeFile(out, b);
        return out;
    }

    static test::TempDir* dir_;
    static std::map<std::string, Bytes>* originals_;
};
test::TempDir* ArchiveReaderTest::dir_ = nullptr;
std::map<std::string, Bytes>* ArchiveReaderTest::originals_ = new std::map<std::string, Bytes>();

constexpr auto kNoCache = ArchiveReader::IndexCache::Off;

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
        ArchiveReader r(archive(ext), kNoCache);
        EXPECT_FALSE(r.truncated()) << ext;
        EXPECT_EQ(r.formatName(), ext);
        std::map<std::string, uint64_t> got;
        for (const auto& e : r.entries()) got[e.name] = e.size;
        std::map<std::string, uint64_t> want;
        for (const auto& [name, bytes] : *originals_) want[name] = bytes.size();
        EXPECT_EQ(got, want) << ext;  // directory entries are left out
    }
    ArchiveReader gz(archive("tar.gz"), kNoCache);
    EXPECT_GE(gz.accessPoints(), 3u) << "about 12 MiB of output at 4 MiB spans";
    std::printf("[ info ] tar.gz: %zu access points\n", gz.accessPoints());
}

TEST_F(ArchiveReaderTest, EveryEntryReadsBackInRandomOrder) {
    for (const char* ext : kFormats) {
        ArchiveReader r(archive(ext), kNoCache);
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
        ArchiveReader r(archive(ext), kNoCache);
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

TEST_F(ArchiveReaderTest, OtherLayoutsReadBack) {
    // multi.tar.gz: two gzip members; text.tar.gz: compressible text whose back-references cross
    // the access points; stream.zip: sizes in data descriptors; zip64.zip: zip64 local headers; small.tar.bz2: non-gzip filter.
    const struct {
        const char* file;
        const char* format;
        size_t entries;
    } cases[] = {{"multi.tar.gz", "tar.gz", 64},
                 {"text.tar.gz", "tar.gz", 16},
                 {"stream.zip", "zip", 6},
                 {"zip64.zip", "zip", 6},
#ifndef STREETGAN_TEST_NO_LIBARCHIVE
                 {"small.tar.bz2", "compressed tar", 6}
#endif
    };
    for (const auto& c : cases) {
        ArchiveReader r(dir_->file(c.file), kNoCache);
        EXPECT_EQ(r.formatName(), c.format) << c.file;
        EXPECT_FALSE(r.truncated()) << c.file;
        ASSERT_EQ(r.size(), c.entries) << c.file;
        for (size_t i : shuffled(r.size(), 5)) {
            const auto& e = r.entry(i);
            const Bytes want = readFile(dir_->path() / "src" / e.name);
            EXPECT_EQ(e.size, want.size()) << c.file << " " << e.name;
            EXPECT_TRUE(r.read(i) == want) << c.file << " " << e.name;
        }
        if (std::string(c.file) == "text.tar.gz") {
            EXPECT_GE(r.accessPoints(), 4u);
        }
        if (std::string(c.file) == "multi.tar.gz") {
            EXPECT_GE(r.accessPoints(), 4u) << "3 in-stream + 1 member start";
        }
    }
}

TEST_F(ArchiveReaderTest, TruncatedArchivesKeepTheirCompleteEntries) {
    for (const char* ext : kFormats) {
        ArchiveReader full(archive(ext), kNoCache);
        const std::string cut = truncatedCopy(ext, 0.6);
        const auto start = std::chrono::steady_clock::now();
        ArchiveReader r(cut, kNoCache);
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

TEST_F(ArchiveReaderTest, AnyCutPointListsAndNeverReturnsWrongBytes) {
    // Cuts everywhere (inside headers, at entry boundaries, inside the central directory, inside
    // a gzip trailer): the listing finishes, every read either matches the original or throws
    // DataError, and the cut is noticed (truncated()).
    for (const char* ext : kFormats) {
        const Bytes whole = readFile(archive(ext));
        ArchiveReader full(archive(ext), kNoCache);
        std::vector<size_t> cuts = {
            1, 100, 511, 512, 513, 1024, 2047, whole.size() - 1, whole.size() - 4, whole.size() - 10, whole.size() - 22, whole.size() - 1030};
        for (int k = 1; k < 20; ++k) cuts.push_back(whole.size() * k / 20 + 37 * static_cast<size_t>(k));
        size_t listed = 0;
        for (size_t cut : cuts) {
            const std::string p = dir_->file(std::string("sweep.") + ext);
            writeFile(p, Bytes(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut)));
            try {
                ArchiveReader r(p, kNoCache);
                ++listed;
                EXPECT_TRUE(r.truncated()) << ext << " cut at " << cut << " of " << whole.size();
                for (size_t i = 0; i < r.size(); ++i) {
                    try {
                        EXPECT_TRUE(r.read(i) == originals_->at(r.entry(i).name)) << ext << " cut " << cut << " " << r.entry(i).name;
                    } catch (const DataError&) {
                        EXPECT_FALSE(r.intact(i)) << ext << " cut " << cut << ": intact entry " << r.entry(i).name << " threw";
                    }
                }
            } catch (const DataError&) {
                EXPECT_LT(cut, 2048u) << ext << ": only a cut inside the first entry may leave no archive";
            }
        }
        EXPECT_GT(listed, 15u) << ext;
    }
}

TEST_F(ArchiveReaderTest, IndexCacheIsReusedAndInvalidated) {
    for (const char* ext : kFormats) {
        const std::string copy = dir_->file(std::string("cached.") + ext);
        fs::copy_file(archive(ext), copy, fs::copy_options::overwrite_existing);
        fs::remove(copy + ".sgindex");
        ArchiveReader::IndexCache rw = ArchiveReader::IndexCache::ReadWrite;
        ArchiveReader first(copy, rw);
        EXPECT_FALSE(first.fromCache()) << ext;
        EXPECT_EQ(first.indexPath(), copy + ".sgindex") << ext;
        ASSERT_TRUE(fs::exists(copy + ".sgindex")) << ext;

        ArchiveReader second(copy, rw);
        EXPECT_TRUE(second.fromCache()) << ext;
        ASSERT_EQ(second.size(), first.size()) << ext;
        EXPECT_EQ(second.accessPoints(), first.accessPoints()) << ext;
        EXPECT_EQ(second.formatName(), ext);
        for (size_t i : shuffled(second.size(), 9)) {
            EXPECT_EQ(second.entry(i).name, first.entry(i).name);
            EXPECT_TRUE(second.read(i) == originals_->at(second.entry(i).name)) << ext << " " << second.entry(i).name;
        }

        // A damaged cache file is ignored (and rewritten).
        {
            Bytes idx = readFile(copy + ".sgindex");
            idx.resize(idx.size() / 2);
            writeFile(copy + ".sgindex", idx);
        }
        ArchiveReader third(copy, rw);
        EXPECT_FALSE(third.fromCache()) << ext;
        EXPECT_EQ(third.size(), first.size()) << ext;

        // A changed archive (here: cut short, so size and time differ) is listed again.
        {
            Bytes b = readFile(copy);
            b.resize(b.size() * 6 / 10);
            writeFile(copy, b);
        }
        ArchiveReader fourth(copy, rw);
        EXPECT_FALSE(fourth.fromCache()) << ext;
        EXPECT_TRUE(fourth.truncated()) << ext;
        ArchiveReader fifth(copy, rw);
        EXPECT_TRUE(fifth.fromCache()) << ext;
        EXPECT_TRUE(fifth.truncated()) << ext;
        ASSERT_EQ(fifth.size(), fourth.size()) << ext;
        for (size_t i = 0; i < fifth.size(); ++i) EXPECT_EQ(fifth.intact(i), fourth.intact(i)) << ext;
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
    const std::string cmd = std::string(STREETGAN_PYTHON) + " -c \"import gzip; open('" + gz + "','wb').write(gzip.compress(b'a,b,c\\n' * 1000))\"";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    for (const std::string& p : {text, noise, gz}) {
        try {
            ArchiveReader r(p, kNoCache);
            ADD_FAILURE() << p << " was accepted as " << r.formatName();
        } catch (const DataError& e) {
            EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
        }
    }
    const std::string empty = dir_->file("empty.zip");
    writeFile(empty, {});
    EXPECT_THROW(ArchiveReader(empty, kNoCache), DataError);
    EXPECT_THROW(ArchiveReader(dir_->file("absent.zip"), kNoCache), IoError);
}

TEST_F(ArchiveReaderTest, ThroughputZipVsFolder) {
    ArchiveReader r(archive("zip"), kNoCache);
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
    ArchiveReader tar(archive("tar"), kNoCache), gz(archive("tar.gz"), kNoCache);
    const double tarRate = time([&](size_t i) { return tar.read(i).size(); });
    const double gzRate = time([&](size_t i) { return gz.read(i).size(); });
    std::printf(
        "[ info ] read throughput, one thread, random order (warm page cache): zip %.0f MB/s, folder %.0f MB/s, "
        "tar %.0f MB/s, tar.gz %.0f MB/s\n",
        zip, folder, tarRate, gzRate);
}

// The zip reader (libdeflate) refuses damaged data: a flipped byte in a
// deflated or a stored entry's data fails the inflate or the CRC, naming archive and entry.
TEST(ArchiveReaderFastZip, FlippedDataByteIsADataError) {
    streetgan::test::TempDir dir;
    for (const char* method : {"ZIP_DEFLATED", "ZIP_STORED"}) {
        const std::string zip = dir / (std::string(method) + ".zip");
        const std::string cmd = std::string(STREETGAN_PYTHON) + " -c \"import zipfile; z = zipfile.ZipFile('" + zip + "', 'w', zipfile." + method +
                                "); z.writestr('a/text.txt', 'street ' * 5000); z.writestr('b.bin', bytes(range(256)) * 40); z.close()\"";
        ASSERT_EQ(std::system(cmd.c_str()), 0);
        {
            ArchiveReader good(zip, ArchiveReader::IndexCache::Off);
            ASSERT_EQ(good.size(), 2u);
            EXPECT_EQ(good.read(good.find("a/text.txt")).size(), 35000u);
        }
        std::string bytes;
        {
            std::ifstream in(zip, std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(in), {});
        }
        bytes[30 + 10 + 20] ^= 0x5a;  // inside the first entry's data (30-byte header + 10-byte name)
        const std::string bad = dir / (std::string(method) + "-bad.zip");
        std::ofstream(bad, std::ios::binary) << bytes;
        ArchiveReader reader(bad, ArchiveReader::IndexCache::Off);
        try {
            reader.read(reader.find("a/text.txt"));
            ADD_FAILURE() << method << ": damaged entry read without error";
        } catch (const DataError& e) {
            EXPECT_NE(std::string(e.what()).find("a/text.txt"), std::string::npos) << e.what();
        }
        EXPECT_EQ(reader.read(reader.find("b.bin")).size(), 10240u);  // the other entry is intact
    }
}

// A zip header declaring far more bytes than its data can hold (found by fuzzing: 605 bytes made
// read() allocate 1.17 GB) is refused with a DataError naming archive and entry, before anything
// of the declared size is allocated; an empty stored entry reads as empty.
TEST(ArchiveReaderFastZip, HugeDeclaredSizeIsRefusedWithoutAllocatingIt) {
    streetgan::test::TempDir dir;
    const std::string zip = dir / "declared.zip";
    const std::string script = dir / "make.py";
    std::ofstream(script) << "import sys, zipfile\n"
                             "z = zipfile.ZipFile(sys.argv[1], 'w')\n"
                             "z.writestr('a/deflated.jpg', b'street ' * 200, zipfile.ZIP_DEFLATED)\n"
                             "z.writestr('b/stored.bin', bytes(range(100)), zipfile.ZIP_STORED)\n"
                             "z.writestr('c/empty.txt', b'', zipfile.ZIP_STORED)\n"
                             "z.close()\n";
    ASSERT_EQ(std::system((std::string(STREETGAN_PYTHON) + " " + script + " " + zip).c_str()), 0);
    {
        ArchiveReader good(zip, ArchiveReader::IndexCache::Off);
        ASSERT_EQ(good.size(), 3u);
        EXPECT_EQ(good.read(good.find("a/deflated.jpg")).size(), 1400u);
        EXPECT_TRUE(good.read(good.find("c/empty.txt")).empty());
    }
    // Declare 3.75 GiB in the uncompressed-size field of the first two, in their local headers
    // (offset 22) and in the central directory (offset 24), which the listing reads.
    Bytes bytes = readFile(zip);
    int patched = 0;
    for (size_t p = 0; p + 46 <= bytes.size(); ++p) {
        if (bytes[p] != 'P' || bytes[p + 1] != 'K') continue;
        const bool local = bytes[p + 2] == 3 && bytes[p + 3] == 4, central = bytes[p + 2] == 1 && bytes[p + 3] == 2;
        if (!local && !central) continue;
        const size_t nameAt = p + (local ? 30 : 46), field = p + (local ? 22 : 24);
        const std::string name(bytes.begin() + static_cast<std::ptrdiff_t>(nameAt),
                               bytes.begin() + static_cast<std::ptrdiff_t>(nameAt + bytes[p + (local ? 26 : 28)]));
        if (name == "c/empty.txt") continue;
        bytes[field] = 0x00, bytes[field + 1] = 0x00, bytes[field + 2] = 0x00, bytes[field + 3] = 0xF0;
        ++patched;
    }
    ASSERT_EQ(patched, 4);
    const std::string bad = dir / "huge.zip";
    writeFile(bad, bytes);
    ArchiveReader r(bad, ArchiveReader::IndexCache::Off);
    ASSERT_EQ(r.size(), 3u);
    // Deflated: over deflate's 1032:1 ratio, refused before inflating.
    const size_t deflated = r.find("a/deflated.jpg");
    EXPECT_EQ(r.entry(deflated).size, uint64_t(0xF0000000u));
    try {
        r.read(deflated);
        ADD_FAILURE() << "an entry declaring 3.75 GiB from a few compressed bytes was read";
    } catch (const DataError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(bad), std::string::npos) << msg;
        EXPECT_NE(msg.find("a/deflated.jpg"), std::string::npos) << msg;
        EXPECT_NE(msg.find("declares 4026531840 bytes from"), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    // Stored, sizes disagreeing: refused before anything of the declared size is allocated.
    const size_t stored = r.find("b/stored.bin");
    try {
        r.read(stored);
        ADD_FAILURE() << "a stored entry declaring 3.75 GiB over 100 bytes was read";
    } catch (const DataError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(bad), std::string::npos) << msg;
        EXPECT_NE(msg.find("b/stored.bin"), std::string::npos) << msg;
    }
    EXPECT_TRUE(r.read(r.find("c/empty.txt")).empty());
}

namespace {

/// The regular entries of `archive` as Python's zipfile / tarfile read them, in archive order.
std::vector<std::pair<std::string, Bytes>> pythonRead(const std::string& archive, const test::TempDir& dir) {
    const std::string script = dir / "pyread.py";
    const std::string out = dir / "pyread";
    std::ofstream(script) << "import os, sys, tarfile, zipfile\n"
                             "src, out = sys.argv[1], sys.argv[2]\n"
                             "entries = []\n"
                             "if zipfile.is_zipfile(src):\n"
                             "    with zipfile.ZipFile(src) as z:\n"
                             "        entries = [(i.filename, z.read(i)) for i in z.infolist() if not i.is_dir()]\n"
                             "else:\n"
                             "    with tarfile.open(src) as t:\n"
                             "        entries = [(m.name, t.extractfile(m).read()) for m in t.getmembers() if m.isreg()]\n"
                             "os.makedirs(out, exist_ok=True)\n"
                             "with open(os.path.join(out, 'names.txt'), 'w') as f:\n"
                             "    for k, (name, data) in enumerate(entries):\n"
                             "        open(os.path.join(out, '%d.bin' % k), 'wb').write(data)\n"
                             "        f.write(name + '\\n')\n";
    fs::remove_all(out);
    const std::string cmd = std::string(STREETGAN_PYTHON) + " " + script + " '" + archive + "' " + out;
    if (std::system(cmd.c_str()) != 0) return {};
    std::vector<std::pair<std::string, Bytes>> entries;
    std::ifstream names(fs::path(out) / "names.txt");
    for (std::string line; std::getline(names, line);) entries.emplace_back(line, readFile(fs::path(out) / (std::to_string(entries.size()) + ".bin")));
    return entries;
}

}  // namespace

// Every zip / tar / tar.gz layout the fixtures hold (stored and deflated, data descriptors, ZIP64,
// pax, GNU long names, ustar prefixes, two gzip members) lists the entries Python reads, in its
// order, and reads the bytes Python reads.
TEST_F(ArchiveReaderTest, ReadsTheBytesPythonReads) {
    test::TempDir scratch;
    for (const char* file : {"batch.zip", "stream.zip", "zip64.zip", "longnames.zip", "batch.tar", "longnames-gnu.tar", "longnames-ustar.tar", "batch.tar.gz",
                             "multi.tar.gz", "text.tar.gz", "longnames-pax.tar.gz"}) {
        const auto want = pythonRead(dir_->file(file), scratch);
        ASSERT_FALSE(want.empty()) << file;
        ArchiveReader r(dir_->file(file), kNoCache);
        EXPECT_FALSE(r.truncated()) << file;
        ASSERT_EQ(r.size(), want.size()) << file;
        for (size_t i = 0; i < r.size(); ++i) {
            EXPECT_EQ(r.entry(i).name, want[i].first) << file;
            EXPECT_EQ(r.entry(i).size, want[i].second.size()) << file << " " << want[i].first;
            EXPECT_TRUE(r.read(i) == want[i].second) << file << " " << want[i].first;
        }
        if (std::string(file).find("longnames") == 0) {
            EXPECT_GT(r.entry(0).name.size(), 100u) << file;
        }
    }
}

// A zip entry compressed by another method than stored / deflate, or encrypted, is refused in one
// line naming archive and entry; the entry beside it still reads.
TEST(ArchiveReaderZip, OtherMethodsAndEncryptionAreRefusedNamingTheEntry) {
    test::TempDir dir;
    const std::string zip = dir / "methods.zip";
    const std::string cmd = std::string(STREETGAN_PYTHON) + " -c \"import zipfile; z = zipfile.ZipFile('" + zip +
                            "', 'w'); z.writestr('plain.txt', 'street ' * 100); z.writestr('packed.txt', 'view ' * 100, zipfile.ZIP_BZIP2); "
                            "z.writestr('secret.txt', 'night ' * 100); z.close()\"";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    // Mark secret.txt encrypted (general purpose flag bit 0) in its local and central headers.
    Bytes bytes = readFile(zip);
    int marked = 0;
    for (size_t p = 0; p + 46 <= bytes.size(); ++p) {
        if (bytes[p] != 'P' || bytes[p + 1] != 'K') continue;
        const bool local = bytes[p + 2] == 3 && bytes[p + 3] == 4, central = bytes[p + 2] == 1 && bytes[p + 3] == 2;
        if (!local && !central) continue;
        const size_t nameAt = p + (local ? 30 : 46);
        if (std::string(bytes.begin() + static_cast<std::ptrdiff_t>(nameAt), bytes.begin() + static_cast<std::ptrdiff_t>(nameAt + 10)) != "secret.txt")
            continue;
        bytes[p + (local ? 6 : 8)] |= 1;
        ++marked;
    }
    ASSERT_EQ(marked, 2);
    writeFile(zip, bytes);
    ArchiveReader r(zip, ArchiveReader::IndexCache::Off);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r.read(r.find("plain.txt")).size(), 700u);
    const auto refusal = [&](const std::string& name) {
        try {
            r.read(r.find(name));
        } catch (const DataError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string packed = refusal("packed.txt"), secret = refusal("secret.txt");
    EXPECT_NE(packed.find(zip + ": entry 'packed.txt' uses compression method 12"), std::string::npos) << packed;
    EXPECT_NE(secret.find(zip + ": entry 'secret.txt' is encrypted"), std::string::npos) << secret;
    EXPECT_EQ(packed.find('\n'), std::string::npos) << packed;
    EXPECT_EQ(secret.find('\n'), std::string::npos) << secret;
}

// Symbolic links and special files in a zip made on Unix (their type in the external attributes)
// are skipped with their reason, as in a tar; never read as files.
TEST(ArchiveReaderZip, LinksAndSpecialFilesAreSkippedWithTheirReason) {
    test::TempDir dir;
    const std::string zip = dir / "links.zip";
    const std::string script = dir / "make.py";
    std::ofstream(script) << "import sys, zipfile\n"
                             "z = zipfile.ZipFile(sys.argv[1], 'w')\n"
                             "z.writestr('a/real.txt', 'street')\n"
                             "for name, mode, data in (('a/link.txt', 0o120777, 'real.txt'), ('a/fifo', 0o010644, ''), ('a/sub/', 0o040755, '')):\n"
                             "    i = zipfile.ZipInfo(name)\n"
                             "    i.create_system = 3\n"
                             "    i.external_attr = mode << 16\n"
                             "    z.writestr(i, data)\n"
                             "z.close()\n";
    ASSERT_EQ(std::system((std::string(STREETGAN_PYTHON) + " " + script + " " + zip).c_str()), 0);
    ArchiveReader r(zip, ArchiveReader::IndexCache::Off);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r.entry(0).name, "a/real.txt");
    const std::vector<std::pair<std::string, std::string>> want{{"a/link.txt", dataset_names::kArchiveLink}, {"a/fifo", dataset_names::kNotRegular}};
    EXPECT_EQ(r.skippedEntries(), want);
    EXPECT_FALSE(r.truncated());
}

// A tar header whose checksum fails ends the listing there: truncated, the entries before it read
// back, nothing after it listed.
TEST_F(ArchiveReaderTest, CorruptTarHeaderEndsTheListing) {
    ArchiveReader full(archive("tar"), kNoCache);
    Bytes bytes = readFile(archive("tar"));
    // The header of the 11th regular file (a folder comes first): one letter of its name changed.
    const std::string target = full.entry(10).name;
    size_t at = std::string::npos;
    for (size_t p = 0; p + 512 <= bytes.size(); p += 512)
        if (bytes[p + 156] == '0' && std::string(reinterpret_cast<const char*>(bytes.data() + p), target.size()) == target) at = p;
    ASSERT_NE(at, std::string::npos) << target;
    bytes[at] ^= 0x20;
    const std::string bad = dir_->file("bad-header.tar");
    writeFile(bad, bytes);
    ArchiveReader r(bad, kNoCache);
    EXPECT_TRUE(r.truncated());
    ASSERT_EQ(r.size(), 10u);
    for (size_t i = 0; i < r.size(); ++i) EXPECT_TRUE(r.read(i) == originals_->at(r.entry(i).name)) << r.entry(i).name;
}

#ifdef STREETGAN_TEST_NO_LIBARCHIVE
// Without libarchive, a tar compressed by anything but gzip is refused in one line naming the file,
// the compression and the command that converts it.
TEST_F(ArchiveReaderTest, OtherCompressedTarIsRefusedWithTheConversion) {
    const std::string bz = dir_->file("small.tar.bz2");
    try {
        ArchiveReader r(bz, kNoCache);
        ADD_FAILURE() << "a bzip2 tar was listed without libarchive";
    } catch (const DataError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(bz + " is a bzip2-compressed tar; this streetgan-trainer reads zip, tar and tar.gz: convert it with `bzip2 -dc '" + bz +
                           "' | gzip > '" + dir_->file("small.tar.gz") + "'`"),
                  std::string::npos)
            << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
}
#endif
