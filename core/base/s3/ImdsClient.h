// ImdsClient: the EC2 instance metadata service, version 2 (IMDSv2): a session token by PUT
// /latest/api/token, then the instance role's temporary credentials from
// /latest/meta-data/iam/security-credentials/<role> (JSON with AccessKeyId, SecretAccessKey,
// Token, Expiration). The endpoint is AWS_EC2_METADATA_SERVICE_ENDPOINT's (the SDKs' variable),
// by default http://169.254.169.254; short timeouts, since off EC2 nothing answers there.
//
// Thread contract: one thread at a time (it owns a CurlSession); S3CredentialChain serialises.
#pragma once

#include <optional>
#include <string>

#include "base/s3/CurlSession.h"
#include "base/s3/S3Credentials.h"

namespace streetgan::s3 {

class ImdsClient {
public:
    explicit ImdsClient(std::string endpoint = "http://169.254.169.254");
    /// The role's credentials; nullopt when no metadata service answers (not on EC2) or the
    /// instance has no role. Throws ConfigError when the service answers something malformed.
    std::optional<S3Credentials> roleCredentials();
    /// The instance's region (placement/region), or "" when unknown.
    std::string region();
    const std::string& endpoint() const { return endpoint_; }

    /// Parses the credentials document (with "Expiration": "2026-11-30T12:00:00Z"). Throws
    /// ConfigError naming the missing or ill-typed field.
    static S3Credentials parseCredentials(const std::string& json, const std::string& role);

private:
    /// GET `path` with the session token; nullopt when no 200 came back.
    std::optional<std::string> get(const std::string& path);
    std::string endpoint_, token_;
    CurlSession http_;
};

}  // namespace streetgan::s3
