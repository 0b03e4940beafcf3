// S3DatasetListing: a data set's listing from a bucket prefix, for DatasetIndex::fromListing
// beside the folder walk (DatasetIndex::listFolder) and an archive's table of contents: every key
// below s3://bucket/prefix/ with its size (ListObjectsV2, page after page), paths relative to
// the prefix, and a reader that GETs the sequence CSVs. Classification (images, CSVs, hidden and
// empty files, skip reasons), the MSLS layout, the city filter, the cap and the split are
// DatasetIndex's, as for local data. Folder-marker keys ("a/b/", size 0) are not files.
//
// Thread contract: list() is reentrant. The listing's reader owns its own S3Client behind a
// mutex, so it may be called from any thread (one request at a time).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/dataset/DatasetIndex.h"
#include "base/s3/S3Client.h"
#include "base/s3/S3Url.h"

namespace streetgan::s3 {

class S3DatasetListing {
public:
    /// Lists `url` (a folder: "s3://b/msls" lists "msls/..."). `options` and `credentials` make
    /// the clients (one for the listing, one for the reader). Throws S3Error as S3Client does,
    /// naming the --data value.
    static DatasetIndex::Listing list(const S3Url& url, const S3ClientOptions& options, const S3Client::CredentialSource& credentials);
    /// The same from objects already listed under url.folderPrefix() (S3ListingCache).
    static DatasetIndex::Listing fromObjects(const S3Url& url, const std::vector<S3Object>& objects, const S3ClientOptions& options,
                                             const S3Client::CredentialSource& credentials);

    /// The key a listing path stands for: `folderPrefix` + `path` with "." and ".." resolved
    /// ("../seq_info.csv" of an images folder); nullopt when ".." climbs above the bucket.
    static std::optional<std::string> keyFor(const std::string& folderPrefix, const std::string& path);
};

}  // namespace streetgan::s3
