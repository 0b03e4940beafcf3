// CurlSession: one libcurl easy handle doing HTTP requests one after another, so that its
// connections (and TLS sessions) are kept and reused between requests to the same host. Used by
// S3Client and ImdsClient; it knows HTTP, not S3: signing is libcurl's own AWS SigV4
// (CURLOPT_AWS_SIGV4), asked for per request. Transport failures come back as `curlError`, never
// thrown.
//
// Thread contract: a session is used by one thread at a time (libcurl's rule for an easy handle);
// make one per thread. libcurl's global init runs once, on first construction, under call_once.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

typedef void CURL;

namespace streetgan::s3 {

class CurlSession {
public:
    struct Request {
        std::string method = "GET";  ///< GET, HEAD, PUT, POST, DELETE
        std::string url;
        std::vector<std::string> headers;  ///< "Name: value"
        std::string_view body;             ///< PUT's or POST's body (must outlive perform())
        std::string range;                 ///< "first-last" bytes, or empty
        /// libcurl's SigV4 provider string ("aws:amz:REGION:s3") and "KEY:SECRET"; empty: unsigned.
        std::string sigv4, userpwd;
        std::chrono::milliseconds connectTimeout{10000};
        /// No progress (under 1 byte/s) for this long fails the request; 0: none.
        std::chrono::seconds stallTimeout{60};
        std::chrono::milliseconds totalTimeout{0};  ///< 0: none
    };
    struct Response {
        long status = 0;                             ///< HTTP status; 0 when no answer
        std::map<std::string, std::string> headers;  ///< names lower-cased
        std::string body;
        std::string curlError;  ///< non-empty: the transport failed (then status may be 0)
    };

    CurlSession();
    ~CurlSession();
    CurlSession(const CurlSession&) = delete;
    CurlSession& operator=(const CurlSession&) = delete;

    Response perform(const Request& request);
    /// False in a build without libcurl (STREETGAN_WITH_S3=OFF), whose constructor throws
    /// ConfigError saying so.
    static bool supported();
    /// libcurl's global initialisation, once per process (every handle's maker calls it first).
    static void globalInit();

private:
    CURL* curl_;
};

}  // namespace streetgan::s3
