// CurlMulti: many HTTP requests in flight on one thread, through one libcurl multi handle whose
// connections are kept and reused among all of them. What S3Fetcher sends its GETs through: one
// thread for every request in flight, where a thread per request spent a fifth of the loader's
// CPU on waking, polling and switching (bench/README.md, "S3").
//
// Driven by libcurl's socket interface on an epoll set (Linux): each wake-up handles the
// connections that have bytes, not every transfer: curl_multi_perform and curl_multi_poll walk all
// of them each time, which at 100-200 in flight cost as much CPU as the requests themselves.
//
// Thread contract: start() and run() on one thread (the one that drives the transfers);
// wakeup() from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/s3/CurlSession.h"

namespace streetgan::s3 {

class CurlExchange;

class CurlMulti {
public:
    /// Connections kept open for reuse (more than S3Fetcher ever has in flight).
    static constexpr long kMaxConnections = 1024;
    CurlMulti();
    ~CurlMulti();
    CurlMulti(const CurlMulti&) = delete;
    CurlMulti& operator=(const CurlMulti&) = delete;

    /// Sends `request` (its body must outlive the transfer); run() gives its response back with `tag`.
    void start(const CurlSession::Request& request, std::uint64_t tag);
    /// Moves every transfer on; when none finished, first waits up to `timeout` for bytes to come
    /// or a wakeup(). Returns the transfers that finished, with their tags.
    std::vector<std::pair<std::uint64_t, CurlSession::Response>> run(std::chrono::milliseconds timeout);
    /// Ends a run() that waits (any thread).
    void wakeup();
    /// Transfers started and not yet given back.
    size_t inFlight() const { return transfers_.size() + refused_.size(); }

private:
    struct Transfer {
        std::unique_ptr<CurlExchange> exchange;
        std::uint64_t tag = 0;
    };
    void collect(std::vector<std::pair<std::uint64_t, CurlSession::Response>>& done);

    static int onSocket(CURL* easy, int socket, int what, void* user, void* socketData);
    static int onTimer(void* multi, long timeoutMs, void* user);
    /// Lets libcurl act on `socket` (CURL_SOCKET_TIMEOUT: its timers) with `events` (CURL_CSELECT_*).
    void act(int socket, int events);

    void* multi_ = nullptr;                                                                          ///< CURLM*
    int epoll_ = -1, wake_ = -1;                                                                     ///< the epoll set, and the eventfd wakeup() writes
    std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();  ///< libcurl's timer
    std::vector<CURL*> idle_;                                                                        ///< easy handles to reuse
    std::unordered_map<CURL*, Transfer> transfers_;
    std::vector<std::pair<std::uint64_t, CurlSession::Response>> refused_;  ///< never sent (their reason in curlError)
};

}  // namespace streetgan::s3
