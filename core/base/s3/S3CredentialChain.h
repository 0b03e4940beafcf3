// S3CredentialChain: the standard AWS credential chain, in the SDKs' order:
//   1. the environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN);
//   2. the profile AWS_PROFILE names (or "default") in ~/.aws/credentials, then ~/.aws/config
//      (AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE move them);
//   3. the EC2 instance role through IMDSv2 (unless AWS_EC2_METADATA_DISABLED=true).
// The region: AWS_REGION, AWS_DEFAULT_REGION, the profile's region, the instance's, else us-east-1.
// Temporary credentials are refreshed kRefreshMargin before they expire, so no request is signed
// with a key that lapses in flight; while a refresh fails, the ones in hand are used until they
// expire. Bad input (a half-set environment, a profile AWS_PROFILE
// names that no file has, a malformed file) is a one-line ConfigError.
//
// Thread contract: credentials() and region() may be called from any thread (a mutex serialises
// the resolution and refresh, which may do HTTP to IMDS).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/s3/S3Credentials.h"

namespace streetgan::s3 {

class ImdsClient;

class S3CredentialChain {
public:
    /// Refresh temporary credentials this long before they expire (IMDS hands out new ones from
    /// 5 minutes before; a large object's GET must not outlive its signature's key).
    static constexpr std::chrono::seconds kRefreshMargin{300};
    using Environment = std::map<std::string, std::string>;

    /// `env`: the variables above (and HOME); fromProcess() takes the process's own.
    explicit S3CredentialChain(Environment env);
    static std::shared_ptr<S3CredentialChain> fromProcess();
    ~S3CredentialChain();

    /// Current credentials (resolved on first use, refreshed near expiry). Throws ConfigError
    /// naming every place looked at when none has any.
    S3Credentials credentials();
    std::string region();

private:
    S3Credentials resolve();
    std::string env(const char* name) const;
    Environment env_;
    std::mutex mutex_;
    S3Credentials current_;
    std::string region_;
    bool regionKnown_ = false;
    std::unique_ptr<ImdsClient> imds_;
};

}  // namespace streetgan::s3
