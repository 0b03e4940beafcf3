#include "base/s3/S3Url.h"

#include "base/util/Errors.h"

namespace streetgan::s3 {

namespace {

const char* const kScheme = "s3://";

// S3's bucket naming rules (general purpose buckets): 3 to 63 characters of lower-case letters,
// digits, '.' and '-', starting and ending with a letter or digit, no "..". Checked here so that
// a typo fails before any request with a line naming the rule, not with S3's own 400.
std::string bucketProblem(const std::string& b) {
    if (b.size() < 3 || b.size() > 63) return "is " + std::to_string(b.size()) + " characters long (S3 bucket names have 3 to 63)";
    for (char c : b)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-'))
            return std::string("has '") + c + "' (S3 bucket names have lower-case letters, digits, '.' and '-' only)";
    auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!alnum(b.front()) || !alnum(b.back())) return "must start and end with a letter or digit";
    if (b.find("..") != std::string::npos) return "has \"..\"";
    return "";
}

}  // namespace

bool S3Url::isS3(const std::string& text) { return text.rfind(kScheme, 0) == 0; }

S3Url S3Url::parse(const std::string& text) {
    if (!isS3(text)) throw ConfigError("'" + text + "' is not an S3 location: write s3://bucket/prefix");
    const std::string rest = text.substr(std::char_traits<char>::length(kScheme));
    const size_t slash = rest.find('/');
    S3Url url;
    url.bucket = rest.substr(0, slash);
    url.prefix = slash == std::string::npos ? "" : rest.substr(slash + 1);
    if (url.bucket.empty()) throw ConfigError("'" + text + "' names no bucket: write s3://bucket/prefix");
    if (const std::string problem = bucketProblem(url.bucket); !problem.empty())
        throw ConfigError("the bucket '" + url.bucket + "' in '" + text + "' " + problem + ": check the bucket name");
    // A leading or doubled '/' makes keys with an empty path segment: legal in S3 but never what
    // a folder meant, and a prefix listing would find nothing.
    if (!url.prefix.empty() && (url.prefix.front() == '/' || url.prefix.find("//") != std::string::npos))
        throw ConfigError("'" + text + "' has an empty folder (\"//\") in its prefix: write s3://bucket/folder/sub");
    return url;
}

std::string S3Url::folderPrefix() const {
    if (prefix.empty() || prefix.back() == '/') return prefix;
    return prefix + "/";
}

std::string S3Url::uri(const std::string& key) const { return kScheme + bucket + "/" + key; }

}  // namespace streetgan::s3
