// Training from S3 (issue 47 items 1-2) against a real SeaweedFS on loopback: an MSLS-layout
// photo folder and a packed cache uploaded to a bucket load exactly as the same data on disk (index,
// skip reasons, first batches; `data stats`, `data pack`, `data verify`, `train`, `eval` from
// s3://), every object is fetched once (a second epoch and a second run are served by the disk
// cache, counted by the fetcher), and the object cache stays under its limit by evicting the least
// recently used.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/dataset/PackRegistry.h"
#include "base/run/TrainConfig.h"
#include "base/s3/S3Client.h"
#include "base/s3/S3Dataset.h"
#include "base/s3/S3Error.h"
#include "base/s3/S3Fetcher.h"
#include "base/s3/S3ListingCache.h"
#include "base/s3/S3ObjectCache.h"
#include "ml/dataset/BatchLoader.h"
#include "ml/dataset/DataSources.h"
#include "ml/dataset/PackedCacheSource.h"
#include "ml/dataset/PhotoListing.h"
#include "ml/dataset/PhotoSource.h"
#include "support/CliRunner.h"
#include "support/SeaweedFixture.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::CliResult;
using streetgan::test::CliRunner;
using streetgan::test::SeaweedFixture;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A 176x132 JPEG of its own colour.
std::vector<uchar> photo(int i) {
    cv::Mat img(132, 176, CV_8UC3, cv::Scalar(20 + 3 * i, 230 - 2 * i, (i * 53) % 256));
    cv::rectangle(img, {40, 30}, {120, 100}, cv::Scalar((i * 97) % 256, 60, 200 - i), -1);
    std::vector<uchar> jpg;
    cv::imencode(".jpg", img, jpg);
    return jpg;
}

void write(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// MSLS layout: train_val/<city>/database/images with seq_info.csv (3 sequences of 5 frames per
// city), a truncated JPEG and a text file named .jpg among them.
void makeMsls(const fs::path& root) {
    int n = 0;
    for (const std::string city : {"amsterdam", "berlin"}) {
        const fs::path db = root / "train_val" / city / "database";
        std::string csv = ",key,sequence_key,frame_number\n";
        for (int s = 0; s < 3; ++s)
            for (int f = 0; f < 5; ++f) {
                const std::string key = city.substr(0, 3) + std::to_string(s) + std::to_string(f);
                const auto jpg = photo(n++);
                write(db / "images" / (key + ".jpg"), std::string(jpg.begin(), jpg.end()));
                csv += std::to_string(s * 5 + f) + "," + key + ",SEQ" + city + std::to_string(s) + "," + std::to_string(f) + "\n";
            }
        write(db / "seq_info.csv", csv);
    }
    const auto good = photo(99);
    write(root / "train_val" / "berlin" / "database" / "images" / "cut.jpg", std::string(good.begin(), good.begin() + static_cast<long>(good.size() / 2)));
    write(root / "train_val" / "amsterdam" / "database" / "images" / "notes.jpg", "this is a text file, not a photo\n");
}

s3::S3Credentials keys() { return {SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey, "", std::nullopt, "test"}; }

void upload(s3::S3Client& client, const fs::path& folder, const std::string& prefix) {
    for (const auto& f : fs::recursive_directory_iterator(folder))
        if (f.is_regular_file() && f.path().filename().string()[0] != '.')
            client.put(prefix + f.path().lexically_relative(folder).generic_string(), read(f.path()));
}

// The AWS chain of this process (the library opens buckets with it) reads the test server's keys.
void useServerKeys(const fs::path& home) {
    ::setenv("AWS_ACCESS_KEY_ID", SeaweedFixture::kAccessKey, 1);
    ::setenv("AWS_SECRET_ACCESS_KEY", SeaweedFixture::kSecretKey, 1);
    ::setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
    ::setenv("AWS_REGION", "us-east-1", 1);
    ::setenv("HOME", home.c_str(), 1);
    ::unsetenv("AWS_PROFILE");
    ::unsetenv("AWS_SESSION_TOKEN");
}

// One server and bucket per suite: the MSLS folder under msls/, for all tests.
class S3Load : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!SeaweedFixture::unavailableReason().empty()) return;
        tmp_ = new TempDir();
        makeMsls(tmp_->path() / "local");
        fs::create_directories(tmp_->path() / "server");
        server_ = new SeaweedFixture((tmp_->path() / "server").string());
        s3::S3ClientOptions o;
        o.endpoint = server_->endpoint();
        s3::S3Client client("data", o, [] { return keys(); });
        client.createBucket();
        upload(client, tmp_->path() / "local", "msls/");
        useServerKeys(tmp_->path());
    }
    static void TearDownTestSuite() {
        delete server_;
        delete tmp_;
        server_ = nullptr;
        tmp_ = nullptr;
    }
    void SetUp() override {
        if (const std::string reason = SeaweedFixture::unavailableReason(); !reason.empty()) GTEST_SKIP() << reason;
        static int n = 0;
        cache_ = tmp_->path() / ("cache" + std::to_string(n++));
    }

    static fs::path local() { return tmp_->path() / "local" / "train_val"; }
    static std::string bucketFolder() { return "s3://data/msls/train_val"; }

    TrainConfig config(int size = 32) const {
        TrainConfig c;
        c.model.imgSize = size;
        c.maxPerSequence = 4;
        c.validationPercent = 10;
        c.s3Endpoint = server_->endpoint();
        c.s3Cache = cache_.string();
        c.s3Concurrency = 8;
        return c;
    }
    s3::S3LoadOptions options(double gb = 1) const {
        s3::S3LoadOptions o;
        o.endpoint = server_->endpoint();
        o.cacheDir = cache_.string();
        o.concurrency = 8;
        o.cacheGb = gb;
        return o;
    }
    CliResult cli(const std::vector<std::string>& args) const {
        std::vector<std::string> all = args;
        const bool s3 = std::any_of(args.begin(), args.end(), [](const std::string& a) { return a.rfind("s3://", 0) == 0; });
        if (s3) all.insert(all.end(), {"--s3-endpoint", server_->endpoint(), "--s3-cache", cache_.string()});
        const std::string env = "env -u AWS_PROFILE -u AWS_SESSION_TOKEN AWS_EC2_METADATA_DISABLED=true AWS_REGION=us-east-1 HOME=" + tmp_->path().string() +
                                " XDG_CACHE_HOME=" + (tmp_->path() / "xdg").string() + " AWS_ACCESS_KEY_ID=" + SeaweedFixture::kAccessKey +
                                " AWS_SECRET_ACCESS_KEY=" + SeaweedFixture::kSecretKey + " ";
        return CliRunner(tmp_->path().string()).run(all, env);
    }

    static TempDir* tmp_;
    static SeaweedFixture* server_;
    fs::path cache_;
};

TempDir* S3Load::tmp_ = nullptr;
SeaweedFixture* S3Load::server_ = nullptr;

// Every step's batch, images and noise, of `steps` steps of a loader over `source`.
std::vector<torch::Tensor> batches(std::shared_ptr<const ImageSource> source, int64_t steps, int64_t first = 0) {
    LoaderOptions o;
    o.batch = 4;
    o.imgSize = 32;
    o.nz = 8;
    o.seed = 7;
    BatchLoader loader(std::move(source), o);
    loader.start(first);
    std::vector<torch::Tensor> out;
    for (int64_t s = 0; s < steps; ++s) out.push_back(loader.next().real);
    loader.stop();
    return out;
}

void expectSameBatches(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << "batch " << i;
}

}  // namespace

TEST(S3ObjectCache, KeepsTheMostRecentlyUsedUnderItsLimitAcrossRuns) {
    TempDir dir;
    const std::string body(1000, 'x');
    {
        s3::S3ObjectCache cache(dir.path().string(), 3300);  // three objects and their headers
        cache.put("a", body);
        cache.put("b", body);
        cache.put("c", body);
        EXPECT_EQ(cache.count(), 3u);
        EXPECT_EQ(cache.get("a"), body);  // a is now the most recent: b goes first
        cache.put("d", body);
        EXPECT_FALSE(cache.contains("b"));
        EXPECT_TRUE(cache.contains("a"));
        EXPECT_EQ(cache.evictions(), 1);
        EXPECT_LE(cache.bytes(), 3300u);
        cache.put("huge", std::string(5000, 'y'));  // above the limit alone: not stored
        EXPECT_FALSE(cache.contains("huge"));
        EXPECT_TRUE(cache.contains("c"));
    }
    // A later run: the same entries, the order kept by the files' times; a smaller limit evicts
    // the oldest at once.
    s3::S3ObjectCache again(dir.path().string(), 2200);
    EXPECT_EQ(again.count(), 2u);
    EXPECT_FALSE(again.contains("c"));
    EXPECT_EQ(again.get("d"), body);
    // A torn file (cut short by a crash) is a miss, never wrong bytes.
    for (const auto& f : fs::directory_iterator(dir.path() / "objects")) fs::resize_file(f.path(), 100);
    EXPECT_EQ(again.get("a"), std::nullopt);
    EXPECT_EQ(again.get("d"), std::nullopt);
}

TEST_F(S3Load, AFolderInABucketGivesTheSameIndexSkipsAndFirstBatchesAsOnDisk) {
    const TrainConfig cfg = config();
    const auto there = DataSources::open(bucketFolder(), cfg);
    const auto here = DataSources::open(local().string(), cfg);
    ASSERT_EQ(there->size(), here->size());
    EXPECT_GT(there->size(), 8);
    const auto& a = dynamic_cast<const PhotoSource&>(*there).index();
    const auto& b = dynamic_cast<const PhotoSource&>(*here).index();
    for (size_t i = 0; i < a.entries().size(); ++i) {
        EXPECT_EQ(a.entries()[i].key, b.entries()[i].key);
        EXPECT_EQ(a.entries()[i].sequence, b.entries()[i].sequence);
    }
    EXPECT_GT(there->prefetchWindow(), 0);
    EXPECT_EQ(here->prefetchWindow(), 0);
    const int64_t steps = there->size() / 4 * 2;  // two epochs: the bad images found and replaced alike
    expectSameBatches(batches(there, steps), batches(here, steps));
    EXPECT_EQ(there->skipped(), here->skipped());
    // A resumed run's batches, from any step, are the uninterrupted run's (both sides opened
    // again: the verdicts found so far now leave the bad images out of both indexes alike).
    expectSameBatches(batches(DataSources::open(bucketFolder(), cfg), 2, 3), batches(DataSources::open(local().string(), cfg), 2, 3));
    // The held-out split too (eval's real images).
    const auto heldThere = DataSources::openHeldOut(bucketFolder(), cfg), heldHere = DataSources::openHeldOut(local().string(), cfg);
    EXPECT_EQ(heldThere->size(), heldHere->size());
}

TEST_F(S3Load, EveryObjectIsFetchedOnceAndALaterEpochAndALaterRunReadTheDiskCache) {
    const TrainConfig cfg = config();
    const s3::S3LoadOptions o = options();
    constexpr int64_t kObjects = 2 + 32;  // the two CSVs and the listed images
    {
        const auto bucket = DataSources::openS3(bucketFolder(), o);
        PhotoListing listing = PhotoListing::s3(bucket);
        const auto source = PhotoSource::fromListing(listing, DataSources::indexOptions(cfg), DataSources::augmentParams(cfg));
        const int64_t epoch = source->size() / 4;
        batches(source, 3 * epoch);  // three epochs
        const auto c = bucket->fetcher().counters();
        EXPECT_GE(c.requests, 2 + epoch * 4);
        EXPECT_LE(c.requests, kObjects) << "an object was fetched twice";
        EXPECT_GT(c.memoryHits, 0) << "nothing was prefetched ahead of the loader";
        EXPECT_GT(c.diskHits, 0) << "later epochs did not read the disk cache";
        // data stats' check reads every listed image: through the same fetcher, each object once.
        listing.check(IndexOptions{});
        EXPECT_LE(bucket->fetcher().counters().requests, kObjects);
        EXPECT_GE(bucket->fetcher().counters().requests, 30);
    }
    EXPECT_TRUE(fs::exists(s3::S3ListingCache::fileFor(cache_.string(), server_->endpoint(), "data", "msls/train_val/")));
    // A later run on this machine: the listing, the CSVs and the images all local.
    const auto bucket = DataSources::openS3(bucketFolder(), o);
    const auto source = PhotoSource::fromListing(PhotoListing::s3(bucket), DataSources::indexOptions(cfg), DataSources::augmentParams(cfg));
    batches(source, 2 * (source->size() / 4));
    EXPECT_EQ(bucket->fetcher().counters().requests, 0);
    EXPECT_GT(bucket->fetcher().counters().diskHits, 0);
}

// Keys that stop working once the listing and the CSVs are cached (an expired session, a rotated
// secret): the first image's GET stops the source with S3's one line, instead of skipping image
// after image as unreadable.
TEST_F(S3Load, CredentialsThatStopWorkingStopTheSourceInsteadOfSkippingImages) {
    const TrainConfig cfg = config();
    const s3::S3LoadOptions o = options();
    // The listing and the CSVs, cached (the index reads the CSVs); no image is read yet.
    PhotoListing::s3(DataSources::openS3(bucketFolder(), o)).index(DataSources::indexOptions(cfg));
    struct WrongSecret {
        WrongSecret() { ::setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret", 1); }
        ~WrongSecret() { ::setenv("AWS_SECRET_ACCESS_KEY", SeaweedFixture::kSecretKey, 1); }
    } wrong;
    // Outside the try: these must come from the caches, so that it is an image's GET that fails.
    const auto bucket = DataSources::openS3(bucketFolder(), o);
    const PhotoListing listing = PhotoListing::s3(bucket);
    try {
        const auto source = PhotoSource::fromListing(listing, DataSources::indexOptions(cfg), DataSources::augmentParams(cfg));
        ADD_FAILURE() << "the source opened with a wrong secret key; skip reasons: " << source->skipped().size();
    } catch (const s3::S3Error& e) {
        EXPECT_EQ(e.kind(), s3::S3Error::Kind::Credentials) << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not S3's credentials line: " << e.what();
    }
    EXPECT_LE(bucket->fetcher().counters().requests, 16) << "images were tried one after another";
}

TEST_F(S3Load, TheObjectCacheEvictsTheLeastRecentlyUsedUnderASmallLimit) {
    const TrainConfig cfg = config();
    const s3::S3LoadOptions o = options(20000.0 / (1024.0 * 1024.0 * 1024.0));  // 20 kB: a few images
    const auto bucket = DataSources::openS3(bucketFolder(), o);
    const auto source = PhotoSource::fromListing(PhotoListing::s3(bucket), DataSources::indexOptions(cfg), DataSources::augmentParams(cfg));
    const int64_t epoch = source->size() / 4;
    batches(source, epoch);
    EXPECT_GT(bucket->fetcher().counters().requests, 0);
    EXPECT_LE(bucket->cache()->bytes(), 20000u);
    EXPECT_GT(bucket->cache()->evictions(), 0);
    uint64_t onDisk = 0;
    for (const auto& f : fs::directory_iterator(cache_ / "objects")) onDisk += f.file_size();
    EXPECT_LE(onDisk, 20000u);
    // A later run on the same cache fetches again what was evicted. (Not the next epoch of this
    // run: its window, announced while this epoch's was pending, is kept in memory and fetched once.)
    const auto later = DataSources::openS3(bucketFolder(), o);
    const auto again = PhotoSource::fromListing(PhotoListing::s3(later), DataSources::indexOptions(cfg), DataSources::augmentParams(cfg));
    batches(again, epoch);
    EXPECT_GT(later->fetcher().counters().requests, 0);
    EXPECT_LE(later->cache()->bytes(), 20000u);
}

TEST_F(S3Load, TheFetcherGrowsItsRequestsInFlightWhileItsCallerWaits) {
    s3::S3ClientOptions co;
    co.endpoint = server_->endpoint();
    s3::S3Client client("data", co, [] { return keys(); });
    std::vector<s3::S3Fetcher::Request> all;
    std::vector<uint64_t> sizes;
    for (const s3::S3Object& o : client.list("msls/train_val/")) {
        all.push_back({o.key, o.etag, 0, 0, true});
        sizes.push_back(o.size);
    }
    ASSERT_GT(all.size(), 20u);
    s3::S3Fetcher::Options fo;
    fo.concurrency = 1;
    fo.maxConcurrency = 4;
    s3::S3Fetcher fetcher(
        "data", co, [] { return keys(); }, fo);
    fetcher.prefetch(all);
    // Asked for from the back of the queue: each get() waits while the one worker is busy and
    // objects are queued, so the pool grows, up to its limit.
    for (size_t i = all.size(); i-- > 0;) EXPECT_EQ(fetcher.get(all[i]).size(), sizes[i]) << all[i].key;
    const auto c = fetcher.counters();
    EXPECT_EQ(c.workers, 4);
    EXPECT_EQ(c.requests, static_cast<int64_t>(all.size()));  // each object once
}

// --data-path packed on a photo folder in a bucket: packed once (read ahead, as `data pack`),
// recorded under the bucket's URL and endpoint, and found by the next run; its batches are the
// local folder's pack's (issue 46 item 3).
TEST_F(S3Load, APhotoFolderInABucketIsPackedForTrainingOnceAndFoundAgain) {
    TrainConfig cfg = config();
    cfg.dataPath = "packed";
    std::vector<std::string> said;
    const auto say = [&](const std::string& line) { said.push_back(line); };
    const auto first = DataSources::openForTraining(bucketFolder(), cfg, false, 1, say);
    ASSERT_NE(dynamic_cast<const PackedCacheSource*>(first.get()), nullptr) << first->describe();
    ASSERT_FALSE(said.empty());
    EXPECT_NE(said.front().find("data: packing the photos once before training (--data-path packed)"), std::string::npos) << said.front();
    const auto registered = PackRegistry().forSource(PackRegistry::sourceKey(bucketFolder(), cfg.s3Endpoint));
    ASSERT_EQ(registered.size(), 1u);
    EXPECT_EQ(registered[0].images, first->size());

    cfg.dataPath = "auto";
    said.clear();
    const auto again = DataSources::openForTraining(bucketFolder(), cfg, false, 1, say);
    ASSERT_NE(dynamic_cast<const PackedCacheSource*>(again.get()), nullptr);
    ASSERT_EQ(said.size(), 1u);
    EXPECT_NE(said[0].find("data: training from the packed cache '" + registered[0].dir + "'"), std::string::npos) << said[0];
    // The same photos packed from the local folder give the same batches.
    cfg.dataPath = "packed";
    const auto here = DataSources::openForTraining(local().string(), cfg, false, 1, say);
    ASSERT_EQ(here->size(), again->size());
    expectSameBatches(batches(again, 3), batches(here, 3));
}

TEST_F(S3Load, APackedCacheInABucketLoadsAsOnDiskAndVerifies) {
    const fs::path pack = tmp_->path() / "pack";
    if (!fs::exists(pack / "index.json")) {
        const CliResult packed = cli({"data", "pack", local().string(), "--size", "32", "--out", pack.string()});
        ASSERT_EQ(packed.code, 0) << packed.err;
    }
    s3::S3ClientOptions co;
    co.endpoint = server_->endpoint();
    s3::S3Client client("data", co, [] { return keys(); });
    upload(client, pack, "packed/");
    const TrainConfig cfg = config();
    const auto there = DataSources::open("s3://data/packed", cfg);
    const auto here = DataSources::open(pack.string(), cfg);
    ASSERT_EQ(there->size(), here->size());
    EXPECT_EQ(there->skipped(), here->skipped());
    EXPECT_NE(there->describe().find("s3://data/packed"), std::string::npos) << there->describe();
    expectSameBatches(batches(there, 4), batches(here, 4));

    const CliResult ok = cli({"data", "verify", "s3://data/packed"});
    EXPECT_EQ(ok.code, 0) << ok.err;
    EXPECT_NE(ok.out.find("ok, " + std::to_string(here->size()) + " images"), std::string::npos) << ok.out;
    const CliResult stats = cli({"data", "stats", "s3://data/packed", "--json"});
    const CliResult localStats = cli({"data", "stats", pack.string(), "--json"});
    ASSERT_EQ(stats.code, 0) << stats.err;
    EXPECT_EQ(nlohmann::json::parse(stats.out), nlohmann::json::parse(localStats.out));
    const fs::path run = tmp_->path() / "run-packed";
    const CliResult train = cli({"train", "--run-dir", run.string(), "--preset", "tiny-32", "--data", "s3://data/packed", "--steps", "3", "--batch", "4",
                                 "--log-every", "1", "--sample-every", "0", "--metric-every-checkpoints", "0"});
    EXPECT_EQ(train.code, 0) << train.err;
    EXPECT_NE(nlohmann::json::parse(read(run / "run.json")).value("data_source", "").find("packed cache 's3://data/packed'"), std::string::npos);
    // One byte changed in a shard in the bucket: verify reads the bucket's bytes, not the cache's.
    upload(client, pack, "damaged/");
    std::string shard = read(pack / "shard_00000.bin");
    shard[shard.size() / 2] ^= 0x5a;
    client.put("damaged/shard_00000.bin", shard);
    const CliResult bad = cli({"data", "verify", "s3://data/damaged"});
    EXPECT_EQ(bad.code, 6) << bad.out << bad.err;
    EXPECT_NE(bad.err.find("CRC-32C mismatch"), std::string::npos) << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

TEST_F(S3Load, StatsPackTrainAndEvalTakeABucketFolder) {
    // data stats: the same document as the folder on disk (every image decoded), but for its root.
    const CliResult there = cli({"data", "stats", bucketFolder(), "--json", "--max-per-sequence", "4"});
    ASSERT_EQ(there.code, 0) << there.err;
    const CliResult here = cli({"data", "stats", local().string(), "--json", "--max-per-sequence", "4"});
    ASSERT_EQ(here.code, 0) << here.err;
    auto a = nlohmann::json::parse(there.out), b = nlohmann::json::parse(here.out);
    EXPECT_EQ(a["root"], bucketFolder());
    EXPECT_EQ(a["check"]["decoded"], b["check"]["decoded"]);
    for (auto* j : {&a, &b}) j->erase("root");
    EXPECT_EQ(a, b);

    // data pack: the same records as packing the folder on disk.
    const fs::path packThere = tmp_->path() / "pack-from-s3", packHere = tmp_->path() / "pack-here";
    const CliResult p1 = cli({"data", "pack", bucketFolder(), "--size", "32", "--out", packThere.string()});
    ASSERT_EQ(p1.code, 0) << p1.err;
    const CliResult p2 = cli({"data", "pack", local().string(), "--size", "32", "--out", packHere.string()});
    ASSERT_EQ(p2.code, 0) << p2.err;
    const auto ia = nlohmann::json::parse(read(packThere / "index.json")), ib = nlohmann::json::parse(read(packHere / "index.json"));
    EXPECT_EQ(ia["records"], ib["records"]);
    EXPECT_EQ(read(packThere / "shard_00000.bin"), read(packHere / "shard_00000.bin"));

    // train a few steps from the bucket, then eval its checkpoint on the bucket's images.
    const fs::path run = tmp_->path() / "run";
    const CliResult train = cli({"train", "--run-dir", run.string(), "--preset", "tiny-32", "--data", bucketFolder(), "--steps", "3", "--batch", "4",
                                 "--log-every", "1", "--sample-every", "0", "--metric-every-checkpoints", "0", "--loader-threads", "2"});
    ASSERT_EQ(train.code, 0) << train.err;
    const auto runJson = nlohmann::json::parse(read(run / "run.json"));
    EXPECT_EQ(runJson["config"]["data"], bucketFolder());
    EXPECT_EQ(runJson["config"]["s3_endpoint"], server_->endpoint());
    fs::path checkpoint;
    for (const auto& f : fs::directory_iterator(run / "checkpoints"))
        if (f.path().extension() == ".pt") checkpoint = f.path();
    ASSERT_FALSE(checkpoint.empty());
    const CliResult eval = cli({"eval", "--checkpoint", checkpoint.string(), "--metric", "swd", "--swd-samples", "8"});
    EXPECT_EQ(eval.code, 0) << eval.err;
    EXPECT_NE(eval.out.find("SWD"), std::string::npos) << eval.out;
}
