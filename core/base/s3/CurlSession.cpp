#include "base/s3/CurlSession.h"

#include "base/util/BuildFeatures.h"

#if STREETGAN_WITH_S3
#include <curl/curl.h>

#include <mutex>
#include <stdexcept>

#include "base/s3/CurlExchange.h"

namespace streetgan::s3 {

bool CurlSession::supported() { return true; }

CurlSession::CurlSession() {
    globalInit();
    curl_ = curl_easy_init();
    if (!curl_) throw std::runtime_error("libcurl could not make a handle (out of memory?)");
}

CurlSession::~CurlSession() { curl_easy_cleanup(curl_); }

void CurlSession::globalInit() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

CurlSession::Response CurlSession::perform(const Request& request) {
    CurlExchange exchange(curl_, request);
    if (!exchange.ready()) return exchange.finish(CURLE_OK);
    return exchange.finish(curl_easy_perform(curl_));
}

}  // namespace streetgan::s3
#else
// A build without libcurl (STREETGAN_WITH_S3=OFF): every way to S3 starts with a session, which
// says so in one line; the EC2 metadata watch is never started (ImdsClient::endpointFor).
namespace streetgan::s3 {

bool CurlSession::supported() { return false; }
CurlSession::CurlSession() : curl_(nullptr) { BuildFeatures::missing("S3 (s3:// data, --checkpoint-sync, EC2 credentials)", BuildFeatures::Feature::S3); }
CurlSession::~CurlSession() = default;
void CurlSession::globalInit() {}
CurlSession::Response CurlSession::perform(const Request& /*request*/) { return {}; }

}  // namespace streetgan::s3
#endif
