// CurlExchange: one HTTP request on a libcurl easy handle, from setting the handle up to the
// response: the options, the header list, the body and header callbacks, the upload of a PUT's
// body, SigV4 signing. CurlSession runs one with curl_easy_perform; CurlMulti runs many at once on
// a multi handle. The one place where a CurlSession::Request becomes libcurl options.
//
// Thread contract: the thread that drives the handle owns the exchange; it must outlive the
// transfer (the handle points into it) and is not movable.
#pragma once

#include <cstdint>

#include "base/s3/CurlSession.h"

namespace streetgan::s3 {

class CurlExchange {
public:
    /// Sets `curl` up for `request` (reset first: a reused handle keeps no option of its last
    /// request). When ready() is false the response already holds the reason (curlError).
    CurlExchange(CURL* curl, const CurlSession::Request& request);
    ~CurlExchange();
    CurlExchange(const CurlExchange&) = delete;
    CurlExchange& operator=(const CurlExchange&) = delete;

    bool ready() const { return ready_; }
    /// The response, after libcurl's result code `code` (a CURLcode) for the transfer; the handle
    /// no longer points into this exchange afterwards.
    CurlSession::Response finish(int code);
    CURL* handle() const { return curl_; }

private:
    struct Upload {
        std::string_view body;
        size_t offset = 0;
    };
    static size_t onBody(char* data, size_t size, size_t count, void* user);
    static size_t onHeader(char* data, size_t size, size_t count, void* user);
    static size_t onRead(char* buffer, size_t size, size_t count, void* user);
    static int onSeek(void* user, std::int64_t offset, int origin);  // curl_off_t

    CURL* curl_;
    bool ready_ = true;
    CurlSession::Response response_;
    Upload upload_;
    void* headers_ = nullptr;  ///< curl_slist*
    char error_[256] = {0};    ///< CURL_ERROR_SIZE (256 in every libcurl; checked in the .cpp)
};

}  // namespace streetgan::s3
