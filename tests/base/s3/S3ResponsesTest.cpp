// S3Responses: ListObjectsV2 pages and error documents as S3 writes them (namespaced, entities),
// and malformed bodies.
#include "base/s3/S3Responses.h"

#include <gtest/gtest.h>

#include "base/s3/S3Error.h"

using namespace streetgan::s3;

TEST(S3Responses, ReadsAListObjectsV2PageWithItsContinuationToken) {
    const std::string xml = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount>
<MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
<Contents><Key>p/a &amp; b.jpg</Key><LastModified>2026-11-30T05:54:24Z</LastModified><ETag>&quot;b1946ac9&quot;</ETag><Size>6</Size><StorageClass>STANDARD</StorageClass></Contents>
<Contents><Key>p/c.jpg</Key><ETag>"e2"</ETag><Size>12345678901</Size></Contents>
<CommonPrefixes><Prefix>p/sub/</Prefix></CommonPrefixes></ListBucketResult>)";
    const S3ListPage page = S3ListPage::parse(xml, "the listing");
    ASSERT_EQ(page.objects.size(), 2u);
    EXPECT_EQ(page.objects[0].key, "p/a & b.jpg");
    EXPECT_EQ(page.objects[0].etag, "b1946ac9");
    EXPECT_EQ(page.objects[0].size, 6u);
    EXPECT_EQ(page.objects[1].size, 12345678901u);
    EXPECT_TRUE(page.truncated);
    EXPECT_EQ(page.nextContinuationToken, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
    ASSERT_EQ(page.commonPrefixes.size(), 1u);
    EXPECT_EQ(page.commonPrefixes[0], "p/sub/");
}

TEST(S3Responses, MalformedListingsAreOneLineErrors) {
    auto message = [](const std::string& xml) {
        try {
            S3ListPage::parse(xml, "the listing of s3://b/p");
        } catch (const S3Error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(message("<html><body>proxy error</html>").find("not well-formed XML"), std::string::npos);
    EXPECT_NE(message("<ListBucketResult><Contents><Key>k</Key><Size>-3</Size></Contents></ListBucketResult>").find("the size '-3'"), std::string::npos);
    EXPECT_NE(message("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>").find("NextContinuationToken"), std::string::npos);
    EXPECT_EQ(message("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>").find('\n'), std::string::npos);
}

TEST(S3Responses, ReadsErrorDocumentsAndToleratesNonXml) {
    const auto e = S3ErrorBody::parse(R"(<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>AuthorizationHeaderMalformed</Code><Message>the region 'us-east-1' is wrong; expecting 'eu-west-1'</Message><Region>eu-west-1</Region><RequestId>X</RequestId></Error>)");
    EXPECT_EQ(e.code, "AuthorizationHeaderMalformed");
    EXPECT_EQ(e.region, "eu-west-1");
    EXPECT_NE(e.message.find("expecting"), std::string::npos);
    EXPECT_EQ(S3ErrorBody::parse("").code, "");
    EXPECT_EQ(S3ErrorBody::parse("<html>502 Bad Gateway").code, "");
}
