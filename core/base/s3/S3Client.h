// S3Client: the S3 requests the loader and the checkpoint sync need, on one bucket: GET (whole
// or a byte range), HEAD, ListObjectsV2 (following continuation tokens), PUT, and CreateBucket
// (for S3-compatible stores and tests). Requests are signed by libcurl's AWS SigV4 with the
// credentials the source gives at each request (so refreshed ones are used as soon as they are).
// Addressing: AWS's virtual-hosted style (https://bucket.s3.REGION.amazonaws.com/key; path style
// on s3.REGION.amazonaws.com for dotted bucket names, whose host would not match the wildcard
// certificate), or path style on `endpoint` (--s3-endpoint: MinIO, SeaweedFS, Ceph...).
// Throttling (503 SlowDown, 500/502/504) and dropped connections are retried with exponential
// backoff and full jitter; a GET whose connection drops mid-body goes on by a ranged GET from the
// byte reached, If-Match the first answer's ETag (an object replaced meanwhile is an S3Error of
// kind Changed, never two objects spliced); every other failure is an S3Error with one line
// naming what to fix.
//
// Thread contract: one thread at a time per client (it owns one CurlSession, whose connection
// is reused from request to request); make one client per thread. The credential source must be
// callable from any thread (S3CredentialChain::credentials is).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/s3/CurlSession.h"
#include "base/s3/S3Credentials.h"
#include "base/s3/S3Responses.h"

namespace streetgan::s3 {

struct S3ClientOptions {
    /// "" for AWS; else the base URL of an S3-compatible store ("http://127.0.0.1:8333"),
    /// addressed path-style.
    std::string endpoint;
    std::string region = "us-east-1";
    int maxAttempts = 6;  ///< per request, the first included
    std::chrono::milliseconds backoffBase{50}, backoffCap{5000};
};

class S3Client {
public:
    using CredentialSource = std::function<S3Credentials()>;
    S3Client(std::string bucket, S3ClientOptions options, CredentialSource credentials);

    std::string get(const std::string& key);
    /// Bytes [offset, offset + length) of the object (fewer at its end).
    std::string getRange(const std::string& key, std::uint64_t offset, std::uint64_t length);

    // A GET sent by the caller (S3Fetcher sends many at once on one thread, CurlMulti), judged and
    // finished here, by the same rules as get() and getRange(). `length` 0: the whole object.
    /// The first request get() (length 0) or getRange() sends, signed by libcurl with the
    /// credentials the source gives now.
    CurlSession::Request getRequest(const std::string& key, std::uint64_t offset, std::uint64_t length) const;
    enum class GetOutcome {
        Done,   ///< the answer holds the bytes (trimmed to `length`)
        Cut,    ///< the transfer dropped part-way: its first bytes are in the answer; resumeGet goes on
        Retry,  ///< throttled, a server error or no answer: resumeGet after a backoff
        Ask,    ///< an answer get() would handle otherwise (a range ignored or past the end): resumeGet at once
        Fail,   ///< an error no retry mends: throwFor names it
    };
    /// What the answer to getRequest(key, offset, length) is; trims a Done answer's body.
    static GetOutcome judgeGet(CurlSession::Response& answer, std::uint64_t offset, std::uint64_t length);
    /// Goes on with that GET as get()/getRange() would, after its first answer: from the `got`
    /// bytes that came (answer with ETag `etag`) by range and If-Match, or from nothing when `got`
    /// and `etag` are empty. Retries, resumes and throws as they do.
    std::string resumeGet(const std::string& key, std::uint64_t offset, std::uint64_t length, std::string got, std::string etag);
    /// Throws the S3Error get()/getRange() would for the failed answer `answer` (a Fail).
    [[noreturn]] void throwFor(const std::string& key, std::uint64_t offset, std::uint64_t length, const CurlSession::Response& answer) const;
    S3Object head(const std::string& key);
    /// One page of at most `maxKeys` keys under `prefix` after `continuationToken` ("" first).
    S3ListPage listPage(const std::string& prefix, const std::string& continuationToken = "", int maxKeys = 1000, const std::string& delimiter = "");
    /// Every object under `prefix`, page after page.
    std::vector<S3Object> list(const std::string& prefix, int pageSize = 1000);
    void put(const std::string& key, std::string_view body);
    void createBucket();

    // Large objects and deletion (S3ClientMultipart.cpp).
    /// S3's smallest part but the last (5 MiB) and most parts of one upload (10000).
    static constexpr std::uint64_t kMinPartSize = 5ULL << 20;
    static constexpr int kMaxParts = 10000;
    /// Uploads the file at `path` to `key`: one PUT when it is at most `partSize` bytes, else a
    /// multipart upload of `partSize` parts (more when 10000 would not hold it), read from the file
    /// one part at a time and aborted when any step fails (no half object and no parts left billed).
    /// The object appears whole or not at all. Throws S3Error, or IoError when the file cannot be read.
    void putFile(const std::string& key, const std::string& path, std::uint64_t partSize = 64ULL << 20);
    /// CreateMultipartUpload: the new upload's id.
    std::string startMultipartUpload(const std::string& key);
    /// UploadPart `partNumber` (1..10000): the part's ETag, as CompleteMultipartUpload wants it.
    std::string uploadPart(const std::string& key, const std::string& uploadId, int partNumber, std::string_view body);
    /// CompleteMultipartUpload of the parts 1..N whose ETags are `etags`, in order.
    void completeMultipartUpload(const std::string& key, const std::string& uploadId, const std::vector<std::string>& etags);
    /// AbortMultipartUpload: the parts are dropped (an upload already gone is no error).
    void abortMultipartUpload(const std::string& key, const std::string& uploadId);
    /// DeleteObject (a missing key is no error, as on S3).
    void remove(const std::string& key);

    const std::string& bucket() const { return bucket_; }
    /// How many requests were sent again after a throttle or a dropped connection, in all.
    int retries() const { return retries_; }
    /// How many of those went on by range from the byte a dropped GET had reached.
    int resumes() const { return resumes_; }
    /// The wait before retry number `attempt` (1 = the first retry): uniform in
    /// [0, min(cap, base * 2^attempt)] ("full jitter"), drawn from `rng`.
    static std::chrono::milliseconds backoff(int attempt, std::chrono::milliseconds base, std::chrono::milliseconds cap, std::mt19937_64& rng);

    /// S3's URI encoding (SigV4's): every byte but A-Z a-z 0-9 - _ . ~ as %XX; '/' kept when
    /// `keepSlash` (object keys in paths).
    static std::string uriEncode(std::string_view text, bool keepSlash);

private:
    struct Call {
        std::string method, key, what;  ///< what: "GET s3://b/k" for messages
        std::map<std::string, std::string> query;
        std::string range;
        std::string_view body;
        bool bucketLevel = false;
        std::string ifMatch;  ///< an ETag the object must still have (a resumed GET)
    };
    CurlSession::Response send(const Call& call);
    /// The request `call` is, signed with the credentials in hand.
    CurlSession::Request request(const Call& call) const;
    /// The call of a GET of the whole object (no length) or of [offset, offset + length).
    Call getCall(const std::string& key, std::uint64_t offset, std::optional<std::uint64_t> length) const;
    /// That GET, resumed by range across dropped connections; with `body` (and its answer's
    /// `etag`) it goes on from the bytes that came already.
    std::string read(const std::string& key, std::uint64_t offset, std::optional<std::uint64_t> length, std::string body = {}, std::string etag = {});
    /// A 206's Content-Range starts at byte `first` (else the bytes would be misplaced).
    static bool rangeStartsAt(const CurlSession::Response& r, std::uint64_t first);
    std::string url(const Call& call) const;
    [[noreturn]] void fail(const Call& call, const CurlSession::Response& response) const;

    std::string bucket_;
    S3ClientOptions options_;
    CredentialSource credentials_;
    CurlSession http_;
    int retries_ = 0, resumes_ = 0;
};

}  // namespace streetgan::s3
