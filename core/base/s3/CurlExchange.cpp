#include "base/s3/CurlExchange.h"

#include "base/util/BuildFeatures.h"

#if STREETGAN_WITH_S3
#include <curl/curl.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

// Debian 11's libcurl 7.74 (the build floor of the GPU bundle, packaging/gpu-bundle-floor.sh)
// predates CURLOPT_AWS_SIGV4 (7.75): its number from 7.75's curl.h, so the bundle builds; a libcurl
// that old refuses the option when a request is signed, and the exchange says so in one line.
#ifndef CURLOPT_AWS_SIGV4
#define CURLOPT_AWS_SIGV4 static_cast<CURLoption>(CURLOPTTYPE_STRINGPOINT + 305)
#endif

namespace streetgan::s3 {

static_assert(CURL_ERROR_SIZE == 256, "CurlExchange::error_ is CURL_ERROR_SIZE bytes");

size_t CurlExchange::onBody(char* data, size_t size, size_t count, void* user) {
    static_cast<CurlSession::Response*>(user)->body.append(data, size * count);
    return size * count;
}

size_t CurlExchange::onHeader(char* data, size_t size, size_t count, void* user) {
    auto& response = *static_cast<CurlSession::Response*>(user);
    auto& headers = response.headers;
    const std::string_view line(data, size * count);
    // A new status line (after a 100 Continue or a redirect) starts a new set of headers.
    if (line.rfind("HTTP/", 0) == 0) headers.clear();
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos) {
        std::string name(line.substr(0, colon));
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        const size_t b = line.find_first_not_of(" \t", colon + 1);
        const size_t e = line.find_last_not_of(" \t\r\n");
        std::string value = b == std::string_view::npos || e < b ? "" : std::string(line.substr(b, e - b + 1));
        // The body's size known ahead: one allocation for it instead of a few growing copies
        // (a 30 KiB photo arrives in 16 KiB pieces). Bounded, so a lying header costs nothing.
        if (name == "content-length") {
            unsigned long long n = 0;
            if (std::from_chars(value.data(), value.data() + value.size(), n).ec == std::errc())
                response.body.reserve(static_cast<size_t>(std::min<unsigned long long>(n, 64ULL << 20)));
        }
        headers[std::move(name)] = std::move(value);
    }
    return size * count;
}

size_t CurlExchange::onRead(char* buffer, size_t size, size_t count, void* user) {
    auto& up = *static_cast<Upload*>(user);
    const size_t n = std::min(size * count, up.body.size() - up.offset);
    std::copy_n(up.body.data() + up.offset, n, buffer);
    up.offset += n;
    return n;
}

// A retried PUT rewinds its body.
int CurlExchange::onSeek(void* user, std::int64_t offset, int origin) {
    auto& up = *static_cast<Upload*>(user);
    if (origin != SEEK_SET || offset < 0 || static_cast<size_t>(offset) > up.body.size()) return CURL_SEEKFUNC_FAIL;
    up.offset = static_cast<size_t>(offset);
    return CURL_SEEKFUNC_OK;
}

CurlExchange::CurlExchange(CURL* curl, const CurlSession::Request& request) : curl_(curl), upload_{request.body, 0} {
    // curl_easy_reset clears the options of the last request but keeps the handle's connection
    // cache (an easy handle's own, or its multi handle's): the next request to the same host
    // reuses the connection.
    curl_easy_reset(curl_);
    curl_easy_setopt(curl_, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, onBody);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &response_);
    curl_easy_setopt(curl_, CURLOPT_HEADERFUNCTION, onHeader);
    curl_easy_setopt(curl_, CURLOPT_HEADERDATA, &response_);
    curl_easy_setopt(curl_, CURLOPT_PRIVATE, this);
    curl_easy_setopt(curl_, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connectTimeout.count()));
    if (request.totalTimeout.count() > 0) curl_easy_setopt(curl_, CURLOPT_TIMEOUT_MS, static_cast<long>(request.totalTimeout.count()));
    if (request.stallTimeout.count() > 0) {
        curl_easy_setopt(curl_, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(curl_, CURLOPT_LOW_SPEED_TIME, static_cast<long>(request.stallTimeout.count()));
    }
    if (request.method == "HEAD") {
        curl_easy_setopt(curl_, CURLOPT_NOBODY, 1L);
    } else if (request.method == "PUT" || request.method == "POST") {
        // A POST's body goes as a PUT's does, by the read callback, under its own method name:
        // sent as POSTFIELDS (a form POST, its body's hash signed), CompleteMultipartUpload was
        // answered SignatureDoesNotMatch (SeaweedFS, libcurl 7.88); this way it is accepted.
        if (request.method == "POST") curl_easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, "POST");
        curl_easy_setopt(curl_, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(curl_, CURLOPT_READFUNCTION, onRead);
        curl_easy_setopt(curl_, CURLOPT_READDATA, &upload_);
        curl_easy_setopt(curl_, CURLOPT_SEEKFUNCTION, onSeek);
        curl_easy_setopt(curl_, CURLOPT_SEEKDATA, &upload_);
        curl_easy_setopt(curl_, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    } else if (request.method != "GET") {
        curl_easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
    if (!request.range.empty()) curl_easy_setopt(curl_, CURLOPT_RANGE, request.range.c_str());
    if (!request.sigv4.empty()) {
        if (curl_easy_setopt(curl_, CURLOPT_AWS_SIGV4, request.sigv4.c_str()) != CURLE_OK) {
            response_.curlError = std::string("this libcurl (") + curl_version_info(CURLVERSION_NOW)->version +
                                  ") cannot sign S3 requests: install libcurl 7.75 or newer (Debian 12's 7.88, Ubuntu 22.04's 7.81)";
            ready_ = false;
            return;
        }
        curl_easy_setopt(curl_, CURLOPT_USERPWD, request.userpwd.c_str());
    }
    // (libcurl 7.88's SigV4 signs every header of this list, an empty "Expect:" that disables
    // 100-continue too, which it then does not send: S3 answers SignatureDoesNotMatch. Hence
    // none here; libcurl sends Expect only for bodies over 1 MiB.)
    curl_slist* headers = nullptr;
    for (const std::string& h : request.headers) headers = curl_slist_append(headers, h.c_str());
    headers_ = headers;
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl_, CURLOPT_ERRORBUFFER, error_);
}

CurlExchange::~CurlExchange() {
    if (headers_) {
        curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, nullptr);
        curl_slist_free_all(static_cast<curl_slist*>(headers_));
    }
}

CurlSession::Response CurlExchange::finish(int code) {
    const auto rc = static_cast<CURLcode>(code);
    // The handle keeps no pointer into this exchange (error buffer, header list, upload) past here.
    curl_easy_setopt(curl_, CURLOPT_ERRORBUFFER, nullptr);
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, nullptr);
    curl_slist_free_all(static_cast<curl_slist*>(headers_));
    headers_ = nullptr;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &response_.status);
    if (rc != CURLE_OK) response_.curlError = error_[0] ? error_ : curl_easy_strerror(rc);
    return std::move(response_);
}

}  // namespace streetgan::s3
#endif
