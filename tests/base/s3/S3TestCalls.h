// What the S3 tests against SeaweedFS share: fixed keys as a credential source, a client's options
// for an endpoint (retries without real backoff), and the kind (and line) of the S3Error a call
// throws.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "base/s3/S3Client.h"
#include "base/s3/S3Error.h"

namespace streetgan::test {

inline s3::S3Client::CredentialSource s3Keys(const std::string& id, const std::string& secret) {
    return [=] { return s3::S3Credentials{id, secret, "", std::nullopt, "test keys"}; };
}

inline s3::S3ClientOptions s3At(const std::string& endpoint) {
    s3::S3ClientOptions o;
    o.endpoint = endpoint;
    o.backoffBase = std::chrono::milliseconds(1);  // retries in tests need no real backoff
    return o;
}

/// The kind of the S3Error `f` throws, its line into `line` when given; a test failure when none.
inline s3::S3Error::Kind s3FailureKind(const std::function<void()>& f, std::string* line = nullptr) {
    try {
        f();
    } catch (const s3::S3Error& e) {
        if (line) *line = e.what();
        return e.kind();
    }
    ADD_FAILURE() << "no S3Error";
    return s3::S3Error::Kind::Other;
}

}  // namespace streetgan::test
