// S3ArchiveReader against a real S3 server on loopback (SeaweedFS): zip and tar batches uploaded
// to a bucket list as ArchiveReader lists the same files on disk and read back the same bytes
// from 4 threads at once (ZIP64 included); a truncated zip and tar in the bucket keep their
// complete entries and name the damaged one; the index cache makes a second open cost one HEAD and
// is listed again when the object changes; a missing object, a non-archive and a tar.gz are one
// line each; S3ArchiveDataset fetches each entry's range once, then serves it from the object cache.
#include "base/s3/S3ArchiveReader.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "base/dataset/DatasetNames.h"
#include "base/s3/S3ArchiveDataset.h"
#include "base/s3/S3ArchiveTestSupport.h"
#include "base/s3/S3Error.h"
#include "support/SeaweedFixture.h"

using namespace streetgan;
using namespace streetgan::s3;
using namespace streetgan::test::s3archive;
using streetgan::test::SeaweedFixture;
using streetgan::test::TempDir;

namespace {

S3Client::CredentialSource keys() {
    return [] { return S3Credentials{SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey, "", std::nullopt, "test keys"}; };
}

class S3ArchiveReaderTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        archives_ = new TempDir();
        ASSERT_TRUE(makeArchives(archives_->path()));
    }
    static void TearDownTestSuite() {
        delete archives_;
        archives_ = nullptr;
    }
    void SetUp() override {
        if (const std::string reason = SeaweedFixture::unavailableReason(); !reason.empty()) GTEST_SKIP() << reason;
        server_ = std::make_unique<SeaweedFixture>(serverDir_.path().string());
        options_.endpoint = server_->endpoint();
        options_.backoffBase = std::chrono::milliseconds(1);
        client_ = std::make_unique<S3Client>("batches", options_, keys());
        client_->createBucket();
    }
    std::string upload(const std::string& file, const std::string& bytes) {
        client_->put("msls/" + file, bytes);
        return "s3://batches/msls/" + file;
    }
    std::unique_ptr<S3ArchiveReader> open(const std::string& uri) {
        return std::make_unique<S3ArchiveReader>(S3Url::parse(uri), options_, keys(), cache_.path().string());
    }
    static std::string local(const std::string& f) { return archives_->file(f); }

    static TempDir* archives_;
    TempDir serverDir_, cache_;
    S3ClientOptions options_;
    std::unique_ptr<SeaweedFixture> server_;
    std::unique_ptr<S3Client> client_;
};
TempDir* S3ArchiveReaderTest::archives_ = nullptr;

}  // namespace

TEST_F(S3ArchiveReaderTest, ListsAndReadsAsTheSameFileOnDisk) {
    for (const char* file : {"batch.zip", "stream.zip", "zip64all.zip", "batch.tar", "gnu.tar", "pax.tar"}) {
        const auto reader = open(upload(file, readAll(local(file))));
        const ArchiveReader disk(local(file), ArchiveReader::IndexCache::Off);
        expectSameListing(disk, reader->index(), file);
        EXPECT_FALSE(reader->fromCache());
        EXPECT_EQ(reader->name(), std::string(std::string(file).find(".zip") != std::string::npos ? "zip" : "tar") + " 's3://batches/msls/" + file + "'");
        const DatasetIndex::Listing listing = reader->listing();
        EXPECT_EQ(listing.rootPath, std::string("s3://batches/msls/") + file);
        size_t intact = 0;
        for (size_t i = 0; i < disk.size(); ++i) intact += disk.intact(i) ? 1 : 0;
        EXPECT_EQ(listing.files.size(), intact) << file;
        // Every entry by its path, 4 threads at once (the client pool), equal to the local read.
        std::atomic<size_t> next{0}, same{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&] {
                for (size_t i; (i = next.fetch_add(1)) < disk.size();)
                    if (reader->read(disk.entry(i).name) == disk.read(i)) ++same;
            });
        for (auto& t : threads) t.join();
        EXPECT_EQ(same.load(), disk.size()) << file;
        // A loader that fetches the range itself hands it to decode(): the same bytes, no GET more.
        const int before = reader->requests();
        for (size_t i = 0; i < disk.size(); ++i) {
            const S3ArchiveReader::Range r = reader->range(i);
            EXPECT_TRUE(reader->decode(i, client_->getRange("msls/" + std::string(file), r.offset, r.length)) == disk.read(i))
                << file << " " << disk.entry(i).name;
        }
        EXPECT_EQ(reader->requests(), before) << file;
    }
    // The CSV reader of the listing reads an entry; a path outside the archive is absent.
    const auto batch = open("s3://batches/msls/batch.zip");
    const auto csv = batch->listing().readText("train_val/cityA/query/raw.csv");
    ASSERT_TRUE(csv.has_value());
    EXPECT_EQ(*csv, "key,lon,lat\nabc,1.0,2.0\n");
    EXPECT_FALSE(batch->listing().readText("../seq_info.csv").has_value());
}

TEST_F(S3ArchiveReaderTest, ATruncatedZipOrTarKeepsItsCompleteEntriesAndNamesTheDamagedOne) {
    for (const char* ext : {"zip", "tar"}) {
        const std::string whole = readAll(local(std::string("batch.") + ext));
        const std::string cut = whole.substr(0, whole.size() * 6 / 10);
        writeAll(local(std::string("cut.") + ext), cut);
        const auto reader = open(upload(std::string("cut.") + ext, cut));
        const ArchiveReader disk(local(std::string("cut.") + ext), ArchiveReader::IndexCache::Off);
        expectSameListing(disk, reader->index(), ext);
        EXPECT_TRUE(reader->truncated()) << ext;
        const DatasetIndex::Listing listing = reader->listing();
        ASSERT_EQ(listing.skipped.count(dataset_names::kTruncatedEntry), 1u) << ext;
        EXPECT_EQ(listing.skipped.at(dataset_names::kTruncatedEntry), 1) << ext;
        const std::string damaged = listing.skippedFiles.at(dataset_names::kTruncatedEntry).at(0);
        try {
            reader->read(damaged);
            ADD_FAILURE() << ext << ": the damaged entry was read";
        } catch (const DataError& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find("s3://batches/msls/cut." + std::string(ext)), std::string::npos) << msg;
            EXPECT_NE(msg.find(damaged), std::string::npos) << msg;
        }
        for (const auto& f : listing.files) EXPECT_EQ(reader->read(f.path).size(), f.size) << ext << " " << f.path;
    }
}

TEST_F(S3ArchiveReaderTest, TheIndexCacheMakesASecondOpenOneHeadAndFollowsTheObject) {
    const std::string uri = upload("many.zip", readAll(local("many.zip")));
    const auto t0 = std::chrono::steady_clock::now();
    const auto first = open(uri);
    const auto t1 = std::chrono::steady_clock::now();
    EXPECT_FALSE(first->fromCache());
    EXPECT_EQ(first->index().entries.size(), 70000u);
    EXPECT_LE(first->requests(), 5) << "HEAD, the first block, the tail, the central directory";
    ASSERT_TRUE(fs::exists(first->indexPath()));
    EXPECT_EQ(fs::path(first->indexPath()).parent_path(), cache_.path());

    const auto t2 = std::chrono::steady_clock::now();
    const auto second = open(uri);
    const auto t3 = std::chrono::steady_clock::now();
    std::printf("[ info ] many.zip (70,000 entries, %.1f MB): listed in %.0f ms with %d requests, from the index cache in %.0f ms with %d\n",
                static_cast<double>(fs::file_size(local("many.zip"))) / 1e6, std::chrono::duration<double, std::milli>(t1 - t0).count(), first->requests(),
                std::chrono::duration<double, std::milli>(t3 - t2).count(), second->requests());
    EXPECT_TRUE(second->fromCache());
    EXPECT_EQ(second->requests(), 1) << "one HEAD";
    ASSERT_EQ(second->index().entries.size(), 70000u);
    EXPECT_EQ(second->read("train_val/cityM/database/images/m69999.jpg"), std::vector<uint8_t>({'6', '9', '9', '9', '9'}));

    // Another object under the same key (new ETag and size): listed again, and cached anew.
    client_->put("msls/many.zip", readAll(local("batch.zip")));
    const auto third = open(uri);
    EXPECT_FALSE(third->fromCache());
    EXPECT_EQ(third->index().entries.size(), ArchiveReader(local("batch.zip"), ArchiveReader::IndexCache::Off).size());
    EXPECT_TRUE(open(uri)->fromCache());
    // A damaged cache file is ignored.
    writeAll(third->indexPath(), readAll(third->indexPath()).substr(0, 100));
    EXPECT_FALSE(open(uri)->fromCache());
}

TEST_F(S3ArchiveReaderTest, AMissingObjectANonArchiveAndATarGzAreOneLineEach) {
    const auto lineOf = [&](const std::string& uri) {
        try {
            open(uri);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    const std::string missing = lineOf("s3://batches/msls/absent.zip");
    EXPECT_NE(missing.find("s3://batches/msls/absent.zip: no such object"), std::string::npos) << missing;
    try {
        open("s3://batches/msls/absent.zip");
    } catch (const S3Error& e) {
        EXPECT_EQ(e.kind(), S3Error::Kind::NotFound);
    }
    upload("notes.zip", std::string(4000, 'x'));
    const std::string notes = lineOf("s3://batches/msls/notes.zip");
    EXPECT_NE(notes.find("s3://batches/msls/notes.zip: not a zip or tar archive"), std::string::npos) << notes;
    upload("batch.tar.gz", readAll(local("batch.tar.gz")));
    const std::string gz = lineOf("s3://batches/msls/batch.tar.gz");
    EXPECT_NE(gz.find("cannot be read in place from S3"), std::string::npos) << gz;
    EXPECT_NE(gz.find("repack the batch as a zip or a plain (uncompressed) tar"), std::string::npos) << gz;
    upload("empty.zip", "");
    EXPECT_NE(lineOf("s3://batches/msls/empty.zip").find("archive is empty"), std::string::npos);
    EXPECT_NE(lineOf("s3://batches/msls/").find("names a folder"), std::string::npos);
    for (const std::string& line : {missing, notes, gz}) EXPECT_EQ(line.find('\n'), std::string::npos) << line;
}

// S3ArchiveDataset, what the loader reads a batch through: each entry's range fetched once
// (announced ahead, concurrently), the same bytes as the file on disk; a second open finds the
// index in the cache folder and every range in the object cache (no GET at all).
TEST_F(S3ArchiveReaderTest, TheDatasetFetchesEachRangeOnceThenFromTheObjectCache) {
    const std::string uri = upload("batch.tar", readAll(local("batch.tar")));
    // The AWS chain from this process's environment: the test's keys, nothing else.
    ::setenv("AWS_ACCESS_KEY_ID", SeaweedFixture::kAccessKey, 1);
    ::setenv("AWS_SECRET_ACCESS_KEY", SeaweedFixture::kSecretKey, 1);
    ::setenv("AWS_REGION", "us-east-1", 1);
    ::setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
    ::unsetenv("AWS_SESSION_TOKEN");
    ::unsetenv("AWS_PROFILE");
    S3LoadOptions options;
    options.endpoint = server_->endpoint();
    options.cacheDir = cache_.path().string() + "/s3";
    options.concurrency = 4;
    const ArchiveReader disk(local("batch.tar"), ArchiveReader::IndexCache::Off);
    std::vector<std::string> paths;
    int64_t nonEmpty = 0;  // an empty entry has no range to fetch
    for (size_t i = 0; i < disk.size(); ++i) {
        paths.push_back(disk.entry(i).name);
        nonEmpty += disk.entry(i).size > 0 ? 1 : 0;
    }
    ASSERT_LT(nonEmpty, static_cast<int64_t>(disk.size())) << "batch.tar holds an empty file";
    double bytes = 0;
    const auto localStart = std::chrono::steady_clock::now();
    for (size_t i = 0; i < disk.size(); ++i) bytes += static_cast<double>(disk.read(i).size());
    const double localSecs = std::chrono::duration<double>(std::chrono::steady_clock::now() - localStart).count();
    for (int pass = 0; pass < 2; ++pass) {
        const auto batch = S3ArchiveDataset::open(uri, options);
        EXPECT_EQ(batch->reader()->fromCache(), pass == 1);
        EXPECT_EQ(fs::path(batch->reader()->indexPath()).parent_path(), fs::path(options.cacheDir) / "archive-index");
        const auto start = std::chrono::steady_clock::now();
        batch->prefetch(paths);
        std::vector<std::vector<uint8_t>> got;
        for (const std::string& p : paths) got.push_back(batch->read(p));
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("[ info ] batch.tar (%zu entries, %.1f MB) read through S3ArchiveDataset %s: %.0f MB/s (the local ArchiveReader: %.0f MB/s)\n",
                    paths.size(), bytes / 1e6, pass == 0 ? "from SeaweedFS on loopback, 4 GETs in flight" : "from the object cache", bytes / 1e6 / secs,
                    bytes / 1e6 / localSecs);
        for (size_t i = 0; i < disk.size(); ++i) EXPECT_TRUE(got[i] == disk.read(i)) << paths[i];
        const S3Fetcher::Counters c = batch->fetcher().counters();
        if (pass == 0) {
            EXPECT_EQ(c.requests, nonEmpty) << "one ranged GET per entry";
        } else {
            EXPECT_EQ(c.requests, 0);
            EXPECT_EQ(c.diskHits, nonEmpty);
        }
    }
    for (const char* v : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_EC2_METADATA_DISABLED"}) ::unsetenv(v);
}
