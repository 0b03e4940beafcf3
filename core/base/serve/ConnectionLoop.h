// The gallery server's sockets: one thread runs an epoll loop over the listening socket and every
// connection (non-blocking, so a slow or silent client costs a buffer, never a thread), reads
// request heads against HttpRequestHead's limits and a deadline, answers everything that is not a
// render itself through GalleryRoutes (health, page, OPTIONS, 4xx: microseconds each), and hands
// render requests to RenderQueue (`renderWorkers` threads, a short bounded queue with a wait
// deadline, then 503). Responses are written back by the loop without blocking.
//
// Bounds (ConnectionLimits): at most maxConnections open (also kept under RLIMIT_NOFILE); a new
// connection beyond that evicts the connection that has waited longest for its request, or is
// refused with a 503 when every connection has a request in progress. A request head must arrive
// within headerTimeoutMs of its first byte (408 and close otherwise; a connection that never sends
// one is closed silently after the same time), a keep-alive connection may idle idleTimeoutMs
// between requests, a response that makes no progress for writeTimeoutMs is dropped. Oversized or
// malformed requests get their 4xx and the connection closed (after the response, its input is
// drained briefly so the client sees the answer rather than a reset). Memory per connection: at
// most maxHeaderBytes + maxBodyBytes of request and one response; and the answers not yet taken by
// their clients are bounded in all (maxUnsentBytes): a large answer (over 64 KiB: an image or a GIF)
// that would go beyond it while others wait is replaced by a 503 "retry later", so that clients
// that never read cannot make the server hold their 5 MB GIFs by the thousand.
//
// Thread contract: bind() then run() (blocks; the thread that runs it owns the loop); stop() from
// any thread, also before run() (run() then returns at once): it closes the listening socket before
// returning (when the loop runs), lets requests in progress finish and makes run() return once
// they are written. connections()/queuedRenders() from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/serve/GalleryRoutes.h"
#include "base/serve/HttpRequestHead.h"
#include "base/serve/RenderQueue.h"

namespace streetgan {

struct ConnectionLimits {
    HttpLimits http;
    int maxConnections = 1024;
    int headerTimeoutMs = 10000;
    int idleTimeoutMs = 5000;
    int writeTimeoutMs = 10000;
    int keepAliveMax = 1000;  ///< requests per connection
    int renderWorkers = 1;
    size_t maxQueuedRenders = 16;
    int queueTimeoutMs = 10000;
    size_t maxUnsentBytes = size_t(64) << 20;  ///< answers waiting for slow clients, in all
};

class ConnectionLoop {
public:
    ConnectionLoop(const GalleryRoutes& routes, ConnectionLimits limits);
    ~ConnectionLoop();
    ConnectionLoop(const ConnectionLoop&) = delete;
    ConnectionLoop& operator=(const ConnectionLoop&) = delete;

    /// Opens the listening socket on host:port (0: any free port); returns the port. Throws
    /// IoError naming the address.
    int bind(const std::string& host, int port);
    /// Serves until stop(); returns once the requests in progress are answered.
    void run();
    void stop();
    bool running() const;
    int connections() const { return open_.load(); }
    size_t queuedRenders() const;
    /// Bytes of answers written to no socket yet (what slow readers hold), from any thread.
    size_t unsentBytes() const { return unsent_.load(); }
    /// The connection cap in force (maxConnections, lowered to fit RLIMIT_NOFILE).
    int connectionCap() const;

private:
    struct Conn;
    void acceptAll();
    void addConnection(int fd, const void* addr);
    bool evictOldestWaiting();
    void refuse(int fd, const std::string& line);
    void onEvent(Conn& c, uint32_t events);
    bool readInput(Conn& c);
    void process(Conn& c);
    void respond(Conn& c, std::string bytes, bool close);
    void flush(Conn& c);
    void closeConn(Conn& c);
    void setInterest(Conn& c, uint32_t events);
    void sweep();
    void takeCompletions();
    void beginStop();
    void wake();

    const GalleryRoutes& routes_;
    ConnectionLimits limits_;
    int listenFd_ = -1, epollFd_ = -1, wakeFd_ = -1, spareFd_ = -1;
    int cap_ = 0;
    std::unordered_map<uint64_t, std::unique_ptr<Conn>> conns_;
    std::vector<uint64_t> dead_;
    uint64_t nextId_ = 2;  // 0: the listening socket, 1: the wake-up eventfd
    std::unique_ptr<RenderQueue> queue_;
    bool stopping_ = false;
    std::atomic<int> open_{0};
    std::atomic<size_t> unsent_{0};  ///< changed by the loop thread only

    struct Completion {
        uint64_t connection;
        GalleryRoutes::Answer answer;
    };
    std::mutex completionMutex_;
    std::vector<Completion> completions_;

    mutable std::mutex stateMutex_;
    std::condition_variable stateCv_;
    bool stopRequested_ = false, running_ = false, listenerClosed_ = false;
};

}  // namespace streetgan
