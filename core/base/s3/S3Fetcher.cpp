#include "base/s3/S3Fetcher.h"

#include <pthread.h>

#include <algorithm>
#include <random>

namespace streetgan::s3 {

namespace {
// Retry threads: each settles one first answer at a time, backoff included (a throttled burst of
// 48 drains in well under a second).
constexpr size_t kReworkers = 8;
}  // namespace

S3Fetcher::S3Fetcher(std::string bucket, S3ClientOptions client, S3Client::CredentialSource credentials, Options options)
    : bucket_(std::move(bucket)), client_(std::move(client)), credentials_(std::move(credentials)), options_(std::move(options)) {
    options_.concurrency = std::max(1, options_.concurrency);
    options_.maxConcurrency = std::max(options_.concurrency, options_.maxConcurrency);
    options_.maxReady = std::max<size_t>(1, options_.maxReady);
    slots_ = limit_ = options_.concurrency;
    counters_.workers = slots_;
    sender_ = std::thread([this] { send(); });
}

void S3Fetcher::growLocked() {
    if (stopping_ || inFlight_ < limit_ || queue_.empty() || slots_ >= options_.maxConcurrency) return;
    if (limit_ == slots_) ++limit_;  // not while throttled: then the limit is S3's
    ++slots_;
    counters_.workers = slots_;
    multi_.wakeup();
}

S3Fetcher::~S3Fetcher() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    multi_.wakeup();
    reworkReady_.notify_all();
    sender_.join();
    for (std::thread& t : reworkers_) t.join();
}

std::string S3Fetcher::id(const Request& r) const {
    std::string out = client_.endpoint + "|" + bucket_ + "|" + r.key + "|" + r.version;
    if (r.length > 0) out += "|" + std::to_string(r.offset) + "+" + std::to_string(r.length);
    return out;
}

void S3Fetcher::send() {
    ::pthread_setname_np(::pthread_self(), "s3-fetch");                       // in top -H and perf, and for pinning (bench/bench_s3.sh)
    S3Client signer(bucket_, client_, credentials_);                          // makes and signs the requests, names failures
    std::unordered_map<std::uint64_t, std::pair<std::string, Request>> sent;  // by tag
    std::uint64_t nextTag = 0;
    std::vector<std::pair<std::string, Request>> starting;
    for (;;) {
        starting.clear();
        {
            std::lock_guard lock(mutex_);
            if (stopping_) return;
            while (inFlight_ < limit_ && !queue_.empty()) {
                std::string id = std::move(queue_.front());
                queue_.pop_front();
                const auto it = items_.find(id);
                if (it == items_.end() || it->second.state != State::Queued) continue;  // stale: already taken
                it->second.state = State::InFlight;
                ++inFlight_;
                ++counters_.requests;
                starting.emplace_back(std::move(id), it->second.request);
            }
        }
        for (auto& [id, request] : starting) {
            const std::uint64_t tag = nextTag++;
            multi_.start(signer.getRequest(request.key, request.offset, request.length), tag);
            sent.emplace(tag, std::pair{std::move(id), std::move(request)});
        }
        // Nothing in flight: wait for prefetch() or get() (they wake it); else for answers.
        for (auto& [tag, answer] : multi_.run(std::chrono::milliseconds(sent.empty() ? 1000 : 200))) {
            auto node = sent.extract(tag);
            if (node.empty()) continue;
            auto& [id, request] = node.mapped();
            const S3Client::GetOutcome outcome = S3Client::judgeGet(answer, request.offset, request.length);
            if (outcome == S3Client::GetOutcome::Done) {
                {
                    std::lock_guard lock(mutex_);
                    if (++sinceRaise_ >= limit_ && limit_ < slots_) {
                        ++limit_;
                        sinceRaise_ = 0;
                    }
                }
                finish(id, request, std::move(answer.body), nullptr);
            } else if (outcome == S3Client::GetOutcome::Fail) {
                try {
                    signer.throwFor(request.key, request.offset, request.length, answer);
                } catch (...) {
                    finish(id, request, {}, std::current_exception());
                }
            } else {
                Rework w{id, request, outcome == S3Client::GetOutcome::Retry, {}, {}};
                if (outcome == S3Client::GetOutcome::Cut) {
                    w.got = std::move(answer.body);
                    const auto tag = answer.headers.find("etag");
                    if (tag != answer.headers.end()) w.etag = tag->second;
                }
                std::lock_guard lock(mutex_);
                if (outcome == S3Client::GetOutcome::Retry && answer.status != 0) {  // throttled: fewer in flight
                    ++counters_.throttled;
                    limit_ = std::max(1, limit_ / 2);
                    sinceRaise_ = 0;
                }
                reworks_.push_back(std::move(w));
                if (reworkers_.size() < std::min(kReworkers, reworks_.size())) reworkers_.emplace_back([this] { rework(); });
                reworkReady_.notify_one();
            }
        }
    }
}

void S3Fetcher::rework() {
    ::pthread_setname_np(::pthread_self(), "s3-retry");
    S3Client client(bucket_, client_, credentials_);
    std::mt19937_64 rng{std::random_device{}()};
    int retriesSeen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
        reworkReady_.wait(lock, [&] { return stopping_ || !reworks_.empty(); });
        if (stopping_) return;
        Rework w = std::move(reworks_.front());
        reworks_.pop_front();
        lock.unlock();
        if (w.backoff) std::this_thread::sleep_for(S3Client::backoff(1, client_.backoffBase, client_.backoffCap, rng));
        // From nothing, the request is sent again: one retry S3Client does not count (a resume it does).
        const int again = w.got.empty() && w.etag.empty() ? 1 : 0;
        std::string bytes;
        std::exception_ptr error;
        try {
            bytes = client.resumeGet(w.request.key, w.request.offset, w.request.length, std::move(w.got), std::move(w.etag));
        } catch (...) {
            error = std::current_exception();
        }
        {
            std::lock_guard counting(mutex_);
            counters_.retries += client.retries() - retriesSeen + again;
            retriesSeen = client.retries();
        }
        finish(w.id, w.request, std::move(bytes), error);
        multi_.wakeup();  // a request slot is free again
        lock.lock();
    }
}

void S3Fetcher::finish(const std::string& id, const Request& request, std::string bytes, const std::exception_ptr& error) {
    std::lock_guard lock(mutex_);
    --inFlight_;
    counters_.bytes += static_cast<int64_t>(bytes.size());
    Item& item = items_.at(id);  // in flight: nobody erases it
    item.state = error ? State::Failed : State::Ready;
    item.bytes = std::move(bytes);
    item.error = error;
    const bool awaited = item.waiters > 0;
    readyOrder_.push_back(id);
    ++ready_;
    trimReadyLocked();
    if (awaited) done_.notify_all();
}

void S3Fetcher::trimReadyLocked() {
    // Unclaimed outcomes beyond maxReady: the oldest go (their bytes are in the disk cache when
    // there is one). Ids claimed since are stale here and skipped; one an ongoing get() is about
    // to take is kept.
    auto stale = [&](const std::string& id) {
        const auto it = items_.find(id);
        return it == items_.end() || (it->second.state != State::Ready && it->second.state != State::Failed);
    };
    size_t budget = readyOrder_.size();
    while (ready_ > options_.maxReady && budget-- > 0) {
        std::string id = std::move(readyOrder_.front());
        readyOrder_.pop_front();
        if (stale(id)) continue;
        const auto it = items_.find(id);
        if (it->second.waiters > 0) {
            readyOrder_.push_back(std::move(id));
            continue;
        }
        items_.erase(it);
        --ready_;
        ++counters_.dropped;
    }
    // Claimed ids pile up at the front while nothing needs dropping: keep the queue short.
    while (!readyOrder_.empty() && stale(readyOrder_.front())) readyOrder_.pop_front();
    if (readyOrder_.size() > 4 * options_.maxReady + 64) {
        std::deque<std::string> live;
        for (std::string& id : readyOrder_)
            if (!stale(id)) live.push_back(std::move(id));
        readyOrder_.swap(live);
    }
}

std::string S3Fetcher::take(std::unordered_map<std::string, Item>::iterator it, std::unique_lock<std::mutex>& lock) {
    Item& item = it->second;
    if (item.claims > 0) --item.claims;  // this get() was announced
    if (item.state == State::Failed) {
        const std::exception_ptr error = item.error;
        if (item.waiters == 0) {  // an announced later get() asks again (the failure may pass)
            items_.erase(it);
            --ready_;
        }
        std::rethrow_exception(error);
    }
    // The disk cache is written by the first get() that takes the object, on its own thread:
    // never by the sending thread, whose every transfer would wait for the file.
    const bool store = options_.cache && item.request.cacheable && !item.stored;
    item.stored = true;
    const std::string key = store ? it->first : std::string();
    std::string bytes;
    // Kept for another get() that waits for the same object, or one announced that will ask for
    // it (the next epoch's, announced while this one's was still pending).
    if (item.waiters > 0 || item.claims > 0) {
        bytes = item.bytes;
    } else {
        bytes = std::move(item.bytes);
        items_.erase(it);
        --ready_;
    }
    if (store) {  // (item is gone when erased: only its copied key and bytes are used)
        lock.unlock();
        options_.cache->put(key, bytes);
        lock.lock();
    }
    return bytes;
}

std::string S3Fetcher::get(const Request& request) {
    const std::string key = id(request);
    std::unique_lock lock(mutex_);
    auto it = items_.find(key);
    if (it != items_.end() && (it->second.state == State::Ready || it->second.state == State::Failed)) {
        ++counters_.memoryHits;
        return take(it, lock);
    }
    if (it == items_.end() && options_.cache && request.cacheable) {
        lock.unlock();
        if (auto bytes = options_.cache->get(key)) {
            lock.lock();
            ++counters_.diskHits;
            return std::move(*bytes);
        }
        lock.lock();
        it = items_.find(key);  // another thread may have started it meanwhile
    }
    if (it == items_.end()) it = items_.emplace(key, Item{request, State::Queued, {}, nullptr, 0}).first;
    if (it->second.state == State::Queued) {  // ahead of everything announced
        queue_.push_front(key);
        multi_.wakeup();
    }
    growLocked();  // waiting while every worker is busy: the link needs more in flight
    ++counters_.waits;
    ++it->second.waiters;
    done_.wait(lock, [&] {
        const auto found = items_.find(key);
        return found->second.state == State::Ready || found->second.state == State::Failed;
    });
    it = items_.find(key);
    --it->second.waiters;
    return take(it, lock);
}

void S3Fetcher::prefetch(const std::vector<Request>& requests) {
    std::vector<std::pair<std::string, const Request*>> wanted;
    wanted.reserve(requests.size());
    for (const Request& r : requests) {
        std::string key = id(r);
        if (options_.cache && r.cacheable && options_.cache->contains(key)) continue;
        wanted.emplace_back(std::move(key), &r);
    }
    size_t added = 0;
    {
        std::lock_guard lock(mutex_);
        for (auto& [key, r] : wanted) {
            if (const auto it = items_.find(key); it != items_.end()) {
                ++it->second.claims;  // asked for again before the last ask took it: fetched once, kept for both
                continue;
            }
            items_.emplace(key, Item{*r, State::Queued, {}, nullptr, 0, 1});
            queue_.push_back(std::move(key));
            ++added;
        }
    }
    if (added > 0) multi_.wakeup();
}

S3Fetcher::Counters S3Fetcher::counters() const {
    std::lock_guard lock(mutex_);
    Counters c = counters_;
    c.limit = limit_;
    return c;
}

}  // namespace streetgan::s3
