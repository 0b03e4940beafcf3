#include "base/s3/S3Dataset.h"

#include <cmath>

#include "base/s3/S3CredentialChain.h"
#include "base/s3/S3DatasetListing.h"
#include "base/s3/S3Error.h"
#include "base/s3/S3ListingCache.h"

namespace streetgan::s3 {

std::shared_ptr<S3Dataset> S3Dataset::open(const std::string& spec, const S3LoadOptions& options) {
    std::shared_ptr<S3Dataset> d(new S3Dataset());
    d->spec_ = spec;
    d->url_ = S3Url::parse(spec);
    d->options_ = options;
    d->cacheDir_ = options.cacheDir.empty() ? S3ObjectCache::defaultDir() : options.cacheDir;
    const auto chain = S3CredentialChain::fromProcess();
    d->client_.endpoint = options.endpoint;
    d->client_.region = chain->region();
    d->credentials_ = [chain] { return chain->credentials(); };
    {
        S3Client client(d->url_.bucket, d->client_, d->credentials_);
        d->objects_ = S3ListingCache::list(client, options.endpoint, d->url_.folderPrefix(), d->cacheDir_, options.listingMaxAgeHours);
    }
    const std::string prefix = d->url_.folderPrefix();
    for (size_t i = 0; i < d->objects_.size(); ++i) {
        const S3Object& o = d->objects_[i];
        if (o.key.size() > prefix.size() && o.key.back() != '/') d->byPath_.emplace(o.key.substr(prefix.size()), i);
    }
    if (options.cacheGb > 0)
        d->cache_ = std::make_shared<S3ObjectCache>(d->cacheDir_, static_cast<uint64_t>(std::llround(options.cacheGb * 1024.0 * 1024.0 * 1024.0)));
    S3Fetcher::Options f;
    f.concurrency = options.concurrency;
    f.cache = d->cache_;
    d->fetcher_ = std::make_unique<S3Fetcher>(d->url_.bucket, d->client_, d->credentials_, f);
    return d;
}

const S3Object* S3Dataset::find(const std::string& path) const {
    const auto it = byPath_.find(path);
    return it == byPath_.end() ? nullptr : &objects_[it->second];
}

S3Fetcher::Request S3Dataset::request(const std::string& path, uint64_t offset, uint64_t length) const {
    const S3Object* o = find(path);
    if (!o) throw S3Error(S3Error::Kind::NotFound, url_.uri(url_.folderPrefix() + path) + " is not in the listing of " + spec_);
    return {o->key, o->etag.empty() ? "size " + std::to_string(o->size) : o->etag, offset, length};
}

DatasetIndex::Listing S3Dataset::listing() const {
    DatasetIndex::Listing l = S3DatasetListing::fromObjects(url_, objects_, client_, credentials_);
    // The CSVs through the fetcher and its cache (a second run reads them locally), "../" allowed.
    auto self = shared_from_this();
    l.readText = [self](const std::string& path) -> std::optional<std::string> {
        const auto key = S3DatasetListing::keyFor(self->url_.folderPrefix(), path);
        if (!key) return std::nullopt;
        const std::string prefix = self->url_.folderPrefix();
        S3Fetcher::Request r{*key, "", 0, 0, true};
        if (key->rfind(prefix, 0) == 0 && self->find(key->substr(prefix.size())))
            r = self->request(key->substr(prefix.size()));
        else
            r.cacheable = false;  // above the prefix (an images folder's ../seq_info.csv): no version to key it by
        try {
            return self->fetcher_->get(r);
        } catch (const S3Error& e) {
            if (e.kind() == S3Error::Kind::NotFound || e.kind() == S3Error::Kind::AccessDenied) return std::nullopt;
            throw;
        }
    };
    return l;
}

}  // namespace streetgan::s3
