#include "base/s3/S3DatasetListing.h"

#include <mutex>
#include <sstream>
#include <vector>

#include "base/s3/S3Error.h"

namespace streetgan::s3 {

std::optional<std::string> S3DatasetListing::keyFor(const std::string& folderPrefix, const std::string& path) {
    std::vector<std::string> parts;
    std::istringstream in(folderPrefix + path);
    std::string part;
    while (std::getline(in, part, '/')) {
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            if (parts.empty()) return std::nullopt;
            parts.pop_back();
        } else {
            parts.push_back(part);
        }
    }
    std::string key;
    for (const std::string& p : parts) key += (key.empty() ? "" : "/") + p;
    return key;
}

DatasetIndex::Listing S3DatasetListing::list(const S3Url& url, const S3ClientOptions& options, const S3Client::CredentialSource& credentials) {
    S3Client client(url.bucket, options, credentials);
    return fromObjects(url, client.list(url.folderPrefix()), options, credentials);
}

DatasetIndex::Listing S3DatasetListing::fromObjects(const S3Url& url, const std::vector<S3Object>& objects, const S3ClientOptions& options,
                                                    const S3Client::CredentialSource& credentials) {
    const std::string prefix = url.folderPrefix();
    DatasetIndex::Listing listing;
    listing.root = url.str();
    // What fromListing classifies against: its last components matter (an MSLS city or images
    // folder as the root), and the scheme keeps it from being mistaken for a local path.
    listing.rootPath = url.uri(prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1));
    for (const S3Object& o : objects) {
        if (o.key.size() <= prefix.size() || o.key.back() == '/') continue;  // the prefix itself, folder markers
        listing.files.push_back({o.key.substr(prefix.size()), o.size, 0});
    }
    // The reader's own client: a listing outlives this call and may be read from another thread.
    struct Reader {
        Reader(const std::string& bucket, const S3ClientOptions& o, const S3Client::CredentialSource& c) : client(bucket, o, c) {}
        std::mutex mutex;
        S3Client client;
    };
    auto reader = std::make_shared<Reader>(url.bucket, options, credentials);
    listing.readText = [reader, prefix](const std::string& path) -> std::optional<std::string> {
        const auto key = keyFor(prefix, path);
        if (!key) return std::nullopt;
        std::lock_guard lock(reader->mutex);
        try {
            return reader->client.get(*key);
        } catch (const S3Error& e) {
            // Absent or forbidden: DatasetIndex counts the CSV as unreadable (or absent above the
            // root), as for a local file; anything else (credentials, network) stops the listing.
            if (e.kind() == S3Error::Kind::NotFound || e.kind() == S3Error::Kind::AccessDenied) return std::nullopt;
            throw;
        }
    };
    return listing;
}

}  // namespace streetgan::s3
