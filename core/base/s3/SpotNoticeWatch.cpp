#include "base/s3/SpotNoticeWatch.h"

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/s3/ImdsClient.h"

namespace streetgan::s3 {

// Shared by the watch and its detached thread: whichever ends last frees it.
struct SpotNoticeWatch::State {
    std::mutex mutex;
    std::condition_variable wake;
    bool stopped = false;
    OnNotice onNotice;
};

SpotNoticeWatch::SpotNoticeWatch(const std::string& endpoint, std::chrono::milliseconds interval, OnNotice onNotice) : state_(std::make_shared<State>()) {
    state_->onNotice = std::move(onNotice);
    if (endpoint.empty()) return;
    std::thread([state = state_, endpoint, interval] {
        ImdsClient imds(endpoint);
        if (!imds.available()) return;  // not on EC2 (or IMDSv2 off)
        std::unique_lock lock(state->mutex);
        while (!state->stopped) {
            lock.unlock();
            const std::optional<std::string> document = imds.spotInstanceAction();
            lock.lock();
            if (state->stopped) return;
            if (document) {
                state->onNotice(parse(*document));  // under the lock: destruction waits for it, so it never runs after
                return;
            }
            state->wake.wait_for(lock, interval, [&] { return state->stopped; });
        }
    }).detach();
}

SpotNoticeWatch::~SpotNoticeWatch() {
    const std::lock_guard lock(state_->mutex);
    state_->stopped = true;
    state_->wake.notify_all();
}

SpotNoticeWatch::Notice SpotNoticeWatch::parse(const std::string& document) {
    Notice notice;
    notice.document = document;
    const auto j = nlohmann::json::parse(document, nullptr, false);
    if (!j.is_object()) return notice;
    if (const auto it = j.find("action"); it != j.end() && it->is_string()) notice.action = it->get<std::string>();
    if (const auto it = j.find("time"); it != j.end() && it->is_string()) notice.time = it->get<std::string>();
    return notice;
}

}  // namespace streetgan::s3
