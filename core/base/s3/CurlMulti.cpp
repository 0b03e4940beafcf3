#include "base/s3/CurlMulti.h"

#include "base/s3/CurlExchange.h"
#include "base/util/BuildFeatures.h"

#if STREETGAN_WITH_S3
#include <curl/curl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace streetgan::s3 {

CurlMulti::CurlMulti() {
    CurlSession::globalInit();
    multi_ = curl_multi_init();
    if (!multi_) throw std::runtime_error("libcurl could not make a multi handle (out of memory?)");
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    wake_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = wake_;
    if (epoll_ < 0 || wake_ < 0 || ::epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &ev) != 0) {
        const std::string why = std::strerror(errno);
        if (epoll_ >= 0) ::close(epoll_);
        if (wake_ >= 0) ::close(wake_);
        curl_multi_cleanup(static_cast<CURLM*>(multi_));
        throw std::runtime_error("cannot make an epoll set for S3 requests (" + why + ")");
    }
    auto* multi = static_cast<CURLM*>(multi_);
    // Every connection kept for the next request: libcurl's default cache (4 per transfer in
    // flight at the moment one ends) closed and reopened connections as transfers came and went,
    // a TCP handshake (a round trip) for one request in seven at 128 in flight.
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, kMaxConnections);
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, onSocket);
    curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, onTimer);
    curl_multi_setopt(multi, CURLMOPT_TIMERDATA, this);
}

CurlMulti::~CurlMulti() {
    auto* multi = static_cast<CURLM*>(multi_);
    for (auto& [easy, transfer] : transfers_) {
        curl_multi_remove_handle(multi, easy);
        transfer.exchange.reset();
        curl_easy_cleanup(easy);
    }
    for (CURL* easy : idle_) curl_easy_cleanup(easy);
    curl_multi_cleanup(multi);
    ::close(epoll_);
    ::close(wake_);
}

int CurlMulti::onSocket(CURL* /*easy*/, int socket, int what, void* user, void* socketData) {
    auto* self = static_cast<CurlMulti*>(user);
    if (what == CURL_POLL_REMOVE) {
        ::epoll_ctl(self->epoll_, EPOLL_CTL_DEL, socket, nullptr);  // fails harmlessly when already closed
        return 0;
    }
    epoll_event ev{};
    ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
    ev.data.fd = socket;
    // A socket libcurl has not seen before is added (or, a number reused after a close that
    // dropped it from the set, added again); one it has is changed.
    if (!socketData) {
        if (::epoll_ctl(self->epoll_, EPOLL_CTL_ADD, socket, &ev) != 0 && errno == EEXIST) ::epoll_ctl(self->epoll_, EPOLL_CTL_MOD, socket, &ev);
        curl_multi_assign(static_cast<CURLM*>(self->multi_), socket, self);
    } else if (::epoll_ctl(self->epoll_, EPOLL_CTL_MOD, socket, &ev) != 0 && errno == ENOENT) {
        ::epoll_ctl(self->epoll_, EPOLL_CTL_ADD, socket, &ev);
    }
    return 0;
}

int CurlMulti::onTimer(void* /*multi*/, long timeoutMs, void* user) {
    auto* self = static_cast<CurlMulti*>(user);
    self->deadline_ = timeoutMs < 0 ? std::chrono::steady_clock::time_point::max() : std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    return 0;
}

void CurlMulti::act(int socket, int events) {
    int running = 0;
    curl_multi_socket_action(static_cast<CURLM*>(multi_), socket, events, &running);
}

void CurlMulti::start(const CurlSession::Request& request, std::uint64_t tag) {
    CURL* easy = nullptr;
    if (!idle_.empty()) {
        easy = idle_.back();
        idle_.pop_back();
    } else if (!(easy = curl_easy_init())) {
        throw std::runtime_error("libcurl could not make a handle (out of memory?)");
    }
    auto exchange = std::make_unique<CurlExchange>(easy, request);
    if (!exchange->ready()) {
        refused_.emplace_back(tag, exchange->finish(CURLE_OK));
        idle_.push_back(easy);
        return;
    }
    const CURLMcode rc = curl_multi_add_handle(static_cast<CURLM*>(multi_), easy);
    if (rc != CURLM_OK) {
        CurlSession::Response r = exchange->finish(CURLE_OK);
        r.curlError = std::string("libcurl could not start the request: ") + curl_multi_strerror(rc);
        refused_.emplace_back(tag, std::move(r));
        idle_.push_back(easy);
        return;
    }
    transfers_.emplace(easy, Transfer{std::move(exchange), tag});
}

void CurlMulti::collect(std::vector<std::pair<std::uint64_t, CurlSession::Response>>& done) {
    auto* multi = static_cast<CURLM*>(multi_);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
        if (msg->msg != CURLMSG_DONE) continue;
        CURL* easy = msg->easy_handle;
        const CURLcode result = msg->data.result;
        curl_multi_remove_handle(multi, easy);
        const auto it = transfers_.find(easy);
        if (it == transfers_.end()) continue;
        done.emplace_back(it->second.tag, it->second.exchange->finish(result));
        transfers_.erase(it);
        idle_.push_back(easy);
    }
}

std::vector<std::pair<std::uint64_t, CurlSession::Response>> CurlMulti::run(std::chrono::milliseconds timeout) {
    using Clock = std::chrono::steady_clock;
    std::vector<std::pair<std::uint64_t, CurlSession::Response>> done;
    done.swap(refused_);
    // libcurl's timer first: a transfer just started is due now (its timer 0).
    if (Clock::now() >= deadline_) {
        deadline_ = Clock::time_point::max();
        act(CURL_SOCKET_TIMEOUT, 0);
        collect(done);
    }
    if (!done.empty()) timeout = std::chrono::milliseconds(0);
    const Clock::time_point now = Clock::now();
    if (deadline_ != Clock::time_point::max())
        timeout = std::min(timeout, std::chrono::ceil<std::chrono::milliseconds>(std::max(deadline_ - now, Clock::duration::zero())));
    std::array<epoll_event, 256> events{};
    const int n = ::epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), static_cast<int>(timeout.count()));
    for (int i = 0; i < n; ++i) {
        const int fd = events[static_cast<size_t>(i)].data.fd;
        const uint32_t e = events[static_cast<size_t>(i)].events;
        if (fd == wake_) {
            uint64_t count = 0;
            [[maybe_unused]] const ssize_t got = ::read(wake_, &count, sizeof count);
            continue;
        }
        act(fd, ((e & EPOLLIN) ? CURL_CSELECT_IN : 0) | ((e & EPOLLOUT) ? CURL_CSELECT_OUT : 0) | ((e & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0));
    }
    if (Clock::now() >= deadline_) {
        deadline_ = Clock::time_point::max();
        act(CURL_SOCKET_TIMEOUT, 0);
    }
    collect(done);
    return done;
}

void CurlMulti::wakeup() {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t put = ::write(wake_, &one, sizeof one);
}

}  // namespace streetgan::s3
#else
// A build without libcurl (STREETGAN_WITH_S3=OFF): every way to S3 says so in one line.
namespace streetgan::s3 {

CurlMulti::CurlMulti() { BuildFeatures::missing("S3 (s3:// data, --checkpoint-sync, EC2 credentials)", BuildFeatures::Feature::S3); }
CurlMulti::~CurlMulti() = default;
void CurlMulti::start(const CurlSession::Request& /*request*/, std::uint64_t /*tag*/) {}
std::vector<std::pair<std::uint64_t, CurlSession::Response>> CurlMulti::run(std::chrono::milliseconds /*timeout*/) { return {}; }
void CurlMulti::wakeup() {}
void CurlMulti::collect(std::vector<std::pair<std::uint64_t, CurlSession::Response>>& /*done*/) {}
int CurlMulti::onSocket(CURL* /*easy*/, int /*socket*/, int /*what*/, void* /*user*/, void* /*socketData*/) { return 0; }
int CurlMulti::onTimer(void* /*multi*/, long /*timeoutMs*/, void* /*user*/) { return 0; }
void CurlMulti::act(int /*socket*/, int /*events*/) {}

}  // namespace streetgan::s3
#endif
