// S3Client on a bad link: a real S3 server (SeaweedFS, tests/support/SeaweedFixture) behind
// tests/support/DelayProxy, which answers 503 SlowDown, cuts responses mid-body and delays every
// byte. Throttled requests succeed after backoff (retries counted by the client and by the proxy);
// a dropped GET goes on by range from the byte reached (nothing fetched twice) and never splices
// a replaced object; listings work at a 100 ms round trip; a missing object is reported at once.
// The loader end to end: `data stats` of a bucket through throttles and cut transfers equals the
// folder on disk. And the one-line answers SeaweedFS really gives: a forbidden object, a wrong region (accepted:
// SeaweedFS has one region and checks none; AWS's 301 is in S3ClientTest).
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/s3/LoopbackHttpServer.h"
#include "base/s3/S3Client.h"
#include "base/s3/S3Error.h"
#include "base/s3/S3Fetcher.h"
#include "base/s3/S3TestCalls.h"
#include "support/CliRunner.h"
#include "support/DelayProxy.h"
#include "support/SeaweedFixture.h"
#include "support/TempDir.h"

using namespace streetgan::s3;
using streetgan::test::CliResult;
using streetgan::test::CliRunner;
using streetgan::test::DelayProxy;
using streetgan::test::LoopbackHttpServer;
using streetgan::test::s3At;
using streetgan::test::s3FailureKind;
using streetgan::test::s3Keys;
using streetgan::test::SeaweedFixture;
using streetgan::test::TempDir;

namespace {

std::string photoBytes(size_t size, unsigned seed) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(((i + seed) * 2654435761u) >> 13);
    return bytes;
}

int port(const std::string& endpoint) { return std::stoi(endpoint.substr(endpoint.rfind(':') + 1)); }

class S3FaultsTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (const std::string reason = SeaweedFixture::unavailableReason(); !reason.empty()) GTEST_SKIP() << reason;
        server_ = std::make_unique<SeaweedFixture>(dir_.path().string());
        direct_ = std::make_unique<S3Client>("streetgan-data", s3At(server_->endpoint()), s3Keys(SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey));
        direct_->createBucket();
        proxy_ = std::make_unique<DelayProxy>("127.0.0.1", port(server_->endpoint()));
        client_ = std::make_unique<S3Client>("streetgan-data", s3At(proxy_->url()), s3Keys(SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey));
    }
    std::vector<DelayProxy::Exchange> gets() const {
        std::vector<DelayProxy::Exchange> out;
        for (const auto& e : proxy_->exchanges())
            if (e.method == "GET") out.push_back(e);
        return out;
    }
    TempDir dir_;
    std::unique_ptr<SeaweedFixture> server_;
    std::unique_ptr<S3Client> direct_;  ///< straight to the server: the test's own view
    std::unique_ptr<DelayProxy> proxy_;
    std::unique_ptr<S3Client> client_;  ///< through the proxy: the client under test
};

}  // namespace

TEST_F(S3FaultsTest, ThrottledRequestsSucceedAfterBackoff) {
    const std::string photo = photoBytes(40000, 1);
    direct_->put("train/a.jpg", photo);
    proxy_->throttleNext(3);
    EXPECT_EQ(client_->get("train/a.jpg"), photo);
    EXPECT_EQ(client_->retries(), 3);
    EXPECT_EQ(proxy_->throttled(), 3);
    const auto seen = gets();
    ASSERT_EQ(seen.size(), 4u);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(seen[i].throttled) << i;
    EXPECT_EQ(seen[3].status, 200);
    EXPECT_EQ(seen[3].bodyBytes, photo.size());

    proxy_->throttleNext(2);  // a listing is retried the same way
    EXPECT_EQ(client_->list("train/").size(), 1u);
    EXPECT_EQ(client_->retries(), 5);

    // Throttled on every attempt: one line naming the throttle and the attempts.
    proxy_->clearLog();
    proxy_->throttleNext(1000);
    auto options = s3At(proxy_->url());
    options.maxAttempts = 4;
    S3Client throttled("streetgan-data", options, s3Keys(SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey));
    std::string line;
    EXPECT_EQ(s3FailureKind([&] { throttled.get("train/a.jpg"); }, &line), S3Error::Kind::Throttled);
    EXPECT_EQ(gets().size(), 4u);
    EXPECT_NE(line.find("SlowDown"), std::string::npos) << line;
    EXPECT_NE(line.find("after 4 attempts"), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    proxy_->throttleNext(0);
}

TEST_F(S3FaultsTest, ADroppedObjectIsResumedByRangeFromTheByteReached) {
    const std::string photo = photoBytes(2'000'000, 2);
    direct_->put("train/big.jpg", photo);
    proxy_->dropNextResponseAfter(700'000);
    EXPECT_EQ(client_->get("train/big.jpg"), photo);
    EXPECT_EQ(client_->resumes(), 1);
    auto seen = gets();
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_TRUE(seen[0].dropped);
    EXPECT_EQ(seen[0].range, "");
    EXPECT_EQ(seen[0].bodyBytes, 700'000u);
    EXPECT_EQ(seen[1].range, "bytes=700000-");
    EXPECT_EQ(seen[1].status, 206);
    // Nothing fetched twice: the two answers' bodies add up to the object.
    EXPECT_EQ(seen[0].bodyBytes + seen[1].bodyBytes, photo.size());

    // A byte range dropped part-way goes on within the range.
    proxy_->clearLog();
    proxy_->dropNextResponseAfter(300'000);
    EXPECT_EQ(client_->getRange("train/big.jpg", 100'000, 1'000'000), photo.substr(100'000, 1'000'000));
    EXPECT_EQ(client_->resumes(), 2);
    seen = gets();
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0].range, "bytes=100000-1099999");
    EXPECT_EQ(seen[1].range, "bytes=400000-1099999");
    EXPECT_EQ(seen[0].bodyBytes + seen[1].bodyBytes, 1'000'000u);

    // Dropped twice in one object.
    proxy_->clearLog();
    proxy_->dropNextResponseAfter(500'000, [&] { proxy_->dropNextResponseAfter(600'000); });
    EXPECT_EQ(client_->get("train/big.jpg"), photo);
    seen = gets();
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_EQ(seen[2].range, "bytes=1100000-");
    EXPECT_EQ(seen[0].bodyBytes + seen[1].bodyBytes + seen[2].bodyBytes, photo.size());
}

TEST_F(S3FaultsTest, AnObjectReplacedWhileReadIsNeverSpliced) {
    const std::string before = photoBytes(1'000'000, 3), after = photoBytes(1'000'000, 4);
    direct_->put("train/c.jpg", before);
    // The object is replaced between the drop and the resumed request.
    proxy_->dropNextResponseAfter(400'000, [&] { direct_->put("train/c.jpg", after); });
    std::string line;
    EXPECT_EQ(s3FailureKind([&] { client_->get("train/c.jpg"); }, &line), S3Error::Kind::Changed);
    EXPECT_NE(line.find("s3://streetgan-data/train/c.jpg"), std::string::npos) << line;
    EXPECT_NE(line.find("replaced while it was read"), std::string::npos) << line;
    const auto seen = gets();
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[1].status, 412);  // SeaweedFS honours If-Match
    EXPECT_EQ(client_->get("train/c.jpg"), after);
}

TEST_F(S3FaultsTest, ListsAndReadsAtA100MsRoundTrip) {
    for (int i = 0; i < 25; ++i) direct_->put("msls/city" + std::to_string(i % 2) + "/img" + std::to_string(i) + ".jpg", photoBytes(1000 + i, i));
    proxy_->setRoundTrip(std::chrono::milliseconds(100));
    const auto t0 = std::chrono::steady_clock::now();
    const auto all = client_->list("msls/", 10);  // three pages
    const auto elapsed = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(all.size(), 25u);
    EXPECT_EQ(gets().size(), 3u);
    // The delay is there (a lower bound only: three requests, each a whole round trip).
    EXPECT_GE(elapsed, std::chrono::milliseconds(300));
    EXPECT_EQ(client_->get("msls/city1/img7.jpg"), photoBytes(1007, 7));
    EXPECT_EQ(client_->retries(), 0);
}

TEST_F(S3FaultsTest, AMissingObjectIsReportedNotRetried) {
    std::string line;
    EXPECT_EQ(s3FailureKind([&] { client_->get("train/missing.jpg"); }, &line), S3Error::Kind::NotFound);
    EXPECT_NE(line.find("s3://streetgan-data/train/missing.jpg"), std::string::npos) << line;
    EXPECT_EQ(s3FailureKind([&] { client_->getRange("train/missing.jpg", 10, 10); }, &line), S3Error::Kind::NotFound);
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    EXPECT_EQ(client_->retries(), 0);
    EXPECT_EQ(gets().size(), 2u);
}

TEST_F(S3FaultsTest, AForbiddenObjectNamesTheActionToAllow) {
    direct_->put("public/a.jpg", "open");
    direct_->put("private/b.jpg", "closed");
    S3Client reader("streetgan-data", s3At(server_->endpoint()), s3Keys(SeaweedFixture::kReaderKey, SeaweedFixture::kReaderSecret));
    EXPECT_EQ(reader.get("public/a.jpg"), "open");
    EXPECT_EQ(reader.list("").size(), 2u);
    std::string line;
    EXPECT_EQ(s3FailureKind([&] { reader.get("private/b.jpg"); }, &line), S3Error::Kind::AccessDenied);
    EXPECT_NE(line.find("s3:GetObject on arn:aws:s3:::streetgan-data/private/b.jpg"), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    EXPECT_EQ(s3FailureKind([&] { reader.put("public/c.jpg", "x"); }, &line), S3Error::Kind::AccessDenied);
    EXPECT_NE(line.find("s3:PutObject on arn:aws:s3:::streetgan-data/public/c.jpg"), std::string::npos) << line;
    EXPECT_EQ(reader.retries(), 0);
}

// SeaweedFS signs and checks with whatever region the request names: a client set to another
// region reads as usual. (AWS answers 301 with the bucket's region: S3ClientTest's loopback.)
TEST_F(S3FaultsTest, SeaweedFsAcceptsAnyRegion) {
    direct_->put("k.jpg", "data");
    auto options = s3At(server_->endpoint());
    options.region = "eu-west-1";
    S3Client elsewhere("streetgan-data", options, s3Keys(SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey));
    EXPECT_EQ(elsewhere.get("k.jpg"), "data");
}

// The fetcher's requests, many in flight on one thread (S3Fetcher, CurlMulti), through the same
// faults: S3Client settles what a first answer leaves open. Every object and range comes whole;
// each throttle is retried once more and each cut transfer goes on by range from the byte
// reached (retries: throttles + cuts, exactly); a missing object is one NotFound from one GET.
TEST_F(S3FaultsTest, TheFetcherSettlesThrottlesCutsAndMissingObjectsAsTheClientDoes) {
    std::vector<S3Fetcher::Request> all;
    std::vector<std::string> bytes;
    for (int i = 0; i < 24; ++i) {
        bytes.push_back(photoBytes(30000 + 1000 * static_cast<size_t>(i), 10 + static_cast<unsigned>(i)));
        all.push_back({"f/" + std::to_string(i) + ".jpg", "v1", 0, 0, false});
        direct_->put(all.back().key, bytes.back());
    }
    proxy_->setRoundTrip(std::chrono::milliseconds(20));
    proxy_->throttleNext(4);
    proxy_->dropNextResponseAfter(
        4000, [&] { proxy_->dropNextResponseAfter(4000, {}, ".jpg"); }, ".jpg");
    S3Fetcher::Options o;
    o.concurrency = 8;
    S3Fetcher fetcher("streetgan-data", s3At(proxy_->url()), s3Keys(SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey), o);
    fetcher.prefetch(all);
    for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(fetcher.get(all[i]), bytes[i]) << all[i].key;
    EXPECT_EQ(fetcher.get({"f/3.jpg", "v1", 5000, 12000, false}), bytes[3].substr(5000, 12000));
    EXPECT_EQ(proxy_->throttled(), 4);
    EXPECT_EQ(proxy_->dropped(), 2);
    S3Fetcher::Counters c = fetcher.counters();
    EXPECT_EQ(c.throttled, 4);
    EXPECT_EQ(c.retries, 6);
    int resumed = 0;
    for (const auto& e : gets())
        if (!e.range.empty() && e.range != "bytes=5000-16999") {
            ++resumed;
            EXPECT_EQ(e.range.substr(0, 11), "bytes=4000-") << e.range;
        }
    EXPECT_EQ(resumed, 2);

    proxy_->clearLog();
    std::string line;
    EXPECT_EQ(s3FailureKind([&] { fetcher.get({"f/none.jpg", "v1", 0, 0, false}); }, &line), S3Error::Kind::NotFound);
    EXPECT_NE(line.find("s3://streetgan-data/f/none.jpg"), std::string::npos) << line;
    EXPECT_EQ(gets().size(), 1u) << "a missing object was asked for again";
}

// An object announced twice before it was taken (the next epoch's window reaching back into this
// one's, on a small data set) is fetched once and given to both get()s; nothing is kept past its
// announcements.
TEST_F(S3FaultsTest, TheFetcherFetchesAnObjectAnnouncedTwiceOnceForBothGets) {
    const std::string photo = photoBytes(5000, 7);
    direct_->put("e/a.jpg", photo);
    S3Fetcher fetcher("streetgan-data", s3At(proxy_->url()), s3Keys(SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey), {});
    const S3Fetcher::Request r{"e/a.jpg", "v1", 0, 0, false};
    fetcher.prefetch({r});
    fetcher.prefetch({r});
    EXPECT_EQ(fetcher.get(r), photo);
    EXPECT_EQ(fetcher.get(r), photo);
    EXPECT_EQ(fetcher.counters().requests, 1);
    EXPECT_EQ(gets().size(), 1u);
    EXPECT_EQ(fetcher.get(r), photo);  // not announced a third time: fetched again
    EXPECT_EQ(fetcher.counters().requests, 2);
}

// Throttled on every request, the fetcher halves its requests in flight down to one and names
// the throttle; once S3 answers again, each window of whole answers adds one back.
TEST_F(S3FaultsTest, TheFetcherSlowsDownWhenThrottledAndSpeedsUpAfter) {
    std::vector<S3Fetcher::Request> all;
    for (int i = 0; i < 6; ++i) {
        all.push_back({"t/" + std::to_string(i) + ".jpg", "v1", 0, 0, false});
        direct_->put(all.back().key, photoBytes(2000, static_cast<unsigned>(i)));
    }
    auto options = s3At(proxy_->url());
    options.maxAttempts = 2;
    S3Fetcher::Options o;
    o.concurrency = 8;
    S3Fetcher fetcher("streetgan-data", options, s3Keys(SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey), o);
    proxy_->throttleNext(1000);
    for (const S3Fetcher::Request& r : all) {
        std::string line;
        EXPECT_EQ(s3FailureKind([&] { fetcher.get(r); }, &line), S3Error::Kind::Throttled);
        EXPECT_NE(line.find("SlowDown"), std::string::npos) << line;
    }
    S3Fetcher::Counters c = fetcher.counters();
    EXPECT_EQ(c.throttled, 6);
    EXPECT_EQ(c.limit, 1);  // 8, 4, 2, 1, 1, 1
    EXPECT_EQ(c.workers, 8);
    proxy_->throttleNext(0);
    for (const S3Fetcher::Request& r : all) EXPECT_EQ(fetcher.get(r).size(), 2000u);
    EXPECT_EQ(fetcher.counters().limit, 4);  // +1 after 1 whole answer, after 2 more, after 3 more
}

// The loader's own requests (many in flight, prefetched) through the same faults: every image of
// a bucket folder is read and decoded by `data stats` although the first requests are throttled
// and three transfers are cut part-way, and the document equals the folder's on disk.
TEST_F(S3FaultsTest, DataStatsThroughThrottlesAndCutTransfersEqualsTheFolderOnDisk) {
    namespace fs = std::filesystem;
    const fs::path photos = dir_.path() / "photos";
    const CliRunner cli(dir_.path().string());
    const CliResult synth = cli.run({"data", "synth", "--count", "24", "--out", photos.string()});
    ASSERT_EQ(synth.code, 0) << synth.err;
    for (const auto& f : fs::recursive_directory_iterator(photos))
        if (f.is_regular_file()) direct_->put("photos/" + f.path().lexically_relative(photos).generic_string(), CliRunner::slurp(f.path().string()));

    proxy_->setRoundTrip(std::chrono::milliseconds(20));
    proxy_->throttleNext(4);
    // Three transfers cut after 4000 bytes of their body, one after the other (the smallest of these
    // photos is 15882 bytes: even three cuts of one photo leave some of it).
    proxy_->dropNextResponseAfter(
        4000,
        [&] {
            proxy_->dropNextResponseAfter(
                4000, [&] { proxy_->dropNextResponseAfter(4000, {}, ".jpg"); }, ".jpg");
        },
        ".jpg");
    const std::string env = "env -u AWS_PROFILE -u AWS_SESSION_TOKEN AWS_EC2_METADATA_DISABLED=true AWS_REGION=us-east-1 HOME=" + dir_.path().string() +
                            " XDG_CACHE_HOME=" + (dir_.path() / "xdg").string() + " AWS_ACCESS_KEY_ID=" + SeaweedFixture::kAccessKey +
                            " AWS_SECRET_ACCESS_KEY=" + SeaweedFixture::kSecretKey + " ";
    const CliResult there = cli.run({"data", "stats", "s3://streetgan-data/photos", "--json", "--s3-endpoint", proxy_->url(), "--s3-cache-gb", "0"}, env);
    ASSERT_EQ(there.code, 0) << there.err;
    const CliResult here = cli.run({"data", "stats", photos.string(), "--json"});
    ASSERT_EQ(here.code, 0) << here.err;
    auto a = nlohmann::json::parse(there.out), b = nlohmann::json::parse(here.out);
    EXPECT_EQ(a["images"], 24);
    EXPECT_EQ(a["check"]["decoded"], b["check"]["decoded"]);
    for (auto* j : {&a, &b}) j->erase("root");
    EXPECT_EQ(a, b);
    // The faults happened, and each cut transfer went on by range from the byte it had reached
    // (4000, or 8000 when the next cut fell on that resumed request).
    EXPECT_EQ(proxy_->throttled(), 4);
    EXPECT_EQ(proxy_->dropped(), 3);
    int resumed = 0;
    for (const auto& e : gets()) {
        if (e.range.empty()) continue;
        ++resumed;
        const std::uint64_t from = std::stoull(e.range.substr(e.range.find('=') + 1));
        EXPECT_TRUE(from > 0 && from % 4000 == 0) << e.range;
    }
    EXPECT_EQ(resumed, 3);
}

// AWS's other wrong-region answers (SeaweedFS gives none): a HEAD's 301 carries the region in a
// header only (no body), and a request signed for the wrong region on the bucket's own regional
// endpoint is 400 AuthorizationHeaderMalformed with the expected region in the XML.
TEST(S3FaultsAwsAnswers, WrongRegionAnswersWithoutABodyOrAsMalformedAuthorizationNameTheRegion) {
    LoopbackHttpServer aws;
    // (cpp-httplib answers HEAD with the Get handler.)
    aws.server().Get(".*", [](const httplib::Request& req, httplib::Response& res) {
        if (req.method == "HEAD") {
            res.status = 301;
            res.set_header("x-amz-bucket-region", "ap-southeast-2");
            return;
        }
        res.status = 400;
        res.set_content(
            R"(<?xml version="1.0" encoding="UTF-8"?><Error><Code>AuthorizationHeaderMalformed</Code><Message>The authorization header is malformed; the region 'us-east-1' is wrong; expecting 'eu-central-1'</Message><Region>eu-central-1</Region></Error>)",
            "application/xml");
    });
    aws.start();
    S3Client client("msls", s3At(aws.url()), s3Keys("AK", "S"));
    std::string line;
    EXPECT_EQ(s3FailureKind([&] { client.head("a.jpg"); }, &line), S3Error::Kind::WrongRegion);
    EXPECT_NE(line.find("set AWS_REGION=ap-southeast-2"), std::string::npos) << line;
    EXPECT_EQ(s3FailureKind([&] { client.get("a.jpg"); }, &line), S3Error::Kind::WrongRegion);
    EXPECT_NE(line.find("is in the region eu-central-1, not us-east-1"), std::string::npos) << line;
    EXPECT_EQ(client.retries(), 0);
}
