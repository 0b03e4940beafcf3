// ZipFormat and TarFormat on archives written by Python's zipfile / tarfile (and a ZIP64 zip
// written field by field), read through a ranged reader over the file's bytes: the same listing as
// ArchiveReader (the same parsers over the mapped file) gives for the same file, every entry's
// bytes equal to its read, the same at every cut point of a truncated copy, a corrupt entry a
// DataError naming it, and a walk over small entries costing a few reads, not one per entry.
#include <gtest/gtest.h>

#include <random>

#include "base/dataset/TarFormat.h"
#include "base/dataset/ZipFormat.h"
#include "base/s3/S3ArchiveTestSupport.h"
#include "base/util/Errors.h"

using namespace streetgan;
using namespace streetgan::test::s3archive;

namespace {

class S3ArchiveFormatTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TempDir();
        ASSERT_TRUE(makeArchives(dir_->path()));
    }
    static void TearDownTestSuite() {
        delete dir_;
        dir_ = nullptr;
    }
    static std::string path(const std::string& f) { return dir_->file(f); }
    static bool isZip(const std::string& f) { return f.size() > 4 && f.substr(f.size() - 4) == ".zip"; }
    static ArchiveIndex list(const std::string& file, const std::string& bytes, uint64_t readAhead = uint64_t(1) << 20, int* reads = nullptr) {
        return isZip(file) ? ZipFormat::list(fileFetch(bytes, reads), bytes.size(), file, readAhead)
                           : TarFormat::list(fileFetch(bytes, reads), bytes.size(), file, readAhead);
    }
    static std::vector<uint8_t> read(const std::string& file, const std::string& bytes, const ArchiveIndex::Entry& e) {
        return isZip(file) ? ZipFormat::read(e, fileFetch(bytes), bytes.size(), file) : TarFormat::read(e, fileFetch(bytes), file);
    }
    static test::TempDir* dir_;
};
test::TempDir* S3ArchiveFormatTest::dir_ = nullptr;

const char* const kArchives[] = {"batch.zip", "stream.zip", "zip64.zip", "zip64all.zip", "many.zip",
                                 "batch.tar", "gnu.tar",    "pax.tar",   "ustar.tar",    "small.tar"};

}  // namespace

TEST_F(S3ArchiveFormatTest, ListsAndReadsAsArchiveReader) {
    for (const char* file : kArchives) {
        const std::string bytes = readAll(path(file));
        ArchiveReader local(path(file), ArchiveReader::IndexCache::Off);
        const ArchiveIndex s3 = list(file, bytes);
        expectSameListing(local, s3, file);
        ASSERT_EQ(s3.entries.size(), local.size());
        const size_t step = local.size() > 1000 ? 137 : 1;  // many.zip: a sample of its 70,000
        for (size_t i = 0; i < local.size(); i += step) EXPECT_TRUE(read(file, bytes, s3.entries[i]) == local.read(i)) << file << " " << local.entry(i).name;
    }
    EXPECT_EQ(list("many.zip", readAll(path("many.zip"))).entries.size(), 70000u);
    EXPECT_EQ(list("zip64all.zip", readAll(path("zip64all.zip"))).entries.size(), 12u);
    const ArchiveIndex gnu = list("gnu.tar", readAll(path("gnu.tar")));
    ASSERT_EQ(gnu.skipped.size(), 4u) << "two symlinks, a hard link and a FIFO";
    EXPECT_EQ(gnu.skipped[3].first, "train_val/cityA/far.jpg");
}

TEST_F(S3ArchiveFormatTest, EveryCutListsAsArchiveReaderAndNeverReadsWrongBytes) {
    for (const char* file : {"batch.zip", "stream.zip", "zip64all.zip", "batch.tar", "pax.tar", "gnu.tar"}) {
        const std::string whole = readAll(path(file));
        std::vector<size_t> cuts = {
            1, 100, 511, 512, 513, 1024, 1536, 2047, whole.size() - 1, whole.size() - 4, whole.size() - 10, whole.size() - 22, whole.size() - 1030};
        for (int k = 1; k < 40; ++k) cuts.push_back(whole.size() * k / 40 + 37 * static_cast<size_t>(k));
        const std::string cutPath = path(std::string("cut.") + (isZip(file) ? "zip" : "tar"));
        for (size_t cut : cuts) {
            if (cut >= whole.size()) continue;
            const std::string bytes = whole.substr(0, cut);
            writeAll(cutPath, bytes);
            const std::string label = std::string(file) + " cut at " + std::to_string(cut);
            std::unique_ptr<ArchiveReader> local;
            try {
                local = std::make_unique<ArchiveReader>(cutPath, ArchiveReader::IndexCache::Off);
            } catch (const DataError&) {
                EXPECT_THROW(list(file, bytes), DataError) << label;
                continue;
            }
            ArchiveIndex s3;
            ASSERT_NO_THROW(s3 = list(file, bytes)) << label;
            expectSameListing(*local, s3, label);
            for (size_t i = 0; i < std::min(s3.entries.size(), local->size()); ++i) {
                std::vector<uint8_t> want;
                bool localOk = true;
                try {
                    want = local->read(i);
                } catch (const DataError&) {
                    localOk = false;
                }
                if (localOk) {
                    EXPECT_TRUE(read(file, bytes, s3.entries[i]) == want) << label << " " << s3.entries[i].name;
                } else {
                    try {
                        read(file, bytes, s3.entries[i]);
                        ADD_FAILURE() << label << ": damaged " << s3.entries[i].name << " read without an error";
                    } catch (const DataError& e) {
                        EXPECT_NE(std::string(e.what()).find(s3.entries[i].name), std::string::npos) << e.what();
                        EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
                    }
                }
            }
        }
    }
}

TEST_F(S3ArchiveFormatTest, ACorruptOrUnsupportedEntryIsADataErrorNamingIt) {
    // A flipped byte inside a deflated entry: both readers refuse it.
    std::string bytes = readAll(path("zip64all.zip"));
    const ArchiveIndex index = list("zip64all.zip", bytes);
    const auto& e = index.entries[3];
    bytes[e.offset + e.headerHint + e.compressedSize / 2] ^= 0x5A;
    writeAll(path("flipped.zip"), bytes);
    ArchiveReader local(path("flipped.zip"), ArchiveReader::IndexCache::Off);
    EXPECT_THROW(local.read(3), DataError);
    try {
        read("flipped.zip", bytes, e);
        ADD_FAILURE() << "a corrupt entry was read";
    } catch (const DataError& err) {
        EXPECT_NE(std::string(err.what()).find(e.name), std::string::npos) << err.what();
    }
    // A method other than stored / deflate: named, the stored entry beside it still reads.
    const std::string bz = readAll(path("bzip2.zip"));
    const ArchiveIndex z = list("bzip2.zip", bz);
    ASSERT_EQ(z.entries.size(), 2u);
    EXPECT_EQ(read("bzip2.zip", bz, z.entries[0]).size(), 700u);
    try {
        read("bzip2.zip", bz, z.entries[1]);
        ADD_FAILURE() << "a bzip2 entry was read";
    } catch (const DataError& err) {
        const std::string msg = err.what();
        EXPECT_NE(msg.find("'packed.txt' uses compression method 12"), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    // Not an archive at all.
    const std::string text(3000, 'x');
    EXPECT_THROW(TarFormat::list(fileFetch(text), text.size(), "notes.tar"), DataError);
    EXPECT_THROW(ZipFormat::list(fileFetch(text), text.size(), "notes.zip"), DataError);
}

TEST_F(S3ArchiveFormatTest, TheHeaderWalkReadsAheadOverSmallEntries) {
    const std::string bytes = readAll(path("small.tar"));
    int wide = 0, narrow = 0;
    EXPECT_EQ(list("small.tar", bytes, uint64_t(1) << 20, &wide).entries.size(), 200u);
    EXPECT_EQ(list("small.tar", bytes, 512, &narrow).entries.size(), 200u);
    EXPECT_LE(wide, 2) << "a 1 MiB block holds the whole 550 KiB tar";
    EXPECT_GE(narrow, 200) << "one read per header without read-ahead";
    // A zip lists from its tail and central directory: two reads however many entries.
    int zipReads = 0;
    const std::string many = readAll(path("many.zip"));
    EXPECT_EQ(list("many.zip", many, uint64_t(1) << 20, &zipReads).entries.size(), 70000u);
    EXPECT_LE(zipReads, 3);
}
