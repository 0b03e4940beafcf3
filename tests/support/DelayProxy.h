// DelayProxy: a TCP proxy on a loopback port in front of an HTTP server (SeaweedFS's S3 gateway in
// the S3 tests and bench/bench_s3.sh), on a thread of its own, that makes the link worse on purpose:
//   - a one-way delay on every byte in each direction, so a request's round trip is roundTrip
//     (20 ms: another zone; 100 ms: another continent). Bytes are queued, never throttled: what
//     the delay limits is what waits on answers, as on a long link. The TCP handshake itself is
//     not delayed (the proxy accepts at once), so a new connection costs one round trip less
//     than on a real link;
//   - dropNextResponseAfter(n): the next response is cut after n bytes of its body (its headers
//     pass whole), and both sides of that connection are closed, as a reset link does;
//   - throttleNext(k): the next k requests never reach the server; each is answered
//     `503 SlowDown` with S3's XML error body (and the connection closed, as S3 may).
// It reads HTTP/1.1 as libcurl writes it (one request at a time per connection, a body only with
// Content-Length), enough to count requests and find response bodies; it is not a general proxy.
// Each request is logged (method, target, Range header, status, body bytes passed to the client)
// so that tests can count retries and the bytes fetched again.
//
// Thread contract: the public functions may be called from any thread while the proxy runs; the
// beforeDrop callback runs on the proxy's thread (while it runs, the proxy moves no bytes).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace streetgan::test {

class DelayProxy {
public:
    struct Exchange {
        std::string method, target, range;  ///< range: the request's Range header value, or ""
        int status = 0;                     ///< the response's status; 0 before its headers came
        std::uint64_t bodyBytes = 0;        ///< body bytes passed on to the client
        bool throttled = false;             ///< answered 503 SlowDown by the proxy itself
        bool dropped = false;               ///< cut by dropNextResponseAfter
    };

    /// Forwards 127.0.0.1:port() to targetHost:targetPort. `listenPort` 0: a free port.
    /// Throws std::runtime_error when it cannot listen.
    DelayProxy(std::string targetHost, int targetPort, std::chrono::milliseconds roundTrip = std::chrono::milliseconds(0), int listenPort = 0);
    ~DelayProxy();
    DelayProxy(const DelayProxy&) = delete;
    DelayProxy& operator=(const DelayProxy&) = delete;

    int port() const { return port_; }
    /// "http://127.0.0.1:PORT", for --s3-endpoint.
    std::string url() const;
    void setRoundTrip(std::chrono::milliseconds roundTrip);
    /// The next response whose headers arrive (to a request whose target contains `targetPart`)
    /// is cut after `bytes` bytes of its body; `beforeDrop` (if any) runs just before the
    /// connection is closed (a test may replace the object there, or arm the next drop).
    void dropNextResponseAfter(std::uint64_t bytes, std::function<void()> beforeDrop = {}, std::string targetPart = "");
    /// How many responses were cut so far.
    int dropped() const;
    /// The next `count` requests are answered 503 SlowDown by the proxy.
    void throttleNext(int count);
    /// Every request seen so far, in the order their headers arrived.
    std::vector<Exchange> exchanges() const;
    int throttled() const;
    void clearLog();

private:
    struct Connection;
    void run();
    void pollOnce();
    void acceptOne();
    void readFrom(Connection& c, bool fromClient);
    void onClientBytes(Connection& c, std::string data);
    void onServerBytes(Connection& c, std::string data);
    void flush(Connection& c);
    void close(Connection& c);
    /// Adds (or, `modify`, changes) `fd` in the epoll set with `events`, reported with `tag`.
    void watch(int fd, std::uint64_t tag, std::uint32_t events, bool modify = false);
    Exchange* entry(long long exchange);  ///< the log entry of an absolute index, or null; under mutex_

    std::string host_;
    int targetPort_, listenFd_ = -1, port_ = 0, wakeFd_[2] = {-1, -1}, epollFd_ = -1;
    std::vector<char> readBuffer_;  // proxy thread only: one buffer for every read
    std::atomic<long long> oneWayUs_;
    mutable std::mutex mutex_;  // guards the log and the fault settings below
    std::vector<Exchange> log_;
    long long logBase_ = 0;  ///< absolute index of log_[0] (clearLog moves it on)
    std::uint64_t dropAfter_ = 0;
    bool dropArmed_ = false;
    std::function<void()> beforeDrop_;
    std::string dropTarget_;
    int dropped_ = 0;
    int throttleLeft_ = 0, throttled_ = 0;
    std::vector<std::unique_ptr<Connection>> connections_;  // proxy thread only
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace streetgan::test
