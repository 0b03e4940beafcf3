// S3LoadOptions: how a data set in S3 is read (the --s3-* options of train, eval and data):
// which store, how many requests in flight, and the local caches (fetched objects, listings).
//
// Thread contract: none needed (a value).
#pragma once

#include <string>

namespace streetgan::s3 {

struct S3LoadOptions {
    std::string endpoint;  ///< --s3-endpoint: an S3-compatible store's base URL; "" for AWS
    /// --s3-concurrency: GETs in flight at first; S3Fetcher grows them (to 256, or this if more)
    /// while the loader waits on round trips: 48 keep a 2-thread loader fed at ~20 ms, ~200 are
    /// needed at 100 ms.
    int concurrency = 48;
    std::string cacheDir;  ///< --s3-cache: "" = S3ObjectCache::defaultDir()
    /// --s3-cache-gb: the object cache's size limit (LRU); 0: no object cache (listings still are).
    double cacheGb = 20;
    /// --s3-listing-max-age: hours a cached listing is reused without listing the bucket again
    /// (see S3ListingCache); 0: list every time.
    double listingMaxAgeHours = 24;
};

}  // namespace streetgan::s3
