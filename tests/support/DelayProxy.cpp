#include "support/DelayProxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>

namespace streetgan::test {

namespace {

using Clock = std::chrono::steady_clock;

// epoll tags: a connection's side is its address with the low bit set for the server side (a
// Connection is aligned, so neither tag below is one).
constexpr std::uint64_t kWakeTag = 0, kListenTag = 1;
constexpr std::uint32_t kIn = EPOLLIN, kOut = EPOLLOUT;

void nonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

void noDelay(int fd) {
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// The value of header `name` (lower case) in an HTTP header block, or "".
std::string headerValue(const std::string& block, const std::string& name) {
    size_t pos = block.find("\r\n");
    while (pos != std::string::npos && pos + 2 < block.size()) {
        const size_t end = block.find("\r\n", pos + 2);
        const std::string line = block.substr(pos + 2, (end == std::string::npos ? block.size() : end) - pos - 2);
        const size_t colon = line.find(':');
        if (colon != std::string::npos && lower(line.substr(0, colon)) == name) {
            const size_t b = line.find_first_not_of(" \t", colon + 1);
            return b == std::string::npos ? "" : line.substr(b);
        }
        pos = end;
    }
    return "";
}

// S3's answer to too many requests (as AWS words it).
const char* const kSlowDown =
    "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nConnection: close\r\nContent-Length: 183\r\n\r\n"
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message>"
    "<RequestId>DELAYPROXY</RequestId></Error>";

}  // namespace

struct DelayProxy::Connection {
    struct Chunk {
        Clock::time_point due;
        std::string data;
        bool close = false;  ///< close the connection once everything before it is written
    };
    int client = -1, server = -1;
    std::deque<Chunk> toClient, toServer;
    // Request side (client -> server): a header block being read, then its body's length.
    std::string requestHead;
    std::uint64_t requestBodyLeft = 0;
    bool discardClient = false;  ///< a throttled request: nothing more goes to the server
    // Response side (server -> client): the header block of the current exchange, then its body.
    std::string responseHead;
    bool inResponseBody = false;
    long long exchange = -1;  ///< absolute index in the log
    std::uint64_t bodySeen = 0, dropAt = 0;
    bool dropping = false, cut = false;
    std::function<void()> beforeDrop;
    bool closed = false;
    bool wantOut[2] = {false, false};  ///< [0] client, [1] server: EPOLLOUT asked (a send that did not finish)
    bool clientEnded = false;          ///< the client's side reached its end: no more reads from it
};

DelayProxy::DelayProxy(std::string targetHost, int targetPort, std::chrono::milliseconds roundTrip, int listenPort)
    : host_(std::move(targetHost)), targetPort_(targetPort), oneWayUs_(roundTrip.count() * 500) {
    listenFd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(listenFd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(listenPort));
    if (::bind(listenFd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listenFd_, 128) != 0) {
        const std::string why = std::strerror(errno);
        ::close(listenFd_);
        throw std::runtime_error("DelayProxy cannot listen on 127.0.0.1:" + std::to_string(listenPort) + ": " + why);
    }
    socklen_t len = sizeof addr;
    ::getsockname(listenFd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    nonBlocking(listenFd_);
    if (::pipe2(wakeFd_, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("DelayProxy: pipe2 failed");
    // epoll, not poll: poll walked every connection's two sockets at each of thousands of wake-ups
    // a second, a third of the proxy's CPU in bench_s3.sh, on the core the S3 server needs.
    epollFd_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epollFd_ < 0) throw std::runtime_error("DelayProxy: epoll_create1 failed");
    watch(wakeFd_[0], kWakeTag, EPOLLIN);
    watch(listenFd_, kListenTag, EPOLLIN);
    readBuffer_.resize(std::size_t{1} << 18);
    thread_ = std::thread([this] { run(); });
}

DelayProxy::~DelayProxy() {
    stop_ = true;
    const char byte = 0;
    (void)!::write(wakeFd_[1], &byte, 1);
    thread_.join();
    for (auto& c : connections_) close(*c);
    ::close(listenFd_);
    ::close(wakeFd_[0]);
    ::close(wakeFd_[1]);
    ::close(epollFd_);
}

void DelayProxy::watch(int fd, std::uint64_t tag, std::uint32_t events, bool modify) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = tag;
    ::epoll_ctl(epollFd_, modify ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev);
}

std::string DelayProxy::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

void DelayProxy::setRoundTrip(std::chrono::milliseconds roundTrip) { oneWayUs_ = roundTrip.count() * 500; }

void DelayProxy::dropNextResponseAfter(std::uint64_t bytes, std::function<void()> beforeDrop, std::string targetPart) {
    std::lock_guard lock(mutex_);
    dropArmed_ = true;
    dropAfter_ = bytes;
    beforeDrop_ = std::move(beforeDrop);
    dropTarget_ = std::move(targetPart);
}

int DelayProxy::dropped() const {
    std::lock_guard lock(mutex_);
    return dropped_;
}

void DelayProxy::throttleNext(int count) {
    std::lock_guard lock(mutex_);
    throttleLeft_ = count;
}

std::vector<DelayProxy::Exchange> DelayProxy::exchanges() const {
    std::lock_guard lock(mutex_);
    return log_;
}

int DelayProxy::throttled() const {
    std::lock_guard lock(mutex_);
    return throttled_;
}

void DelayProxy::clearLog() {
    std::lock_guard lock(mutex_);
    logBase_ += static_cast<long long>(log_.size());
    log_.clear();
}

DelayProxy::Exchange* DelayProxy::entry(long long exchange) {
    if (exchange < logBase_ || exchange - logBase_ >= static_cast<long long>(log_.size())) return nullptr;
    return &log_[static_cast<size_t>(exchange - logBase_)];
}

void DelayProxy::run() {
    while (!stop_) pollOnce();
}

void DelayProxy::pollOnce() {
    const auto now = Clock::now();
    auto next = now + std::chrono::milliseconds(200);
    for (auto& c : connections_) {
        if (!c->toClient.empty()) next = std::min(next, c->toClient.front().due);
        if (!c->toServer.empty()) next = std::min(next, c->toServer.front().due);
    }
    // In whole milliseconds, rounded up: a chunk never leaves before its delay is over.
    const auto waitUs = std::chrono::duration_cast<std::chrono::microseconds>(next - now).count();
    epoll_event events[256];
    const int n = ::epoll_wait(epollFd_, events, 256, waitUs <= 0 ? 0 : static_cast<int>((waitUs + 999) / 1000));
    for (int i = 0; i < n; ++i) {
        const std::uint64_t tag = events[i].data.u64;
        if (tag == kWakeTag) {
            char drain[64];
            while (::read(wakeFd_[0], drain, sizeof drain) > 0) {}
            continue;
        }
        if (tag == kListenTag) {
            acceptOne();
            continue;
        }
        // A connection closed earlier in this batch is skipped (its fds are gone, and their numbers
        // may already belong to a new connection, which has tags of its own).
        auto* c = reinterpret_cast<Connection*>(tag & ~std::uint64_t{1});
        const bool fromClient = (tag & 1) == 0;
        if (c->closed || (!fromClient && c->server < 0) || (fromClient && c->clientEnded)) continue;
        if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) readFrom(*c, fromClient);
    }
    for (auto& c : connections_)
        if (!c->closed) flush(*c);
    connections_.erase(std::remove_if(connections_.begin(), connections_.end(), [](const auto& c) { return c->closed; }), connections_.end());
}

void DelayProxy::acceptOne() {
    const int client = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) return;
    const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(targetPort_));
    ::inet_pton(AF_INET, host_ == "localhost" ? "127.0.0.1" : host_.c_str(), &addr.sin_addr);
    // A blocking connect: the target is on loopback, so it answers at once.
    if (::connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(server);
        ::close(client);
        return;
    }
    for (const int fd : {client, server}) {
        nonBlocking(fd);
        noDelay(fd);
    }
    auto c = std::make_unique<Connection>();
    c->client = client;
    c->server = server;
    watch(client, reinterpret_cast<std::uint64_t>(c.get()), EPOLLIN);
    watch(server, reinterpret_cast<std::uint64_t>(c.get()) | 1, EPOLLIN);
    connections_.push_back(std::move(c));
}

void DelayProxy::readFrom(Connection& c, bool fromClient) {
    const int fd = fromClient ? c.client : c.server;
    const ssize_t n = ::read(fd, readBuffer_.data(), readBuffer_.size());
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    const auto due = Clock::now() + std::chrono::microseconds(oneWayUs_.load());
    if (n <= 0) {
        // End of one side: the other side is closed once what is queued for it has gone out.
        if (fromClient) {
            c.toServer.push_back({due, "", true});
            // Level-triggered, the end would be reported at every wake-up until the close is due.
            c.clientEnded = true;
            watch(c.client, reinterpret_cast<std::uint64_t>(&c), c.wantOut[0] ? kOut : 0, true);
        } else {
            ::close(c.server);
            c.server = -1;
            c.toClient.push_back({due, "", true});
        }
        return;
    }
    std::string data(readBuffer_.data(), static_cast<size_t>(n));
    if (fromClient)
        onClientBytes(c, std::move(data));
    else
        onServerBytes(c, std::move(data));
}

void DelayProxy::onClientBytes(Connection& c, std::string data) {
    const auto now = Clock::now();
    const auto oneWay = std::chrono::microseconds(oneWayUs_.load());
    while (!data.empty() && !c.discardClient) {
        if (c.requestBodyLeft > 0) {
            const size_t n = static_cast<size_t>(std::min<std::uint64_t>(c.requestBodyLeft, data.size()));
            c.toServer.push_back({now + oneWay, data.substr(0, n)});
            c.requestBodyLeft -= n;
            data.erase(0, n);
            continue;
        }
        c.requestHead += data;
        data.clear();
        const size_t end = c.requestHead.find("\r\n\r\n");
        if (end == std::string::npos) return;
        std::string head = c.requestHead.substr(0, end + 4);
        data = c.requestHead.substr(end + 4);
        c.requestHead.clear();
        const size_t sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
        Exchange ex;
        ex.method = head.substr(0, sp1);
        ex.target = head.substr(sp1 + 1, sp2 - sp1 - 1);
        ex.range = headerValue(head, "range");
        const std::string length = headerValue(head, "content-length");
        c.requestBodyLeft = length.empty() ? 0 : std::stoull(length);
        bool throttle = false;
        {
            std::lock_guard lock(mutex_);
            if (throttleLeft_ > 0) {
                --throttleLeft_;
                ++throttled_;
                throttle = true;
                ex.throttled = true;
                ex.status = 503;
            }
            log_.push_back(ex);
            c.exchange = logBase_ + static_cast<long long>(log_.size()) - 1;
        }
        c.responseHead.clear();
        c.inResponseBody = false;
        c.bodySeen = 0;
        c.dropping = false;
        if (throttle) {
            // The request never reaches the server; the answer comes after a whole round trip.
            c.discardClient = true;
            if (c.server >= 0) {
                ::close(c.server);
                c.server = -1;
            }
            c.toServer.clear();
            c.toClient.push_back({now + 2 * oneWay, kSlowDown});
            c.toClient.push_back({now + 2 * oneWay, "", true});
            return;
        }
        c.toServer.push_back({now + oneWay, std::move(head)});
    }
}

void DelayProxy::onServerBytes(Connection& c, std::string data) {
    const auto due = Clock::now() + std::chrono::microseconds(oneWayUs_.load());
    if (c.cut) return;
    std::string out;
    while (!data.empty()) {
        if (!c.inResponseBody) {
            c.responseHead += data;
            data.clear();
            const size_t end = c.responseHead.find("\r\n\r\n");
            if (end == std::string::npos) break;
            out += c.responseHead.substr(0, end + 4);
            data = c.responseHead.substr(end + 4);
            const int status = std::atoi(c.responseHead.c_str() + std::min<size_t>(9, c.responseHead.size()));
            c.responseHead.clear();
            if (status == 100) continue;  // 100 Continue: the real answer's headers follow
            c.inResponseBody = true;
            std::lock_guard lock(mutex_);
            Exchange* ex = entry(c.exchange);
            if (ex) ex->status = status;
            if (dropArmed_ && (dropTarget_.empty() || (ex && ex->target.find(dropTarget_) != std::string::npos))) {
                dropArmed_ = false;
                c.dropping = true;
                c.dropAt = dropAfter_;
                c.beforeDrop = std::move(beforeDrop_);
                beforeDrop_ = nullptr;
            }
            continue;
        }
        size_t n = data.size();
        if (c.dropping) n = static_cast<size_t>(std::min<std::uint64_t>(n, c.dropAt - c.bodySeen));
        out.append(data, 0, n);
        c.bodySeen += n;
        {
            std::lock_guard lock(mutex_);
            if (Exchange* ex = entry(c.exchange)) ex->bodyBytes += n;
        }
        data.erase(0, n);
        if (c.dropping && c.bodySeen >= c.dropAt) {
            c.cut = true;
            {
                std::lock_guard lock(mutex_);
                if (Exchange* ex = entry(c.exchange)) ex->dropped = true;
                ++dropped_;
            }
            ::close(c.server);
            c.server = -1;
            c.toClient.push_back({due, std::move(out)});
            c.toClient.push_back({due, "", true});
            return;
        }
    }
    if (!out.empty()) c.toClient.push_back({due, std::move(out)});
}

void DelayProxy::flush(Connection& c) {
    const auto now = Clock::now();
    for (const bool toClient : {true, false}) {
        auto& queue = toClient ? c.toClient : c.toServer;
        const int fd = toClient ? c.client : c.server;
        bool full = false;  // the socket took less than was due: wait for EPOLLOUT
        while (!queue.empty() && queue.front().due <= now) {
            auto& chunk = queue.front();
            if (chunk.close) {
                if (c.cut && c.beforeDrop) {
                    c.beforeDrop();
                    c.beforeDrop = nullptr;
                }
                close(c);
                return;
            }
            if (fd < 0) {
                queue.pop_front();
                continue;
            }
            const ssize_t n = ::send(fd, chunk.data.data(), chunk.data.size(), MSG_NOSIGNAL);
            if (n < 0) {
                if (errno == EAGAIN || errno == EINTR) {
                    full = errno == EAGAIN;
                    break;
                }
                close(c);
                return;
            }
            chunk.data.erase(0, static_cast<size_t>(n));
            if (!chunk.data.empty()) {
                full = true;
                break;
            }
            queue.pop_front();
        }
        bool& asked = c.wantOut[toClient ? 0 : 1];
        if (fd >= 0 && full != asked) {
            asked = full;
            const std::uint32_t in = toClient && c.clientEnded ? 0 : kIn;
            watch(fd, reinterpret_cast<std::uint64_t>(&c) | (toClient ? 0 : 1), in | (full ? kOut : 0), true);
        }
    }
}

void DelayProxy::close(Connection& c) {
    if (c.client >= 0) ::close(c.client);
    if (c.server >= 0) ::close(c.server);
    c.client = c.server = -1;
    c.closed = true;
}

}  // namespace streetgan::test
