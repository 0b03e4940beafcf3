// The AWS credential chain: ~/.aws/credentials and config as the CLI writes them, the order of
// the chain, its one-line refusals, and the EC2 instance role through IMDSv2 (a loopback server
// speaking the metadata service's protocol) with expiry and refresh.
#include <gtest/gtest.h>

#include <atomic>
#include <ctime>
#include <fstream>

#include "base/s3/AwsConfigFiles.h"
#include "base/s3/ImdsClient.h"
#include "base/s3/LoopbackHttpServer.h"
#include "base/s3/S3CredentialChain.h"
#include "base/util/Errors.h"
#include "support/TempDir.h"

using namespace streetgan::s3;
using streetgan::ConfigError;
using streetgan::test::LoopbackHttpServer;
using streetgan::test::TempDir;

namespace {

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string refusal(S3CredentialChain& chain) {
    try {
        chain.credentials();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

std::string isoUtc(std::chrono::system_clock::time_point t) {
    const std::time_t tt = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace

TEST(AwsConfigFiles, ReadsProfilesAsTheAwsCliWritesThem) {
    TempDir dir;
    write(dir / "credentials",
          "# keys\n[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key=secretdefault\n\n"
          "[work]\naws_access_key_id = AKWORK\naws_secret_access_key = secret/work+x=\naws_session_token = tok\n");
    write(dir / "config",
          "[default]\nregion = us-west-2\n; comment\n[profile work]\nregion=eu-central-1\ns3 =\n  max_concurrent_requests = 20\n"
          "[sso-session corp]\nsso_region = us-east-1\n[profile cfgonly]\naws_access_key_id = AKCFG\naws_secret_access_key = s\n");
    const AwsConfigFiles files(dir / "credentials", dir / "config");
    const auto def = files.profile("default");
    EXPECT_EQ(def.accessKeyId, "AKDEFAULT");
    EXPECT_EQ(def.secretAccessKey, "secretdefault");
    EXPECT_EQ(def.region, "us-west-2");
    const auto work = files.profile("work");
    EXPECT_EQ(work.accessKeyId, "AKWORK");
    EXPECT_EQ(work.secretAccessKey, "secret/work+x=");
    EXPECT_EQ(work.sessionToken, "tok");
    EXPECT_EQ(work.region, "eu-central-1");
    EXPECT_EQ(work.keysFrom, dir / "credentials");
    EXPECT_EQ(files.profile("cfgonly").accessKeyId, "AKCFG");  // keys in config are taken too
    EXPECT_FALSE(files.profile("corp").found);                 // an sso-session is no profile
    EXPECT_FALSE(files.profile("none").found);
    EXPECT_FALSE(AwsConfigFiles(dir / "missing", dir / "missing2").profile("default").found);
}

TEST(AwsConfigFiles, NamesTheFileAndLineOfALineThatIsNotIni) {
    try {
        AwsConfigFiles::parse("[default]\naws_access_key_id AKX\n", "/home/u/.aws/credentials", false);
        FAIL() << "no error";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("/home/u/.aws/credentials line 2"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("key = value"), std::string::npos) << e.what();
    }
    EXPECT_THROW(AwsConfigFiles::parse("[profile x\n", "config", true), ConfigError);
}

TEST(S3CredentialChain, TakesTheEnvironmentFirstThenTheProfileAndItsRegion) {
    TempDir dir;
    write(dir / "credentials",
          "[default]\naws_access_key_id = AKFILE\naws_secret_access_key = sfile\n[p2]\naws_access_key_id = AKP2\naws_secret_access_key = sp2\n");
    write(dir / "config", "[profile p2]\nregion = ap-south-1\n");
    const S3CredentialChain::Environment files = {
        {"AWS_SHARED_CREDENTIALS_FILE", dir / "credentials"}, {"AWS_CONFIG_FILE", dir / "config"}, {"AWS_EC2_METADATA_DISABLED", "true"}};
    auto env = files;
    env["AWS_ACCESS_KEY_ID"] = "AKENV";
    env["AWS_SECRET_ACCESS_KEY"] = "senv";
    env["AWS_SESSION_TOKEN"] = "tenv";
    env["AWS_REGION"] = "eu-west-3";
    S3CredentialChain fromEnv(env);
    EXPECT_EQ(fromEnv.credentials().accessKeyId, "AKENV");
    EXPECT_EQ(fromEnv.credentials().sessionToken, "tenv");
    EXPECT_EQ(fromEnv.credentials().source, "environment");
    EXPECT_EQ(fromEnv.region(), "eu-west-3");

    S3CredentialChain fromDefault(files);
    EXPECT_EQ(fromDefault.credentials().accessKeyId, "AKFILE");
    EXPECT_EQ(fromDefault.region(), "us-east-1");  // no region anywhere

    auto p2 = files;
    p2["AWS_PROFILE"] = "p2";
    S3CredentialChain fromProfile(p2);
    EXPECT_EQ(fromProfile.credentials().accessKeyId, "AKP2");
    EXPECT_NE(fromProfile.credentials().source.find("profile 'p2'"), std::string::npos);
    EXPECT_EQ(fromProfile.region(), "ap-south-1");
    p2["AWS_DEFAULT_REGION"] = "sa-east-1";
    EXPECT_EQ(S3CredentialChain(p2).region(), "sa-east-1");  // the environment's region wins over the profile's
}

TEST(S3CredentialChain, RefusesAHalfSetEnvironmentAnUnknownProfileAndNothingWithOneLine) {
    TempDir dir;
    const S3CredentialChain::Environment base = {
        {"AWS_SHARED_CREDENTIALS_FILE", dir / "credentials"}, {"AWS_CONFIG_FILE", dir / "config"}, {"AWS_EC2_METADATA_DISABLED", "true"}};
    auto half = base;
    half["AWS_ACCESS_KEY_ID"] = "AK";
    S3CredentialChain halfChain(half);
    EXPECT_NE(refusal(halfChain).find("AWS_SECRET_ACCESS_KEY is not"), std::string::npos);
    auto unknown = base;
    unknown["AWS_PROFILE"] = "nosuch";
    S3CredentialChain unknownChain(unknown);
    EXPECT_NE(refusal(unknownChain).find("profile 'nosuch', which is in neither"), std::string::npos);
    S3CredentialChain none(base);
    const std::string line = refusal(none);
    EXPECT_NE(line.find("no AWS credentials"), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos);
    write(dir / "credentials", "[default]\naws_access_key_id = AK\n");
    S3CredentialChain noSecret(base);
    EXPECT_NE(refusal(noSecret).find("no aws_secret_access_key"), std::string::npos);
}

TEST(ImdsClient, ParsesTheRoleDocumentAndRefusesAMalformedOne) {
    const auto c = ImdsClient::parseCredentials(
        R"({"Code":"Success","LastUpdated":"2026-11-30T05:00:00Z","Type":"AWS-HMAC","AccessKeyId":"ASIAX","SecretAccessKey":"s","Token":"t","Expiration":"2026-11-30T12:00:00Z"})",
        "trainer");
    EXPECT_EQ(c.accessKeyId, "ASIAX");
    EXPECT_EQ(c.sessionToken, "t");
    ASSERT_TRUE(c.expiration);
    EXPECT_EQ(std::chrono::system_clock::to_time_t(*c.expiration), 1796040000);  // 2026-11-30T12:00:00Z
    EXPECT_THROW(ImdsClient::parseCredentials("not json", "r"), ConfigError);
    EXPECT_THROW(ImdsClient::parseCredentials(R"({"AccessKeyId":"A","SecretAccessKey":"s","Token":"t","Expiration":5})", "r"), ConfigError);
    EXPECT_THROW(ImdsClient::parseCredentials(R"({"AccessKeyId":"A","SecretAccessKey":"s","Token":"t","Expiration":"soon"})", "r"), ConfigError);
}

// A loopback server speaking IMDSv2: a token by PUT, refused (401) without it, and the role's
// credentials, new keys on each fetch, expiring `lifetime` from now; after `answered` fetches
// the role's document is a 500 (the service failing for a while).
class ImdsServer {
public:
    explicit ImdsServer(std::chrono::seconds lifetime, int answered = 1000) {
        auto& s = http_.server();
        s.Put("/latest/api/token", [](const httplib::Request& req, httplib::Response& res) {
            if (req.get_header_value("X-aws-ec2-metadata-token-ttl-seconds").empty())
                res.status = 400;
            else
                res.set_content("token-1", "text/plain");
        });
        auto authorised = [](const httplib::Request& req, httplib::Response& res) {
            if (req.get_header_value("X-aws-ec2-metadata-token") == "token-1") return true;
            res.status = 401;
            return false;
        };
        s.Get("/latest/meta-data/iam/security-credentials/", [authorised](const httplib::Request& req, httplib::Response& res) {
            if (authorised(req, res)) res.set_content("trainer-role\n", "text/plain");
        });
        s.Get("/latest/meta-data/iam/security-credentials/trainer-role",
              [this, authorised, lifetime, answered](const httplib::Request& req, httplib::Response& res) {
                  if (!authorised(req, res)) return;
                  const int n = ++fetches;
                  if (n > answered) {
                      res.status = 500;
                      return;
                  }
                  res.set_content(R"({"Code":"Success","AccessKeyId":"ASIA)" + std::to_string(n) + R"(","SecretAccessKey":"s","Token":"t)" + std::to_string(n) +
                                      R"(","Expiration":")" + isoUtc(std::chrono::system_clock::now() + lifetime) + "\"}",
                                  "application/json");
              });
        s.Get("/latest/meta-data/placement/region", [authorised](const httplib::Request& req, httplib::Response& res) {
            if (authorised(req, res)) res.set_content("ca-central-1", "text/plain");
        });
        http_.start();
    }
    std::string url() const { return http_.url(); }
    std::atomic<int> fetches{0};

private:
    LoopbackHttpServer http_;
};

TEST(S3CredentialChain, TakesTheInstanceRoleThroughImdsV2AndRefreshesBeforeExpiry) {
    TempDir dir;
    const S3CredentialChain::Environment base = {{"AWS_SHARED_CREDENTIALS_FILE", dir / "credentials"}, {"AWS_CONFIG_FILE", dir / "config"}};
    {
        // Expiring in an hour: resolved once, then kept.
        ImdsServer imds(std::chrono::seconds(3600));
        auto env = base;
        env["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
        S3CredentialChain chain(env);
        const S3Credentials first = chain.credentials();
        EXPECT_EQ(first.accessKeyId, "ASIA1");
        EXPECT_EQ(first.sessionToken, "t1");
        EXPECT_EQ(first.source, "instance role 'trainer-role'");
        EXPECT_EQ(chain.credentials().accessKeyId, "ASIA1");
        EXPECT_EQ(imds.fetches.load(), 1);
        EXPECT_EQ(chain.region(), "ca-central-1");
    }
    {
        // Expiring within the refresh margin: each use takes new ones.
        ImdsServer imds(S3CredentialChain::kRefreshMargin / 2);
        auto env = base;
        env["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
        S3CredentialChain chain(env);
        EXPECT_EQ(chain.credentials().accessKeyId, "ASIA1");
        EXPECT_EQ(chain.credentials().accessKeyId, "ASIA2");
        EXPECT_EQ(imds.fetches.load(), 2);
    }
    {
        // A refresh that fails while the keys in hand are still valid keeps them (and retries).
        ImdsServer imds(S3CredentialChain::kRefreshMargin / 2, 1);
        auto env = base;
        env["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
        S3CredentialChain chain(env);
        EXPECT_EQ(chain.credentials().accessKeyId, "ASIA1");
        EXPECT_EQ(chain.credentials().accessKeyId, "ASIA1");
        EXPECT_EQ(imds.fetches.load(), 2);
    }
    {
        // Expired ones are not kept: a failing refresh is then the error.
        ImdsServer imds(std::chrono::seconds(-60), 1);
        auto env = base;
        env["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
        S3CredentialChain chain(env);
        EXPECT_EQ(chain.credentials().accessKeyId, "ASIA1");  // the first answer is taken as it is
        EXPECT_NE(refusal(chain).find("no AWS credentials"), std::string::npos);
    }
}

TEST(S3CredentialChain, NoMetadataServiceMeansNoCredentialsNotAHang) {
    TempDir dir;
    // A port nothing listens on: refused at once, as off EC2 (where the address times out in 1 s).
    LoopbackHttpServer closed;
    closed.start();
    const std::string url = closed.url();
    closed.server().stop();
    S3CredentialChain chain(
        {{"AWS_SHARED_CREDENTIALS_FILE", dir / "credentials"}, {"AWS_CONFIG_FILE", dir / "config"}, {"AWS_EC2_METADATA_SERVICE_ENDPOINT", url}});
    EXPECT_NE(refusal(chain).find("no EC2 instance role"), std::string::npos);
}
