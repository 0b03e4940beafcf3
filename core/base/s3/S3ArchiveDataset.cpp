#include "base/s3/S3ArchiveDataset.h"

#include <cmath>

#include "base/s3/S3CredentialChain.h"
#include "base/util/Errors.h"

namespace streetgan::s3 {

std::shared_ptr<const S3ArchiveDataset> S3ArchiveDataset::open(const std::string& spec, const S3LoadOptions& options) {
    auto d = std::make_shared<S3ArchiveDataset>();
    d->spec_ = spec;
    d->options_ = options;
    d->cacheDir_ = options.cacheDir.empty() ? S3ObjectCache::defaultDir() : options.cacheDir;
    const auto chain = S3CredentialChain::fromProcess();
    S3ClientOptions client;
    client.endpoint = options.endpoint;
    client.region = chain->region();
    const S3Client::CredentialSource credentials = [chain] { return chain->credentials(); };
    d->reader_ = std::make_shared<const S3ArchiveReader>(S3Url::parse(spec), client, credentials, d->cacheDir_ + "/archive-index");
    if (options.cacheGb > 0)
        d->cache_ = std::make_shared<S3ObjectCache>(d->cacheDir_, static_cast<uint64_t>(std::llround(options.cacheGb * 1024.0 * 1024.0 * 1024.0)));
    S3Fetcher::Options f;
    f.concurrency = options.concurrency;
    f.cache = d->cache_;
    d->fetcher_ = std::make_unique<S3Fetcher>(d->reader_->bucket(), client, credentials, f);
    return d;
}

S3Fetcher::Request S3ArchiveDataset::request(size_t entry) const {
    const S3ArchiveReader::Range r = reader_->range(entry);
    // The ETag names the object's version; an object without one is keyed by its size.
    const std::string version = reader_->etag().empty() ? "size " + std::to_string(reader_->objectSize()) : reader_->etag();
    return {reader_->key(), version, r.offset, r.length, !reader_->etag().empty()};
}

std::vector<uint8_t> S3ArchiveDataset::read(const std::string& path) const {
    const size_t i = reader_->entryOf(path);
    const ArchiveIndex::Entry& e = reader_->index().entries[i];
    if (!e.intact || reader_->range(i).length == 0) return reader_->read(i);  // damaged (named) or empty: no range to fetch
    return reader_->decode(i, fetcher_->get(request(i)));
}

void S3ArchiveDataset::prefetch(const std::vector<std::string>& paths) const {
    std::vector<S3Fetcher::Request> requests;
    requests.reserve(paths.size());
    for (const std::string& p : paths) {
        try {
            const size_t i = reader_->entryOf(p);
            if (reader_->index().entries[i].intact && reader_->range(i).length > 0) requests.push_back(request(i));
        } catch (const DataError&) {
            // not an entry: read() names it
        }
    }
    fetcher_->prefetch(requests);
}

}  // namespace streetgan::s3
