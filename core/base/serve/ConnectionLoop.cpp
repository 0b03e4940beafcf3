#include "base/serve/ConnectionLoop.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/util/Errors.h"

namespace streetgan {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kListener = 0, kWake = 1;
constexpr auto kDrainTime = std::chrono::seconds(2);  // after a closing answer: let the client read it
constexpr size_t kDrainMax = size_t{1} << 20;         // input discarded meanwhile, at most
constexpr auto kSweepEvery = std::chrono::milliseconds(100);

std::string peerText(const sockaddr_storage& ss, int& port) {
    char buf[INET6_ADDRSTRLEN] = {};
    port = 0;
    if (ss.ss_family == AF_INET) {
        const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
        ::inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf);
        port = ntohs(a->sin_port);
    } else if (ss.ss_family == AF_INET6) {
        const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
        ::inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof buf);
        port = ntohs(a->sin6_port);
    }
    return buf;
}

}  // namespace

struct ConnectionLoop::Conn {
    enum class State { Reading, Queued, Writing, Draining, Closed };
    uint64_t id = 0;
    int fd = -1;
    std::string peerIp;
    int peerPort = 0;
    State state = State::Reading;
    std::string in;   // received, not yet answered
    std::string out;  // the response being written
    size_t outPos = 0;
    Clock::time_point deadline;  // of the current state (see the sweep)
    Clock::time_point waitingSince;
    bool headStarted = false;  // bytes of the next request have arrived
    bool scanNeeded = true;    // new bytes may complete or break the head
    size_t awaitBytes = 0;     // head whole: rescan once this many bytes are in
    bool sentContinue = false;
    bool peerClosed = false;  // the client shut down its side
    bool closeAfterWrite = false;
    int served = 0;
    size_t drained = 0;
    uint32_t interest = 0;
};

ConnectionLoop::ConnectionLoop(const GalleryRoutes& routes, ConnectionLimits limits) : routes_(routes), limits_(limits) {
    epollFd_ = ::epoll_create1(EPOLL_CLOEXEC);
    wakeFd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    // One descriptor kept in reserve: at EMFILE it is given up for a moment to accept and refuse a
    // connection, which would otherwise stay in the backlog and wake the loop forever.
    spareFd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (epollFd_ < 0 || wakeFd_ < 0) throw IoError(std::string("gallery server: cannot create its event loop: ") + std::strerror(errno));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kWake;
    ::epoll_ctl(epollFd_, EPOLL_CTL_ADD, wakeFd_, &ev);
    rlimit r{};
    int cap = limits_.maxConnections;
    if (::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
        cap = static_cast<int>(std::min<rlim_t>(static_cast<rlim_t>(cap), std::max<rlim_t>(16, r.rlim_cur > 128 ? r.rlim_cur - 128 : 16)));
    cap_ = std::max(1, cap);
    queue_ = std::make_unique<RenderQueue>(
        limits_.renderWorkers, limits_.maxQueuedRenders,
        [this](RenderQueue::Job& job) {
            job.answer = routes_.answer(job.request, GalleryRoutes::Pass::Render, job.closeAfter, job.peerIp, job.peerPort);
            if (job.answer.status == 0) {
                job.answer.bytes = routes_.refusal(500, "render failed: no response");
                job.answer.close = true;
            }
        },
        [this](RenderQueue::Job& job) {
            {
                std::lock_guard<std::mutex> lock(completionMutex_);
                completions_.push_back({job.connection, std::move(job.answer)});
            }
            wake();
        });
}

ConnectionLoop::~ConnectionLoop() {
    stop();
    queue_->shutdown();
    for (auto& [id, c] : conns_)
        if (c->fd >= 0) ::close(c->fd);
    for (int fd : {listenFd_, epollFd_, wakeFd_, spareFd_})
        if (fd >= 0) ::close(fd);
}

int ConnectionLoop::bind(const std::string& host, int port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo* found = nullptr;
    const std::string name = host.size() >= 2 && host.front() == '[' && host.back() == ']' ? host.substr(1, host.size() - 2) : host;
    auto fail = [&] {
        return IoError("gallery server: cannot bind " + host + ":" + std::to_string(port) + " (address in use or not available); choose another --bind");
    };
    if (::getaddrinfo(name.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) throw fail();
    int fd = -1;
    for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
        fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        // SO_REUSEADDR restarts quickly and still reports a port in use (SO_REUSEPORT would let a
        // second server share the port silently).
        int yes = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
            ::close(fd);
            fd = -1;
        }
    }
    ::freeaddrinfo(found);
    if (fd < 0) throw fail();
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
    int bound = 0;
    peerText(ss, bound);
    listenFd_ = fd;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListener;
    ::epoll_ctl(epollFd_, EPOLL_CTL_ADD, listenFd_, &ev);
    return bound;
}

bool ConnectionLoop::running() const {
    std::lock_guard<std::mutex> lock(stateMutex_);
    return running_;
}

size_t ConnectionLoop::queuedRenders() const { return queue_->waiting(); }

int ConnectionLoop::connectionCap() const { return cap_; }

void ConnectionLoop::wake() {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(wakeFd_, &one, sizeof one);  // a full counter still wakes
}

void ConnectionLoop::stop() {
    std::unique_lock<std::mutex> lock(stateMutex_);
    stopRequested_ = true;
    if (!running_) {
        // run() has not started (it will return at once) or has finished: nobody else uses it.
        if (listenFd_ >= 0) {
            ::epoll_ctl(epollFd_, EPOLL_CTL_DEL, listenFd_, nullptr);
            ::close(listenFd_);
            listenFd_ = -1;
        }
        return;
    }
    wake();
    stateCv_.wait(lock, [this] { return listenerClosed_ || !running_; });
}

void ConnectionLoop::run() {
    {
        std::lock_guard<std::mutex> lock(stateMutex_);
        if (stopRequested_ || listenFd_ < 0) return;
        running_ = true;
    }
    epoll_event events[256];
    auto lastSweep = Clock::now();
    for (;;) {
        const int n = ::epoll_wait(epollFd_, events, 256, static_cast<int>(kSweepEvery.count()));
        for (int i = 0; i < n; ++i) {
            const uint64_t id = events[i].data.u64;
            if (id == kListener) {
                if (!stopping_) acceptAll();
            } else if (id == kWake) {
                uint64_t count = 0;
                [[maybe_unused]] const ssize_t r = ::read(wakeFd_, &count, sizeof count);
                takeCompletions();
            } else if (const auto it = conns_.find(id); it != conns_.end() && it->second->state != Conn::State::Closed) {
                onEvent(*it->second, events[i].events);
            }
        }
        {
            std::lock_guard<std::mutex> lock(stateMutex_);
            if (stopRequested_ && !stopping_) {
                // Closed here, under the lock stop() waits on: once stop() returns nobody connects.
                ::epoll_ctl(epollFd_, EPOLL_CTL_DEL, listenFd_, nullptr);
                ::close(listenFd_);
                listenFd_ = -1;
                listenerClosed_ = true;
                stateCv_.notify_all();
                beginStop();
            }
        }
        if (Clock::now() - lastSweep >= kSweepEvery) {
            sweep();
            lastSweep = Clock::now();
        }
        for (uint64_t id : dead_) conns_.erase(id);
        dead_.clear();
        if (stopping_ && conns_.empty() && queue_->idle()) {
            takeCompletions();
            if (conns_.empty()) break;
        }
    }
    std::lock_guard<std::mutex> lock(stateMutex_);
    running_ = false;
    stateCv_.notify_all();
}

void ConnectionLoop::beginStop() {
    stopping_ = true;
    for (auto& [id, c] : conns_)
        if (c->state == Conn::State::Reading || c->state == Conn::State::Draining) closeConn(*c);
}

void ConnectionLoop::acceptAll() {
    for (int k = 0; k < 256; ++k) {
        sockaddr_storage ss{};
        socklen_t len = sizeof ss;
        const int fd = ::accept4(listenFd_, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EMFILE || errno == ENFILE) {
                if (evictOldestWaiting()) continue;
                if (spareFd_ >= 0) {
                    ::close(spareFd_);
                    const int extra = ::accept4(listenFd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
                    if (extra >= 0) refuse(extra, "server busy: out of file descriptors; retry later");
                    spareFd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
                }
            }
            return;  // EAGAIN, or an error the next wake-up retries
        }
        if (static_cast<int>(conns_.size() - dead_.size()) >= cap_ && !evictOldestWaiting()) {
            refuse(fd, "server busy: " + std::to_string(cap_) + " connections open, all with requests in progress; retry later");
            continue;
        }
        addConnection(fd, &ss);
    }
}

void ConnectionLoop::refuse(int fd, const std::string& line) {
    const std::string bytes = routes_.refusal(503, line);
    [[maybe_unused]] const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);  // best effort
    ::close(fd);
}

void ConnectionLoop::addConnection(int fd, const void* addr) {
    int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    auto c = std::make_unique<Conn>();
    c->id = nextId_++;
    c->fd = fd;
    c->peerIp = peerText(*static_cast<const sockaddr_storage*>(addr), c->peerPort);
    c->waitingSince = Clock::now();
    c->deadline = c->waitingSince + std::chrono::milliseconds(limits_.headerTimeoutMs);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = c->id;
    if (::epoll_ctl(epollFd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
        ::close(fd);
        return;
    }
    c->interest = EPOLLIN;
    ++open_;
    conns_.emplace(c->id, std::move(c));
}

// The connection that has waited longest for (the rest of) a request: idle keep-alives and slow
// senders go first; those with a request in progress are never evicted.
bool ConnectionLoop::evictOldestWaiting() {
    Conn* oldest = nullptr;
    for (auto& [id, c] : conns_)
        if ((c->state == Conn::State::Reading || c->state == Conn::State::Draining) && (!oldest || c->waitingSince < oldest->waitingSince)) oldest = c.get();
    if (!oldest) return false;
    closeConn(*oldest);
    return true;
}

void ConnectionLoop::setInterest(Conn& c, uint32_t events) {
    if (c.interest == events) return;
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = c.id;
    ::epoll_ctl(epollFd_, EPOLL_CTL_MOD, c.fd, &ev);
    c.interest = events;
}

void ConnectionLoop::closeConn(Conn& c) {
    if (c.state == Conn::State::Closed) return;
    ::epoll_ctl(epollFd_, EPOLL_CTL_DEL, c.fd, nullptr);
    ::close(c.fd);
    c.fd = -1;
    c.state = Conn::State::Closed;
    c.in = std::string();
    unsent_ -= c.out.size() - c.outPos;
    c.out = std::string();
    c.outPos = 0;
    --open_;
    dead_.push_back(c.id);
}

void ConnectionLoop::onEvent(Conn& c, uint32_t events) {
    if ((events & EPOLLERR) != 0 || ((events & EPOLLHUP) != 0 && c.state != Conn::State::Reading && c.state != Conn::State::Draining)) {
        closeConn(c);
        return;
    }
    switch (c.state) {
        case Conn::State::Reading:
            if (!readInput(c)) return;
            process(c);
            return;
        case Conn::State::Writing:
            flush(c);
            if (c.state == Conn::State::Reading) process(c);
            return;
        case Conn::State::Draining: {
            char buf[16384];
            for (;;) {
                const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
                if (n > 0) {
                    c.drained += static_cast<size_t>(n);
                    if (c.drained > kDrainMax) break;
                    continue;
                }
                if (n < 0 && errno == EINTR) continue;
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
                break;  // EOF or error
            }
            closeConn(c);
            return;
        }
        default:
            return;
    }
}

// Reads what is there (up to one request's worth beyond the buffer); false once the connection is
// closed here.
bool ConnectionLoop::readInput(Conn& c) {
    const size_t cap = limits_.http.maxHeaderBytes + limits_.http.maxBodyBytes + 4096;
    char buf[16384];
    while (c.in.size() < cap) {
        const ssize_t n = ::recv(c.fd, buf, std::min(sizeof buf, cap - c.in.size()), 0);
        if (n > 0) {
            // Rescan only where the new bytes can change the verdict: the first bytes (garbage
            // is refused at once), a line end, or the whole body in (a byte-by-byte sender would
            // otherwise cost a scan of the whole head per byte).
            if (c.awaitBytes == 0 && (c.in.empty() || std::memchr(buf, '\n', static_cast<size_t>(n)))) c.scanNeeded = true;
            c.in.append(buf, static_cast<size_t>(n));
            if (c.awaitBytes > 0 && c.in.size() >= c.awaitBytes) c.scanNeeded = true;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n < 0) {
            closeConn(c);
            return false;
        }
        c.peerClosed = true;  // EOF: answer what is complete, then close
        break;
    }
    if (c.in.size() >= cap || c.in.size() > limits_.http.maxHeaderBytes) c.scanNeeded = true;
    if (c.peerClosed && c.in.empty()) {
        closeConn(c);
        return false;
    }
    return true;
}

void ConnectionLoop::process(Conn& c) {
    while (c.state == Conn::State::Reading && !c.in.empty()) {
        const auto now = Clock::now();
        if (!c.headStarted) {
            c.headStarted = true;
            c.waitingSince = now;
            c.deadline = now + std::chrono::milliseconds(limits_.headerTimeoutMs);
            c.scanNeeded = true;
        }
        if (!c.scanNeeded) {
            if (c.peerClosed) closeConn(c);
            return;
        }
        c.scanNeeded = false;
        const HttpRequestHead h = HttpRequestHead::scan(c.in, limits_.http);
        if (h.state == HttpRequestHead::State::Rejected) {
            respond(c, routes_.refusal(h.status, h.reason), true);
            return;
        }
        if (h.state == HttpRequestHead::State::Incomplete) {
            c.awaitBytes = h.headComplete ? h.requestBytes() : 0;
            if (h.headComplete && h.expectContinue && !c.sentContinue) {
                static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
                [[maybe_unused]] const ssize_t n = ::send(c.fd, kContinue, sizeof kContinue - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
                c.sentContinue = true;
            }
            if (c.peerClosed) closeConn(c);  // the rest will never come
            return;
        }
        std::string request = c.in.substr(0, h.requestBytes());
        c.in.erase(0, h.requestBytes());
        if (c.in.empty()) c.in.shrink_to_fit();
        c.headStarted = false;
        c.awaitBytes = 0;
        c.sentContinue = false;
        c.scanNeeded = !c.in.empty();
        ++c.served;
        const bool closeAfter = stopping_ || c.peerClosed || c.served >= limits_.keepAliveMax;
        GalleryRoutes::Answer a = routes_.answer(request, GalleryRoutes::Pass::Classify, closeAfter, c.peerIp, c.peerPort);
        if (a.needsRender) {
            if (queue_->push({c.id, request, closeAfter, c.peerIp, c.peerPort, {}, {}})) {
                c.state = Conn::State::Queued;
                setInterest(c, 0);  // errors and hang-ups are still reported
                return;
            }
            a = routes_.answer(request, GalleryRoutes::Pass::Busy, closeAfter, c.peerIp, c.peerPort);
        }
        if (a.status == 0) {
            closeConn(c);
            return;
        }
        respond(c, std::move(a.bytes), a.close);
    }
    if (c.state == Conn::State::Reading && c.peerClosed) closeConn(c);
}

void ConnectionLoop::respond(Conn& c, std::string bytes, bool close) {
    // Small answers always go (the page, /health, errors); a large one only while the answers
    // already waiting for their clients leave room for it, or when none waits.
    constexpr size_t kAlwaysSent = size_t{64} * 1024;
    if (bytes.size() > kAlwaysSent && unsent_.load() > 0 && unsent_.load() + bytes.size() > limits_.maxUnsentBytes) {
        const auto mb = [](size_t b) { return std::to_string((b + (1 << 19)) >> 20) + " MB"; };
        bytes = routes_.refusal(503, "server busy: " + mb(unsent_.load()) + " of answers wait for clients that read slowly (limit " +
                                         mb(limits_.maxUnsentBytes) + "); retry later");
        close = true;
    }
    unsent_ += bytes.size();
    c.out = std::move(bytes);
    c.outPos = 0;
    c.closeAfterWrite = close || stopping_;
    c.state = Conn::State::Writing;
    c.deadline = Clock::now() + std::chrono::milliseconds(limits_.writeTimeoutMs);
    flush(c);
}

void ConnectionLoop::flush(Conn& c) {
    while (c.outPos < c.out.size()) {
        const ssize_t n = ::send(c.fd, c.out.data() + c.outPos, c.out.size() - c.outPos, MSG_NOSIGNAL);
        if (n > 0) {
            c.outPos += static_cast<size_t>(n);
            unsent_ -= static_cast<size_t>(n);
            c.deadline = Clock::now() + std::chrono::milliseconds(limits_.writeTimeoutMs);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            setInterest(c, EPOLLOUT);
            return;
        }
        closeConn(c);
        return;
    }
    c.out = std::string();
    c.outPos = 0;
    const auto now = Clock::now();
    if (stopping_ && (c.closeAfterWrite || c.peerClosed)) {
        closeConn(c);
        return;
    }
    if (c.closeAfterWrite || c.peerClosed) {
        ::shutdown(c.fd, SHUT_WR);
        c.state = Conn::State::Draining;
        c.deadline = now + kDrainTime;
        c.waitingSince = now;
        setInterest(c, EPOLLIN);
        return;
    }
    c.state = Conn::State::Reading;
    c.waitingSince = now;
    c.deadline = now + std::chrono::milliseconds(limits_.idleTimeoutMs);
    setInterest(c, EPOLLIN);
}

void ConnectionLoop::takeCompletions() {
    std::vector<Completion> done;
    {
        std::lock_guard<std::mutex> lock(completionMutex_);
        done.swap(completions_);
    }
    for (Completion& d : done) {
        const auto it = conns_.find(d.connection);
        if (it == conns_.end() || it->second->state != Conn::State::Queued) continue;  // the client left
        Conn& c = *it->second;
        respond(c, std::move(d.answer.bytes), d.answer.close);
        if (c.state == Conn::State::Reading) process(c);
    }
}

void ConnectionLoop::sweep() {
    const auto now = Clock::now();
    for (RenderQueue::Job& job : queue_->takeExpired(now - std::chrono::milliseconds(limits_.queueTimeoutMs))) {
        const auto it = conns_.find(job.connection);
        if (it == conns_.end() || it->second->state != Conn::State::Queued) continue;
        Conn& c = *it->second;
        GalleryRoutes::Answer a = routes_.answer(job.request, GalleryRoutes::Pass::Busy, job.closeAfter, c.peerIp, c.peerPort);
        respond(c, std::move(a.bytes), a.close);
        if (c.state == Conn::State::Reading) process(c);
    }
    for (auto& [id, cp] : conns_) {
        Conn& c = *cp;
        if (c.state == Conn::State::Closed || c.state == Conn::State::Queued || now < c.deadline) continue;
        if (c.state == Conn::State::Reading && c.headStarted)
            respond(c, routes_.refusal(408, "request not complete within " + std::to_string(limits_.headerTimeoutMs / 1000.0).substr(0, 4) + " s"), true);
        else
            closeConn(c);
    }
}

}  // namespace streetgan
