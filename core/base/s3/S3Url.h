// S3Url: an `s3://bucket/prefix` location as `--data` and `--checkpoint-sync` take it, parsed and
// checked (bucket naming rules) with a one-line ConfigError for anything else. A value type.
//
// Thread contract: none needed (immutable value).
#pragma once

#include <string>

namespace streetgan::s3 {

struct S3Url {
    std::string bucket;
    /// The key prefix after "bucket/", as written (no leading '/'; may be empty or end in '/').
    std::string prefix;

    /// Whether `text` is meant as an S3 location (starts with "s3://"); parse() then checks it.
    static bool isS3(const std::string& text);
    /// Parses "s3://bucket" or "s3://bucket/prefix". Throws ConfigError naming the value and the
    /// expected form on anything else (no bucket, a bucket S3 would refuse, "//" in the prefix).
    static S3Url parse(const std::string& text);

    /// The prefix as a folder: "" or ending in exactly one '/' ("msls" -> "msls/").
    std::string folderPrefix() const;
    /// "s3://bucket/key" for messages.
    std::string uri(const std::string& key) const;
    std::string str() const { return uri(prefix); }
};

}  // namespace streetgan::s3
