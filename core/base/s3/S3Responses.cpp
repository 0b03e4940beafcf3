#include "base/s3/S3Responses.h"

#include <expat.h>

#include <charconv>
#include <functional>
#include <memory>

#include "base/s3/S3Error.h"

namespace streetgan::s3 {

namespace {

// Runs expat over `xml`, calling `onText(path, text)` at each element's end with its path of
// local names from the root ("ListBucketResult/Contents/Key") and its text. Returns expat's
// error, or "" when the document is well formed.
class PathReader {
public:
    using OnText = std::function<void(const std::string& path, const std::string& text)>;
    explicit PathReader(OnText onText) : onText_(std::move(onText)) {}

    std::string run(const std::string& xml) {
        std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> parser(XML_ParserCreate("UTF-8"), XML_ParserFree);
        XML_SetUserData(parser.get(), this);
        XML_SetElementHandler(parser.get(), &PathReader::start, &PathReader::end);
        XML_SetCharacterDataHandler(parser.get(), &PathReader::text);
        if (XML_Parse(parser.get(), xml.data(), static_cast<int>(xml.size()), 1) == XML_STATUS_ERROR)
            return std::string(XML_ErrorString(XML_GetErrorCode(parser.get()))) + " at line " + std::to_string(XML_GetCurrentLineNumber(parser.get()));
        return "";
    }

private:
    static void start(void* user, const XML_Char* name, const XML_Char**) {
        auto* self = static_cast<PathReader*>(user);
        std::string local = name;
        if (const size_t colon = local.rfind(':'); colon != std::string::npos) local = local.substr(colon + 1);
        self->marks_.push_back(self->path_.size());
        self->path_ += (self->path_.empty() ? "" : "/") + local;
        self->text_.clear();
    }
    static void end(void* user, const XML_Char*) {
        auto* self = static_cast<PathReader*>(user);
        self->onText_(self->path_, self->text_);
        self->path_.resize(self->marks_.back());
        self->marks_.pop_back();
        self->text_.clear();
    }
    static void text(void* user, const XML_Char* s, int len) { static_cast<PathReader*>(user)->text_.append(s, static_cast<size_t>(len)); }

    OnText onText_;
    std::string path_, text_;
    std::vector<size_t> marks_;
};

std::string unquote(std::string s) {
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
    return s;
}

}  // namespace

S3ListPage S3ListPage::parse(const std::string& xml, const std::string& what) {
    S3ListPage page;
    S3Object current;
    std::string badSize;
    PathReader reader([&](const std::string& path, const std::string& text) {
        if (path == "ListBucketResult/Contents/Key") {
            current.key = text;
        } else if (path == "ListBucketResult/Contents/Size") {
            const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), current.size);
            if (ec != std::errc() || p != text.data() + text.size()) badSize = text;
        } else if (path == "ListBucketResult/Contents/ETag") {
            current.etag = unquote(text);
        } else if (path == "ListBucketResult/Contents") {
            page.objects.push_back(std::move(current));
            current = {};
        } else if (path == "ListBucketResult/CommonPrefixes/Prefix") {
            page.commonPrefixes.push_back(text);
        } else if (path == "ListBucketResult/IsTruncated") {
            page.truncated = text == "true";
        } else if (path == "ListBucketResult/NextContinuationToken") {
            page.nextContinuationToken = text;
        }
    });
    if (const std::string error = reader.run(xml); !error.empty())
        throw S3Error(S3Error::Kind::Other, what + " is not well-formed XML (" + error + "): check --s3-endpoint points at an S3 service");
    if (!badSize.empty())
        throw S3Error(S3Error::Kind::Other, what + " gives an object the size '" + badSize + "': check --s3-endpoint points at an S3 service");
    if (page.truncated && page.nextContinuationToken.empty())
        throw S3Error(S3Error::Kind::Other, what + " is truncated but has no NextContinuationToken: the endpoint does not speak ListObjectsV2");
    return page;
}

S3MultipartStart S3MultipartStart::parse(const std::string& xml, const std::string& what) {
    S3MultipartStart start;
    PathReader reader([&](const std::string& path, const std::string& text) {
        if (path == "InitiateMultipartUploadResult/UploadId") start.uploadId = text;
    });
    if (const std::string error = reader.run(xml); !error.empty())
        throw S3Error(S3Error::Kind::Other, what + ": the answer is not well-formed XML (" + error + "): check --s3-endpoint points at an S3 service");
    if (start.uploadId.empty()) throw S3Error(S3Error::Kind::Other, what + ": the answer has no UploadId: the endpoint does not support multipart uploads");
    return start;
}

S3ErrorBody S3ErrorBody::parse(const std::string& xml) {
    S3ErrorBody body;
    PathReader reader([&](const std::string& path, const std::string& text) {
        if (path == "Error/Code")
            body.code = text;
        else if (path == "Error/Message")
            body.message = text;
        else if (path == "Error/Region")
            body.region = text;
        else if (path == "Error/Endpoint")
            body.endpoint = text;
    });
    if (xml.empty() || !reader.run(xml).empty()) return {};
    return body;
}

}  // namespace streetgan::s3
