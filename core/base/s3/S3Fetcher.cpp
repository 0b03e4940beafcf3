#include "base/s3/S3Fetcher.h"

#include <algorithm>

namespace streetgan::s3 {

S3Fetcher::S3Fetcher(std::string bucket, S3ClientOptions client, S3Client::CredentialSource credentials, Options options)
    : bucket_(std::move(bucket)), client_(std::move(client)), credentials_(std::move(credentials)), options_(std::move(options)) {
    options_.concurrency = std::max(1, options_.concurrency);
    options_.maxConcurrency = std::max(options_.concurrency, options_.maxConcurrency);
    options_.maxReady = std::max<size_t>(1, options_.maxReady);
    workers_.reserve(static_cast<size_t>(options_.concurrency));
    for (int i = 0; i < options_.concurrency; ++i) workers_.emplace_back([this] { work(); });
    counters_.workers = options_.concurrency;
}

void S3Fetcher::growLocked() {
    if (stopping_ || busy_ < static_cast<int>(workers_.size()) || queue_.empty() || static_cast<int>(workers_.size()) >= options_.maxConcurrency) return;
    workers_.emplace_back([this] { work(); });
    counters_.workers = static_cast<int64_t>(workers_.size());
}

S3Fetcher::~S3Fetcher() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    work_.notify_all();
    for (std::thread& t : workers_) t.join();
}

std::string S3Fetcher::id(const Request& r) const {
    std::string out = client_.endpoint + "|" + bucket_ + "|" + r.key + "|" + r.version;
    if (r.length > 0) out += "|" + std::to_string(r.offset) + "+" + std::to_string(r.length);
    return out;
}

void S3Fetcher::work() {
    S3Client client(bucket_, client_, credentials_);  // this thread's own connection
    int retriesSeen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
        work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        const std::string id = std::move(queue_.front());
        queue_.pop_front();
        const auto it = items_.find(id);
        if (it == items_.end() || it->second.state != State::Queued) continue;  // stale: already taken
        it->second.state = State::InFlight;
        const Request request = it->second.request;
        ++counters_.requests;
        ++busy_;
        lock.unlock();
        std::string bytes;
        std::exception_ptr error;
        try {
            bytes = request.length > 0 ? client.getRange(request.key, request.offset, request.length) : client.get(request.key);
            if (options_.cache && request.cacheable) options_.cache->put(id, bytes);
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        --busy_;
        counters_.retries += client.retries() - retriesSeen;
        retriesSeen = client.retries();
        counters_.bytes += static_cast<int64_t>(bytes.size());
        Item& item = items_.at(id);  // in flight: nobody erases it
        item.state = error ? State::Failed : State::Ready;
        item.bytes = std::move(bytes);
        item.error = error;
        readyOrder_.push_back(id);
        ++ready_;
        trimReadyLocked();
        done_.notify_all();
    }
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

std::string S3Fetcher::take(std::unordered_map<std::string, Item>::iterator it, std::unique_lock<std::mutex>&) {
    Item& item = it->second;
    if (item.state == State::Failed) {
        const std::exception_ptr error = item.error;
        if (item.waiters == 0) {
            items_.erase(it);
            --ready_;
        }
        std::rethrow_exception(error);
    }
    if (item.waiters > 0) return item.bytes;  // another get() waits for the same object
    std::string bytes = std::move(item.bytes);
    items_.erase(it);
    --ready_;
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
        work_.notify_one();
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
            if (items_.count(key)) continue;
            items_.emplace(key, Item{*r, State::Queued, {}, nullptr, 0});
            queue_.push_back(std::move(key));
            ++added;
        }
    }
    if (added == 1)
        work_.notify_one();
    else if (added > 1)
        work_.notify_all();
}

S3Fetcher::Counters S3Fetcher::counters() const {
    std::lock_guard lock(mutex_);
    return counters_;
}

}  // namespace streetgan::s3
