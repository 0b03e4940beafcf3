// S3Client against a real S3 server on loopback (SeaweedFS, tests/support/SeaweedFixture): put,
// get, ranged get, head, listing across continuation tokens, and each failure's one line (wrong
// access key, wrong secret, no such bucket, no such key). What SeaweedFS does not answer as AWS
// does (301 to another region, 503 SlowDown) comes from a loopback server answering as AWS.
#include "base/s3/S3Client.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <functional>
#include <memory>
#include <set>

#include "base/s3/LoopbackHttpServer.h"
#include "base/s3/S3Error.h"
#include "base/s3/S3TestCalls.h"
#include "support/SeaweedFixture.h"
#include "support/TempDir.h"

using namespace streetgan::s3;
using streetgan::test::LoopbackHttpServer;
using streetgan::test::s3At;
using streetgan::test::s3FailureKind;
using streetgan::test::s3Keys;
using streetgan::test::SeaweedFixture;
using streetgan::test::TempDir;

namespace {

class S3ClientTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (const std::string reason = SeaweedFixture::unavailableReason(); !reason.empty()) GTEST_SKIP() << reason;
        server_ = std::make_unique<SeaweedFixture>(dir_.path().string());
        client_ = std::make_unique<S3Client>("streetgan-data", s3At(server_->endpoint()), s3Keys(SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey));
        client_->createBucket();
    }
    TempDir dir_;
    std::unique_ptr<SeaweedFixture> server_;
    std::unique_ptr<S3Client> client_;
};

}  // namespace

TEST_F(S3ClientTest, PutsAndGetsObjectsWholeAndByRange) {
    std::string photo(300000, '\0');
    for (size_t i = 0; i < photo.size(); ++i) photo[i] = static_cast<char>((i * 7919) >> 3);
    // Keys with characters SigV4 encodes: spaces, '+', '=', non-ASCII.
    const std::string key = "train_val/sao paulo/query/images/a+b=c ü.jpg";
    client_->put(key, photo);
    EXPECT_EQ(client_->get(key), photo);
    EXPECT_EQ(client_->getRange(key, 1000, 5000), photo.substr(1000, 5000));
    EXPECT_EQ(client_->getRange(key, photo.size() - 10, 100), photo.substr(photo.size() - 10));  // past the end: what there is
    const S3Object o = client_->head(key);
    EXPECT_EQ(o.size, photo.size());
    EXPECT_FALSE(o.etag.empty());
    // What the server stored, read without S3 through its filer: our PUT wrote these bytes.
    httplib::Client filer(server_->filerUrl());
    const auto stored = filer.Get("/buckets/streetgan-data/" + S3Client::uriEncode(key, true));
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->status, 200);
    EXPECT_EQ(stored->body, photo);
    // Over 1 MiB, libcurl adds "Expect: 100-continue" itself: still signed right.
    const std::string large(3 << 20, 'L');
    client_->put("checkpoints/step-100.pt", large);
    EXPECT_EQ(client_->head("checkpoints/step-100.pt").size, large.size());
}

TEST_F(S3ClientTest, ListsEveryKeyAcrossContinuationTokens) {
    std::set<std::string> put;
    for (int i = 0; i < 23; ++i) {
        const std::string key = "msls/train_val/city" + std::to_string(i % 3) + "/database/images/img " + std::to_string(i) + ".jpg";
        client_->put(key, std::string(static_cast<size_t>(i + 1), 'x'));
        put.insert(key);
    }
    client_->put("other/outside.jpg", "y");
    const S3ListPage first = client_->listPage("msls/", "", 5);
    EXPECT_EQ(first.objects.size(), 5u);
    EXPECT_TRUE(first.truncated);
    EXPECT_FALSE(first.nextContinuationToken.empty());
    const auto all = client_->list("msls/", 5);  // five pages
    std::set<std::string> listed;
    for (const S3Object& o : all) {
        listed.insert(o.key);
        EXPECT_GE(o.size, 1u);
    }
    EXPECT_EQ(all.size(), 23u);
    EXPECT_EQ(listed, put);
    const auto folders = client_->listPage("msls/train_val/", "", 1000, "/");
    EXPECT_EQ(folders.commonPrefixes.size(), 3u);
    EXPECT_TRUE(client_->list("nothing-here/").empty());
}

TEST_F(S3ClientTest, EachFailureIsOneLineNamingWhatToFix) {
    client_->put("k.jpg", "data");
    std::string line;
    S3Client unknownKey("streetgan-data", s3At(server_->endpoint()), s3Keys("AKNOBODY", "whatever"));
    EXPECT_EQ(s3FailureKind([&] { unknownKey.get("k.jpg"); }, &line), S3Error::Kind::Credentials);
    EXPECT_NE(line.find("AKNOBODY (InvalidAccessKeyId)"), std::string::npos) << line;
    EXPECT_NE(line.find("AWS_ACCESS_KEY_ID"), std::string::npos) << line;
    S3Client wrongSecret("streetgan-data", s3At(server_->endpoint()), s3Keys(SeaweedFixture::kAccessKey, "not-the-secret"));
    EXPECT_EQ(s3FailureKind([&] { wrongSecret.list(""); }, &line), S3Error::Kind::Credentials);
    EXPECT_NE(line.find("SignatureDoesNotMatch"), std::string::npos) << line;
    EXPECT_NE(line.find("AWS_SECRET_ACCESS_KEY"), std::string::npos) << line;
    S3Client noBucket("no-such-bucket", s3At(server_->endpoint()), s3Keys(SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey));
    EXPECT_EQ(s3FailureKind([&] { noBucket.list("x/"); }, &line), S3Error::Kind::NoSuchBucket);
    EXPECT_NE(line.find("no bucket 'no-such-bucket'"), std::string::npos) << line;
    EXPECT_EQ(s3FailureKind([&] { noBucket.put("x/k", "v"); }, &line), S3Error::Kind::NoSuchBucket);
    EXPECT_EQ(s3FailureKind([&] { client_->get("missing.jpg"); }, &line), S3Error::Kind::NotFound);
    EXPECT_NE(line.find("s3://streetgan-data/missing.jpg"), std::string::npos) << line;
    EXPECT_EQ(s3FailureKind([&] { client_->head("missing.jpg"); }, &line), S3Error::Kind::NotFound);
    EXPECT_EQ(line.find('\n'), std::string::npos);
    S3Client nothingThere("streetgan-data", s3At("http://127.0.0.1:1"), s3Keys("a", "b"));
    EXPECT_EQ(s3FailureKind([&] { nothingThere.get("k"); }, &line), S3Error::Kind::Network);
    EXPECT_NE(line.find("--s3-endpoint"), std::string::npos) << line;
    EXPECT_EQ(client_->retries(), 0);
}

// AWS answers a request signed for the wrong region with 301 PermanentRedirect and the bucket's
// region in x-amz-bucket-region; SeaweedFS has one region and accepts any.
TEST(S3ClientAwsAnswers, AWrongRegionNamesTheBucketsRegion) {
    LoopbackHttpServer aws;
    aws.server().Get(".*", [](const httplib::Request&, httplib::Response& res) {
        res.status = 301;
        res.set_header("x-amz-bucket-region", "eu-west-1");
        res.set_content(
            R"(<?xml version="1.0" encoding="UTF-8"?><Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint.</Message><Endpoint>b.s3.eu-west-1.amazonaws.com</Endpoint><Bucket>b</Bucket></Error>)",
            "application/xml");
    });
    aws.start();
    S3Client client("msls-eu", s3At(aws.url()), s3Keys("AK", "S"));
    std::string line;
    EXPECT_EQ(s3FailureKind([&] { client.list("train/"); }, &line), S3Error::Kind::WrongRegion);
    EXPECT_NE(line.find("is in the region eu-west-1, not us-east-1: set AWS_REGION=eu-west-1"), std::string::npos) << line;
}

TEST(S3ClientAwsAnswers, SlowDownIsRetriedWithBackoffThenNamed) {
    LoopbackHttpServer aws;
    std::atomic<int> requests{0};
    std::atomic<int> throttleFirst{2};
    aws.server().Get(".*", [&](const httplib::Request& req, httplib::Response& res) {
        if (requests++ < throttleFirst) {
            res.status = 503;
            res.set_content("<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>", "application/xml");
            return;
        }
        res.set_content("photo-bytes", "image/jpeg");
    });
    aws.start();
    S3Client client("msls", s3At(aws.url()), s3Keys("AK", "S"));
    EXPECT_EQ(client.get("a.jpg"), "photo-bytes");
    EXPECT_EQ(client.retries(), 2);
    EXPECT_EQ(requests.load(), 3);

    requests = 0;
    throttleFirst = 1000;
    auto options = s3At(aws.url());
    options.maxAttempts = 4;
    S3Client throttled("msls", options, s3Keys("AK", "S"));
    std::string line;
    EXPECT_EQ(s3FailureKind([&] { throttled.get("a.jpg"); }, &line), S3Error::Kind::Throttled);
    EXPECT_EQ(requests.load(), 4);
    EXPECT_NE(line.find("SlowDown"), std::string::npos) << line;
    EXPECT_NE(line.find("after 4 attempts"), std::string::npos) << line;
}
