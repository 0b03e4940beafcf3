// ImdsClient: the EC2 instance metadata service, version 2 (IMDSv2): a session token by PUT
// /latest/api/token, then the instance role's temporary credentials from
// /latest/meta-data/iam/security-credentials/<role> (JSON with AccessKeyId, SecretAccessKey,
// Token, Expiration), and a spot instance's interruption notice. The endpoint is
// AWS_EC2_METADATA_SERVICE_ENDPOINT's (the SDKs' variable), by default http://169.254.169.254;
// short timeouts, since off EC2 nothing answers there.
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
    static constexpr const char* kDefaultEndpoint = "http://169.254.169.254";
    explicit ImdsClient(std::string endpoint = kDefaultEndpoint);
    /// The endpoint to ask, from the values of AWS_EC2_METADATA_DISABLED and
    /// AWS_EC2_METADATA_SERVICE_ENDPOINT (the SDKs' variables): "" when disabled ("true").
    static std::string endpointFor(const std::string& disabled, const std::string& endpoint);
    /// The role's credentials; nullopt when no metadata service answers (not on EC2) or the
    /// instance has no role. Throws ConfigError when the service answers something malformed.
    std::optional<S3Credentials> roleCredentials();
    /// The instance's region (placement/region), or "" when unknown.
    std::string region();
    /// Whether a metadata service answers here (it grants a session token): false off EC2.
    bool available();
    /// A spot instance's interruption notice (meta-data/spot/instance-action, a JSON document such
    /// as {"action": "terminate", "time": "2026-11-30T12:00:00Z"}); nullopt while there is none
    /// (404, and on an instance that is not spot) or no metadata service answers.
    std::optional<std::string> spotInstanceAction();
    const std::string& endpoint() const { return endpoint_; }

    /// Parses the credentials document (with "Expiration": "2026-11-30T12:00:00Z"). Throws
    /// ConfigError naming the missing or ill-typed field.
    static S3Credentials parseCredentials(const std::string& json, const std::string& role);

private:
    /// GET `path` with the session token; nullopt when no 200 came back.
    std::optional<std::string> get(const std::string& path);
    /// A session token in token_ (a new one when there is none); false when none is granted.
    bool takeToken();
    std::string endpoint_, token_;
    CurlSession http_;
};

}  // namespace streetgan::s3
