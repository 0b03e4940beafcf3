// S3Url: s3://bucket/prefix parsing and its one-line refusals.
#include "base/s3/S3Url.h"

#include <gtest/gtest.h>

#include "base/util/Errors.h"

using streetgan::ConfigError;
using streetgan::s3::S3Url;

namespace {

std::string refusal(const std::string& text) {
    try {
        S3Url::parse(text);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(S3Url, ParsesBucketAndPrefix) {
    const S3Url u = S3Url::parse("s3://msls-data/train/cities");
    EXPECT_EQ(u.bucket, "msls-data");
    EXPECT_EQ(u.prefix, "train/cities");
    EXPECT_EQ(u.folderPrefix(), "train/cities/");
    EXPECT_EQ(u.uri("a/b.jpg"), "s3://msls-data/a/b.jpg");
    const S3Url bare = S3Url::parse("s3://my.bucket");
    EXPECT_EQ(bare.bucket, "my.bucket");
    EXPECT_EQ(bare.prefix, "");
    EXPECT_EQ(bare.folderPrefix(), "");
    EXPECT_EQ(S3Url::parse("s3://abc/x/").folderPrefix(), "x/");
    EXPECT_TRUE(S3Url::isS3("s3://x"));
    EXPECT_FALSE(S3Url::isS3("/data/s3://x"));
}

TEST(S3Url, RefusesWhatS3WouldWithOneLineNamingTheRule) {
    EXPECT_NE(refusal("/data/msls").find("write s3://bucket/prefix"), std::string::npos);
    EXPECT_NE(refusal("s3:///prefix").find("names no bucket"), std::string::npos);
    EXPECT_NE(refusal("s3://ab/x").find("3 to 63"), std::string::npos);
    EXPECT_NE(refusal("s3://My_Bucket/x").find("has 'M'"), std::string::npos);
    EXPECT_NE(refusal("s3://-bucket/x").find("start and end"), std::string::npos);
    EXPECT_NE(refusal("s3://a..b/x").find("\"..\""), std::string::npos);
    EXPECT_NE(refusal("s3://bucket//x").find("empty folder"), std::string::npos);
    EXPECT_NE(refusal("s3://bucket/a//x").find("empty folder"), std::string::npos);
    for (const std::string bad : {"s3://ab/x", "s3://My_Bucket/x", "s3://bucket//x"}) EXPECT_EQ(refusal(bad).find('\n'), std::string::npos) << bad;
}
