// S3LoadOptions: how a data set in S3 is read (the --s3-* options of train, eval and data):
// which store, how many requests in flight, and the local caches (fetched objects, listings).
//
// Thread contract: none needed (a value).
#pragma once

#include <string>

namespace streetgan::s3 {

struct S3LoadOptions {
    std::string endpoint;  ///< --s3-endpoint: an S3-compatible store's base URL; "" for AWS
    /// --s3-concurrency: GETs in flight. Sized to a link's bandwidth-delay product: a 64 px MSLS
    /// image is ~100-300 kB, so at 20-100 ms a round trip 32-64 requests keep 1-10 Gbit/s busy.
    int concurrency = 48;
    std::string cacheDir;  ///< --s3-cache: "" = S3ObjectCache::defaultDir()
    /// --s3-cache-gb: the object cache's size limit (LRU); 0: no object cache (listings still are).
    double cacheGb = 20;
    /// --s3-listing-max-age: hours a cached listing is reused without listing the bucket again
    /// (see S3ListingCache); 0: list every time.
    double listingMaxAgeHours = 24;
};

}  // namespace streetgan::s3
