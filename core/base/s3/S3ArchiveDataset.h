// S3ArchiveDataset: a zip or tar batch in a bucket opened for loading (what PhotoListing::s3Archive
// is built on): its S3ArchiveReader (the index cached under the S3 cache folder's
// archive-index/), and every entry read as one byte range through an S3Fetcher (S3Dataset's:
// requests in flight as --s3-concurrency says, ranges announced ahead fetched by its workers, the
// object cache keyed by the object's ETag and the range), then decoded by the reader (inflated,
// CRC checked). Credentials and region from the AWS chain, as S3Dataset.
//
// Thread contract: immutable after open(); read() and prefetch() may be called from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/s3/S3ArchiveReader.h"
#include "base/s3/S3Fetcher.h"
#include "base/s3/S3LoadOptions.h"
#include "base/s3/S3ObjectCache.h"

namespace streetgan::s3 {

class S3ArchiveDataset {
public:
    /// Opens the batch `spec` (s3://bucket/key.zip): HEAD, then its cached index or a listing
    /// (errors as S3ArchiveReader's).
    static std::shared_ptr<const S3ArchiveDataset> open(const std::string& spec, const S3LoadOptions& options);

    const std::string& spec() const { return spec_; }
    const S3LoadOptions& options() const { return options_; }
    /// The local cache folder (index, objects, verdicts).
    const std::string& cacheDir() const { return cacheDir_; }
    const std::shared_ptr<const S3ArchiveReader>& reader() const { return reader_; }
    /// The bytes of the entry at `path` (as S3ArchiveReader::read, through the fetcher).
    std::vector<uint8_t> read(const std::string& path) const;
    /// Announces entries read() will be asked for soon, in that order.
    void prefetch(const std::vector<std::string>& paths) const;
    S3Fetcher& fetcher() const { return *fetcher_; }

private:
    S3Fetcher::Request request(size_t entry) const;
    std::string spec_, cacheDir_;
    S3LoadOptions options_;
    std::shared_ptr<const S3ArchiveReader> reader_;
    std::shared_ptr<S3ObjectCache> cache_;
    std::unique_ptr<S3Fetcher> fetcher_;
};

}  // namespace streetgan::s3
