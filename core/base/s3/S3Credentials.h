// S3Credentials: one set of AWS credentials (access key, secret, session token) with where they
// came from and, for temporary ones, when they expire. A value type; S3CredentialChain finds them.
//
// Thread contract: none needed (a value).
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace streetgan::s3 {

struct S3Credentials {
    std::string accessKeyId;
    std::string secretAccessKey;
    std::string sessionToken;  ///< empty for long-term keys
    /// Temporary credentials (a session token from a profile or STS, the instance role) expire;
    /// long-term keys have none.
    std::optional<std::chrono::system_clock::time_point> expiration;
    /// Where they came from, for messages: "environment", "profile 'x' in ~/.aws/credentials",
    /// "instance role 'r'".
    std::string source;

    bool empty() const { return accessKeyId.empty(); }
    /// Whether they expire within `margin` of `now` (never, for long-term keys).
    bool expiresWithin(std::chrono::seconds margin, std::chrono::system_clock::time_point now = std::chrono::system_clock::now()) const {
        return expiration && *expiration - margin <= now;
    }
};

}  // namespace streetgan::s3
