// S3Client's large objects (multipart upload) and deletion: the checkpoint sync's requests
// (ml/train/CheckpointSync), apart from the reads the loader uses.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/s3/S3Client.h"
#include "base/s3/S3Error.h"
#include "base/util/AtomicFile.h"

namespace streetgan::s3 {

namespace {

std::string xmlEscape(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else
            out += c;
    }
    return out;
}

// A file read part by part with pread; closed however the upload ends.
class PartReader {
public:
    explicit PartReader(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
        if (fd_ < 0) throw IoError("cannot read '" + path + "' to upload it: " + AtomicFile::describeError(errno));
    }
    ~PartReader() { ::close(fd_); }
    PartReader(const PartReader&) = delete;
    PartReader& operator=(const PartReader&) = delete;

    std::uint64_t size() const {
        const off_t end = ::lseek(fd_, 0, SEEK_END);
        if (end < 0) throw IoError("cannot read '" + path_ + "' to upload it: " + AtomicFile::describeError(errno));
        return static_cast<std::uint64_t>(end);
    }
    /// Bytes [offset, offset + length) into `buffer` (resized to what was read).
    void read(std::uint64_t offset, std::uint64_t length, std::string& buffer) const {
        buffer.resize(length);
        std::uint64_t got = 0;
        while (got < length) {
            const ssize_t n = ::pread(fd_, buffer.data() + got, length - got, static_cast<off_t>(offset + got));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw IoError("cannot read '" + path_ + "' to upload it: " + AtomicFile::describeError(errno));
            if (n == 0) throw IoError("'" + path_ + "' became shorter while it was uploaded: it must not change until the upload ends");
            got += static_cast<std::uint64_t>(n);
        }
    }

private:
    std::string path_;
    int fd_;
};

}  // namespace

void S3Client::putFile(const std::string& key, const std::string& path, std::uint64_t partSize) {
    const PartReader file(path);
    const std::uint64_t size = file.size();
    std::string buffer;
    if (size <= partSize) {
        file.read(0, size, buffer);
        put(key, buffer);
        return;
    }
    // At least S3's smallest part, and large enough that 10000 parts hold the file.
    partSize = std::max({partSize, kMinPartSize, (size + kMaxParts - 1) / kMaxParts});
    const std::string uploadId = startMultipartUpload(key);
    try {
        std::vector<std::string> etags;
        for (std::uint64_t offset = 0; offset < size; offset += partSize) {
            file.read(offset, std::min(partSize, size - offset), buffer);
            etags.push_back(uploadPart(key, uploadId, static_cast<int>(etags.size()) + 1, buffer));
        }
        completeMultipartUpload(key, uploadId, etags);
    } catch (...) {
        // The parts of an upload neither completed nor aborted stay stored (and billed) until a
        // lifecycle rule removes them: abort, and report the failure that ended the upload.
        try {
            abortMultipartUpload(key, uploadId);
        } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): the first failure is the one to report
        }
        throw;
    }
}

std::string S3Client::startMultipartUpload(const std::string& key) {
    Call call;
    call.method = "POST";
    call.key = key;
    call.what = "start a multipart upload of s3://" + bucket_ + "/" + key;
    call.query = {{"uploads", ""}};
    auto r = send(call);
    if (!r.curlError.empty() || r.status != 200) fail(call, r);
    return S3MultipartStart::parse(r.body, call.what).uploadId;
}

std::string S3Client::uploadPart(const std::string& key, const std::string& uploadId, int partNumber, std::string_view body) {
    Call call;
    call.method = "PUT";
    call.key = key;
    call.what = "PUT s3://" + bucket_ + "/" + key + " part " + std::to_string(partNumber);
    call.query = {{"partNumber", std::to_string(partNumber)}, {"uploadId", uploadId}};
    call.body = body;
    auto r = send(call);
    if (!r.curlError.empty() || r.status != 200) fail(call, r);
    const auto etag = r.headers.find("etag");
    if (etag == r.headers.end() || etag->second.empty())
        throw S3Error(S3Error::Kind::Other, call.what + ": the answer has no ETag: check --s3-endpoint points at an S3 service");
    return etag->second;
}

void S3Client::completeMultipartUpload(const std::string& key, const std::string& uploadId, const std::vector<std::string>& etags) {
    std::string xml = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">";
    for (size_t i = 0; i < etags.size(); ++i)
        xml += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" + xmlEscape(etags[i]) + "</ETag></Part>";
    xml += "</CompleteMultipartUpload>";
    Call call;
    call.method = "POST";
    call.key = key;
    call.what = "complete the multipart upload of s3://" + bucket_ + "/" + key;
    call.query = {{"uploadId", uploadId}};
    call.body = xml;
    auto r = send(call);
    if (!r.curlError.empty() || r.status != 200) fail(call, r);
    // S3 may answer 200 and still fail: the error then comes in the body (after whitespace it
    // sends to keep the connection open while it assembles the parts).
    r.body.erase(0, std::min(r.body.size(), r.body.find('<')));
    if (!S3ErrorBody::parse(r.body).code.empty()) {
        r.status = 500;
        fail(call, r);
    }
}

void S3Client::abortMultipartUpload(const std::string& key, const std::string& uploadId) {
    Call call;
    call.method = "DELETE";
    call.key = key;
    call.what = "abort the multipart upload of s3://" + bucket_ + "/" + key;
    call.query = {{"uploadId", uploadId}};
    auto r = send(call);
    if (r.curlError.empty() && (r.status == 204 || r.status == 200 || S3ErrorBody::parse(r.body).code == "NoSuchUpload")) return;
    fail(call, r);
}

void S3Client::remove(const std::string& key) {
    Call call;
    call.method = "DELETE";
    call.key = key;
    call.what = "DELETE s3://" + bucket_ + "/" + key;
    auto r = send(call);
    if (r.curlError.empty() && (r.status == 204 || r.status == 200)) return;
    fail(call, r);
}

}  // namespace streetgan::s3
