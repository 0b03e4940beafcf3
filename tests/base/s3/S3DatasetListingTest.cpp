// S3DatasetListing: an MSLS-layout photo folder uploaded to SeaweedFS indexes exactly as the same
// folder on disk does (entries with cities, sequences and frames from the CSVs, skip reasons,
// CSV warnings, selection; a hidden folder's image named, not the folder), from the MSLS top folder and from an images folder whose CSVs lie
// above it ("../seq_info.csv").
#include "base/s3/S3DatasetListing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/dataset/DatasetIndexTestSupport.h"
#include "support/CliRunner.h"
#include "support/SeaweedFixture.h"

using namespace streetgan;
using namespace streetgan::s3;
using namespace streetgan::test::datasetindex;
using streetgan::test::CliRunner;
using streetgan::test::SeaweedFixture;

namespace {

// Uploads every file below `folder` to `bucket` under `prefix`.
void upload(S3Client& client, const fs::path& folder, const std::string& prefix) {
    for (const auto& f : fs::recursive_directory_iterator(folder)) {
        if (!f.is_regular_file()) continue;
        std::ifstream in(f.path(), std::ios::binary);
        std::stringstream bytes;
        bytes << in.rdbuf();
        client.put(prefix + f.path().lexically_relative(folder).generic_string(), bytes.str());
    }
}

std::vector<SortKey> sortKeys(const DatasetIndex& idx) {
    std::vector<SortKey> out;
    for (const ImageEntry& e : idx.entries()) out.push_back(sortKey(e));
    return out;
}

void expectSameIndex(const DatasetIndex& s3, const DatasetIndex& local) {
    EXPECT_FALSE(local.empty());
    EXPECT_EQ(sortKeys(s3), sortKeys(local));
    EXPECT_EQ(s3.skipped(), local.skipped());
    // A bucket has keys, not folders: like an archive's listing it names each image below a
    // hidden folder where the folder walk names the folder (the counts agree, one each here).
    auto s3Files = s3.skippedFiles(), localFiles = local.skippedFiles();
    if (localFiles.count("hidden folder")) {
        EXPECT_EQ(localFiles["hidden folder"], std::vector<std::string>{"__MACOSX"});
        EXPECT_EQ(s3Files["hidden folder"], std::vector<std::string>{"__MACOSX/paris/x.jpg"});
        s3Files.erase("hidden folder");
        localFiles.erase("hidden folder");
    }
    EXPECT_EQ(s3Files, localFiles);
    EXPECT_EQ(s3.warnings(), local.warnings());
    EXPECT_EQ(s3.dropped(), local.dropped());
    EXPECT_EQ(s3.cities(), local.cities());
    EXPECT_EQ(s3.sequenceCount(), local.sequenceCount());
}

}  // namespace

TEST(S3DatasetListingKeys, ResolvesDotDotWithinTheBucket) {
    EXPECT_EQ(S3DatasetListing::keyFor("m/city/database/images/", "../seq_info.csv"), "m/city/database/seq_info.csv");
    EXPECT_EQ(S3DatasetListing::keyFor("m/", "a/./b.jpg"), "m/a/b.jpg");
    EXPECT_EQ(S3DatasetListing::keyFor("", "a.jpg"), "a.jpg");
    EXPECT_EQ(S3DatasetListing::keyFor("m/", "../../x.csv"), std::nullopt);
}

TEST(S3DatasetListing, IndexesAnMslsFolderInABucketAsTheSameFolderOnDisk) {
    if (const std::string reason = SeaweedFixture::unavailableReason(); !reason.empty()) GTEST_SKIP() << reason;
    TempDir local;
    makeMsls(local.path());
    const fs::path trainVal = local.path() / "train_val";
    writeFile(trainVal / "berlin" / "database" / "images" / "empty.jpg", "");
    writeImage(trainVal / "berlin" / "database" / "images" / ".hidden.jpg");
    writeImage(trainVal / "paris" / "query" / "images" / "scan.gif");
    writeImage(trainVal / "__MACOSX" / "paris" / "x.jpg");

    TempDir serverDir;
    SeaweedFixture server(serverDir.str());
    S3ClientOptions options;
    options.endpoint = server.endpoint();
    const S3Client::CredentialSource keys = [] { return S3Credentials{SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey, "", std::nullopt, "test"}; };
    S3Client client("msls", options, keys);
    client.createBucket();
    upload(client, trainVal, "datasets/msls/train_val/");
    client.put("datasets/msls/train_val/berlin/", "");  // a folder marker, as consoles make them

    IndexOptions all;
    expectSameIndex(DatasetIndex::fromListing(S3DatasetListing::list(S3Url::parse("s3://msls/datasets/msls/train_val"), options, keys), all),
                    DatasetIndex::fromListing(DatasetIndex::listFolder(trainVal.string()), all));
    IndexOptions selected;
    selected.excludeCities = {"Berlin"};
    selected.maxPerSequence = 2;
    selected.validationPercent = 25;
    selected.split = IndexOptions::Split::Train;
    expectSameIndex(DatasetIndex::fromListing(S3DatasetListing::list(S3Url::parse("s3://msls/datasets/msls/train_val/"), options, keys), selected),
                    DatasetIndex::fromListing(DatasetIndex::listFolder(trainVal.string()), selected));
    // An images folder as the root: its sequences come from ../seq_info.csv, read by the listing's reader.
    const auto images =
        DatasetIndex::fromListing(S3DatasetListing::list(S3Url::parse("s3://msls/datasets/msls/train_val/amsterdam/database/images"), options, keys), all);
    expectSameIndex(images, DatasetIndex::fromListing(DatasetIndex::listFolder((trainVal / "amsterdam" / "database" / "images").string()), all));
    EXPECT_EQ(images.sequenceCount(), 2);
}

// `streetgan-trainer data stats s3://... --s3-endpoint URL --no-decode`: the keys from the
// environment (the AWS chain), the same document as `data stats --no-decode` of the folder on disk
// but for its root (decoded: tests/ml/dataset/S3LoadTest.cpp); a wrong secret and a missing bucket are one line each.
TEST(S3DatasetListing, DataStatsOfABucketPrefixMatchesTheLocalFolder) {
    if (const std::string reason = SeaweedFixture::unavailableReason(); !reason.empty()) GTEST_SKIP() << reason;
    TempDir local;
    makeMsls(local.path());
    writeFile(local.path() / "train_val" / "berlin" / "database" / "images" / "empty.jpg", "");
    TempDir serverDir;
    SeaweedFixture server(serverDir.str());
    S3ClientOptions options;
    options.endpoint = server.endpoint();
    S3Client client("msls", options, [] { return S3Credentials{SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey, "", std::nullopt, "test"}; });
    client.createBucket();
    upload(client, local.path() / "train_val", "msls/train_val/");

    const CliRunner cli(local.str());
    const std::string keys = std::string("AWS_ACCESS_KEY_ID=") + SeaweedFixture::kAccessKey + " AWS_SECRET_ACCESS_KEY=";
    const std::string isolated = "env -u AWS_PROFILE -u AWS_SESSION_TOKEN AWS_EC2_METADATA_DISABLED=true HOME=" + local.str() + " ";
    const auto remote = cli.run({"data", "stats", "s3://msls/msls/train_val", "--s3-endpoint", server.endpoint(), "--json", "--max-per-sequence", "2",
                                 "--no-decode", "--s3-cache", local.str() + "/s3-cache"},
                                isolated + keys + SeaweedFixture::kSecretKey);
    ASSERT_EQ(remote.code, 0) << remote.err;
    const auto there = cli.run({"data", "stats", (local.path() / "train_val").string(), "--no-decode", "--json", "--max-per-sequence", "2"});
    ASSERT_EQ(there.code, 0) << there.err;
    auto a = nlohmann::json::parse(remote.out), b = nlohmann::json::parse(there.out);
    EXPECT_EQ(a["root"], "s3://msls/msls/train_val");
    EXPECT_EQ(a["images"], b["images"]);
    EXPECT_GT(a["images"].get<int64_t>(), 0);
    EXPECT_EQ(a["check"], b["check"]);  // nothing decoded, the same candidates unchecked
    for (auto* j : {&a, &b}) {
        j->erase("root");
        j->erase("check");
    }
    EXPECT_EQ(a, b);

    const auto wrong = cli.run({"data", "stats", "s3://msls/msls/train_val", "--s3-endpoint", server.endpoint(), "--s3-cache", local.str() + "/other-cache"},
                               isolated + keys + "not-it");
    EXPECT_EQ(wrong.code, 5);
    EXPECT_NE(wrong.err.find("SignatureDoesNotMatch"), std::string::npos) << wrong.err;
    EXPECT_EQ(std::count(wrong.err.begin(), wrong.err.end(), '\n'), 1) << wrong.err;
    const auto noBucket = cli.run({"data", "stats", "s3://nosuch/x", "--s3-endpoint", server.endpoint(), "--s3-cache", local.str() + "/other-cache"},
                                  isolated + keys + SeaweedFixture::kSecretKey);
    EXPECT_EQ(noBucket.code, 5);
    EXPECT_NE(noBucket.err.find("there is no bucket 'nosuch'"), std::string::npos) << noBucket.err;
}
