// S3Error: what an S3 request that failed throws: one line naming the object or bucket and what to
// fix, and the kind of failure so that callers can act on it (a loader skips and counts NotFound
// and AccessDenied objects; everything else stops the run). An IoError, so the CLI's exit code
// for it is the I/O one.
//
// Thread contract: none needed (an exception value).
#pragma once

#include "base/util/Errors.h"

namespace streetgan::s3 {

class S3Error : public IoError {
public:
    enum class Kind {
        Credentials,   ///< InvalidAccessKeyId, SignatureDoesNotMatch, ExpiredToken: fix the keys
        NoSuchBucket,  ///< the bucket does not exist (at this endpoint)
        WrongRegion,   ///< 301 PermanentRedirect / AuthorizationHeaderMalformed: another region
        NotFound,      ///< NoSuchKey, or 404 to a HEAD
        AccessDenied,  ///< 403 AccessDenied: the policy does not allow it
        Throttled,     ///< 503 SlowDown still answered after every retry
        Network,       ///< no answer: DNS, refused, reset, timeout
        Changed,       ///< the object was replaced while it was read (its ETag changed)
        Other,         ///< any other answer S3 gave
    };
    S3Error(Kind kind, const std::string& message) : IoError(message), kind_(kind) {}
    Kind kind() const { return kind_; }

private:
    Kind kind_;
};

}  // namespace streetgan::s3
