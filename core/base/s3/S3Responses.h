// S3Responses: the XML bodies S3 answers with that we read: a ListObjectsV2 page, an error
// document and CreateMultipartUpload's answer. All are parsed here with expat (a streaming parser:
// a 1000-key page is parsed without building a tree), because they share the one reader; hence
// three small types in one file.
// Malformed XML is a one-line S3Error naming the request.
//
// Thread contract: none needed (pure functions and values).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace streetgan::s3 {

struct S3Object {
    std::string key;
    std::uint64_t size = 0;
    std::string etag;  ///< without quotes
};

struct S3ListPage {
    std::vector<S3Object> objects;
    std::vector<std::string> commonPrefixes;  ///< with a delimiter: the "folders"
    bool truncated = false;
    std::string nextContinuationToken;
    /// Parses a ListBucketResult; `what` names the request in errors ("the listing of s3://b/p").
    static S3ListPage parse(const std::string& xml, const std::string& what);
};

/// CreateMultipartUpload's answer (InitiateMultipartUploadResult): the upload's id.
struct S3MultipartStart {
    std::string uploadId;
    /// Throws S3Error naming `what` when the document is malformed or has no UploadId.
    static S3MultipartStart parse(const std::string& xml, const std::string& what);
};

struct S3ErrorBody {
    std::string code, message;
    std::string region;  ///< <Region> of a PermanentRedirect / AuthorizationHeaderMalformed
    std::string endpoint;
    /// Parses an <Error> document; an empty or non-XML body gives an empty result (a HEAD, or a
    /// proxy's HTML), never an exception.
    static S3ErrorBody parse(const std::string& xml);
};

}  // namespace streetgan::s3
