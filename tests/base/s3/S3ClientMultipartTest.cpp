// S3Client's large-object and delete requests against a real S3 server on loopback (SeaweedFS):
// a file over the part size goes up as a multipart upload whose object is the file byte for byte
// (the smallest legal part, an odd-sized last part); a file under it as one PUT; an aborted upload
// cannot be completed; a failed upload leaves no object; DELETE removes, and a missing key is no
// error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>

#include "base/s3/S3Client.h"
#include "base/s3/S3Error.h"
#include "base/s3/S3TestCalls.h"
#include "support/SeaweedFixture.h"
#include "support/TempDir.h"

using namespace streetgan::s3;
using streetgan::test::SeaweedFixture;
using streetgan::test::TempDir;

namespace {

S3Client::CredentialSource seaweedKeys() {
    return [] { return S3Credentials{SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey, "", std::nullopt, "test keys"}; };
}

std::string pattern(size_t n, unsigned seed) {
    std::string s(n, '\0');
    for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(((i + seed) * 2654435761U) >> 13);
    return s;
}

void writeFile(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

class S3MultipartTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (const std::string reason = SeaweedFixture::unavailableReason(); !reason.empty()) GTEST_SKIP() << reason;
        std::filesystem::create_directories(dir_.file("server"));
        server_ = std::make_unique<SeaweedFixture>(dir_.file("server"));
        S3ClientOptions o;
        o.endpoint = server_->endpoint();
        o.backoffBase = std::chrono::milliseconds(1);
        client_ = std::make_unique<S3Client>("checkpoints", o, seaweedKeys());
        client_->createBucket();
    }
    TempDir dir_;
    std::unique_ptr<SeaweedFixture> server_;
    std::unique_ptr<S3Client> client_;
};

}  // namespace

TEST_F(S3MultipartTest, AFileOverThePartSizeGoesUpInPartsAndReadsBackByteForByte) {
    // Three parts of S3's smallest size and an odd-sized fourth.
    const std::string bytes = pattern(3 * S3Client::kMinPartSize + 12345, 1);
    writeFile(dir_.file("big.pt"), bytes);
    client_->putFile("run/checkpoints/10/checkpoint_1_step10.pt", dir_.file("big.pt"), S3Client::kMinPartSize);
    EXPECT_EQ(client_->head("run/checkpoints/10/checkpoint_1_step10.pt").size, bytes.size());
    EXPECT_EQ(client_->get("run/checkpoints/10/checkpoint_1_step10.pt"), bytes);
    // A part size under S3's smallest is raised to it (or SeaweedFS, like S3, refuses the completion).
    const std::string six = pattern(6 << 20, 2);
    writeFile(dir_.file("six.pt"), six);
    client_->putFile("run/six.pt", dir_.file("six.pt"), 1 << 20);
    EXPECT_EQ(client_->get("run/six.pt"), six);
    // Under the part size: one PUT.
    writeFile(dir_.file("small.pt"), "small checkpoint");
    client_->putFile("run/small.pt", dir_.file("small.pt"));
    EXPECT_EQ(client_->get("run/small.pt"), "small checkpoint");
}

TEST_F(S3MultipartTest, AnAbortedUploadCannotBeCompletedAndLeavesNoObject) {
    const std::string part = pattern(S3Client::kMinPartSize, 3);
    const std::string id = client_->startMultipartUpload("run/aborted.pt");
    const std::string etag = client_->uploadPart("run/aborted.pt", id, 1, part);
    EXPECT_FALSE(etag.empty());
    client_->abortMultipartUpload("run/aborted.pt", id);
    EXPECT_THROW(client_->completeMultipartUpload("run/aborted.pt", id, {etag}), S3Error);
    EXPECT_EQ(streetgan::test::s3FailureKind([&] { client_->head("run/aborted.pt"); }), S3Error::Kind::NotFound);
}

TEST_F(S3MultipartTest, AFailedUploadIsOneErrorAndLeavesNoObject) {
    const std::string bytes = pattern(2 * S3Client::kMinPartSize + 1, 4);
    writeFile(dir_.file("big.pt"), bytes);
    S3ClientOptions o;
    o.endpoint = server_->endpoint();
    S3Client gone("no-such-bucket", o, seaweedKeys());
    EXPECT_EQ(streetgan::test::s3FailureKind([&] { gone.putFile("run/x.pt", dir_.file("big.pt"), S3Client::kMinPartSize); }), S3Error::Kind::NoSuchBucket);
    // A file that is not there: an IoError naming it, before any request.
    try {
        client_->putFile("run/y.pt", dir_.file("missing.pt"));
        ADD_FAILURE() << "no error";
    } catch (const streetgan::IoError& e) {
        EXPECT_NE(std::string(e.what()).find("missing.pt"), std::string::npos) << e.what();
    }
    EXPECT_EQ(streetgan::test::s3FailureKind([&] { client_->head("run/y.pt"); }), S3Error::Kind::NotFound);
}

TEST_F(S3MultipartTest, DeleteRemovesAndAMissingKeyIsNoError) {
    client_->put("run/old.pt", "old");
    client_->remove("run/old.pt");
    EXPECT_EQ(streetgan::test::s3FailureKind([&] { client_->head("run/old.pt"); }), S3Error::Kind::NotFound);
    EXPECT_NO_THROW(client_->remove("run/never-there.pt"));
}
