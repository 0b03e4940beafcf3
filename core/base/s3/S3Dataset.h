// S3Dataset: a data set under s3://bucket/prefix opened for loading: the AWS credential chain and
// region, the prefix's listing (S3ListingCache), the object cache (S3ObjectCache, unless
// cacheGb is 0) and the concurrent fetcher (S3Fetcher) every read goes through, the sequence CSVs
// too. What PhotoListing::s3 and PackedCacheSource::s3 are built on.
//
// Thread contract: immutable after open(); listing(), request() and the fetcher may be used from
// any thread.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/dataset/DatasetIndex.h"
#include "base/s3/S3Fetcher.h"
#include "base/s3/S3LoadOptions.h"
#include "base/s3/S3ObjectCache.h"
#include "base/s3/S3Url.h"

namespace streetgan::s3 {

class S3Dataset : public std::enable_shared_from_this<S3Dataset> {
public:
    /// Opens `spec` (s3://bucket/prefix; ConfigError when malformed) and lists it (S3Error with
    /// one line: credentials, bucket, region, network). An empty prefix listing is not an error
    /// here (the index says "no images").
    static std::shared_ptr<S3Dataset> open(const std::string& spec, const S3LoadOptions& options);

    const S3Url& url() const { return url_; }
    /// "s3://bucket/prefix" as given, for messages.
    const std::string& spec() const { return spec_; }
    const S3LoadOptions& options() const { return options_; }
    /// The local cache folder (listings, objects, verdicts).
    const std::string& cacheDir() const { return cacheDir_; }
    /// Objects under the prefix as a folder, keyed by their path below it ("a/b.jpg").
    const S3Object* find(const std::string& path) const;
    /// The listing for DatasetIndex::fromListing; its CSV reader goes through the fetcher.
    DatasetIndex::Listing listing() const;
    /// The fetch of the object at `path` below the prefix (version: the listed ETag, else size),
    /// whole, or bytes [offset, offset + length) when length > 0. NotFound S3Error when unlisted.
    S3Fetcher::Request request(const std::string& path, uint64_t offset = 0, uint64_t length = 0) const;
    S3Fetcher& fetcher() const { return *fetcher_; }
    /// Null when the object cache is off (cacheGb 0).
    const std::shared_ptr<S3ObjectCache>& cache() const { return cache_; }

private:
    S3Dataset() = default;
    std::string spec_, cacheDir_;
    S3Url url_;
    S3LoadOptions options_;
    S3ClientOptions client_;
    S3Client::CredentialSource credentials_;
    std::vector<S3Object> objects_;
    std::unordered_map<std::string, size_t> byPath_;  ///< path below the prefix -> objects_ index
    std::shared_ptr<S3ObjectCache> cache_;
    std::unique_ptr<S3Fetcher> fetcher_;
};

}  // namespace streetgan::s3
