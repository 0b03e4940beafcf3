// Training from a zip or tar batch in a bucket (issue 47 item 1), through the real trainer against
// SeaweedFS: `data stats` of s3://bucket/batch.zip finds what it finds in the same zip on disk,
// `train --data s3://bucket/batch.zip` (and .tar) runs its steps, `data stats` of a truncated zip
// in the bucket keeps its intact entries and counts the cut one, and a tar.gz is refused in one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "base/s3/S3Client.h"
#include "support/CliRunner.h"
#include "support/SeaweedFixture.h"
#include "support/TempDir.h"

using namespace streetgan::s3;
using streetgan::test::CliResult;
using streetgan::test::CliRunner;
using streetgan::test::SeaweedFixture;
using streetgan::test::TempDir;

TEST(S3ArchiveTrain, TrainsFromAZipAndATarInABucket) {
    if (const std::string reason = SeaweedFixture::unavailableReason(); !reason.empty()) GTEST_SKIP() << reason;
    TempDir tmp;
    const CliRunner cli(tmp.path().string());
    ASSERT_EQ(cli.run({"data", "synth", "--count", "24", "--width", "320", "--height", "240", "--out", tmp / "photos"}).code, 0);
    for (const char* format : {"zip", "tar", "gztar"}) {
        const std::string cmd = std::string(STREETGAN_PYTHON) + " -c \"import shutil; shutil.make_archive('" + tmp / "batch" + "', '" + format +
                                "', root_dir='" + tmp / "photos" + "')\"";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
    TempDir serverDir;
    SeaweedFixture server(serverDir.path().string());
    S3ClientOptions options;
    options.endpoint = server.endpoint();
    S3Client client("batches", options, [] { return S3Credentials{SeaweedFixture::kAccessKey, SeaweedFixture::kSecretKey, "", std::nullopt, "test"}; });
    client.createBucket();
    const std::string zip = CliRunner::slurp(tmp / "batch.zip");
    client.put("msls/batch.zip", zip);
    client.put("msls/batch.tar", CliRunner::slurp(tmp / "batch.tar"));
    client.put("msls/batch.tar.gz", CliRunner::slurp(tmp / "batch.tar.gz"));
    client.put("msls/cut.zip", zip.substr(0, zip.size() * 6 / 10));

    // The AWS chain from the environment only; the caches in the test's folder.
    const std::string env = "env -u AWS_PROFILE -u AWS_SESSION_TOKEN AWS_EC2_METADATA_DISABLED=true HOME=" + tmp.path().string() +
                            " XDG_CACHE_HOME=" + tmp / "cache" + " AWS_ACCESS_KEY_ID=" + SeaweedFixture::kAccessKey +
                            " AWS_SECRET_ACCESS_KEY=" + SeaweedFixture::kSecretKey;
    const auto s3 = [&](std::vector<std::string> args) {
        args.insert(args.end(), {"--s3-endpoint", server.endpoint()});
        return cli.run(args, env);
    };

    const CliResult remote = s3({"data", "stats", "s3://batches/msls/batch.zip", "--json", "--no-decode"});
    ASSERT_EQ(remote.code, 0) << remote.err;
    const CliResult there = cli.run({"data", "stats", tmp / "batch.zip", "--json", "--no-decode"}, env);
    ASSERT_EQ(there.code, 0) << there.err;
    auto a = nlohmann::json::parse(remote.out), b = nlohmann::json::parse(there.out);
    EXPECT_EQ(a["images"], 24);
    for (auto* j : {&a, &b}) {
        j->erase("root");
        j->erase("check");
    }
    EXPECT_EQ(a, b);

    for (const char* key : {"batch.zip", "batch.tar"}) {
        const std::string runDir = tmp / (std::string("run-") + key);
        const CliResult train =
            s3({"train", "--run-dir", runDir, "--data", std::string("s3://batches/msls/") + key, "--preset", "tiny-32", "--steps", "3", "--batch", "8"});
        EXPECT_EQ(train.code, 0) << key << ": " << train.err;
        EXPECT_NE(CliRunner::slurp(runDir + "/run.json").find(std::string("s3://batches/msls/") + key), std::string::npos) << key;
    }
    // A truncated zip in the bucket: its intact entries, the cut one counted as a local zip's.
    const CliResult cut = s3({"data", "stats", "s3://batches/msls/cut.zip", "--json", "--no-decode"});
    ASSERT_EQ(cut.code, 0) << cut.err;
    const auto c = nlohmann::json::parse(cut.out);
    EXPECT_GT(c["images"].get<int>(), 0);
    EXPECT_LT(c["images"].get<int>(), 24);
    EXPECT_EQ(c["skipped_reasons"]["truncated archive entry"], 1) << cut.out;
    const CliResult gz = s3({"train", "--run-dir", tmp / "run-gz", "--data", "s3://batches/msls/batch.tar.gz", "--preset", "tiny-32", "--steps", "1"});
    EXPECT_NE(gz.code, 0);
    EXPECT_NE(gz.err.find("repack the batch as a zip or a plain (uncompressed) tar"), std::string::npos) << gz.err;
    EXPECT_EQ(std::count(gz.err.begin(), gz.err.end(), '\n'), 1) << gz.err;
}
