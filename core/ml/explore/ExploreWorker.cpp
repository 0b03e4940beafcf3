#include "ml/explore/ExploreWorker.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include "base/util/Errors.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/FrameRenderer.h"
#include "ml/util/DeviceChoice.h"

namespace streetgan {
using nlohmann::json;

namespace {

constexpr size_t kMaxLine = 64u << 20;  // a request of 4096 explicit z vectors of nz 4096 still fits

bool writeAll(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

std::string firstLine(std::string s) {
    const auto nl = s.find('\n');
    if (nl != std::string::npos) s.resize(nl);
    return s;
}

}  // namespace

ExploreWorker::ExploreWorker(int inFd, int outFd, Options options) : inFd_(inFd), outFd_(outFd), options_(std::move(options)) {
    if (options_.threads > 0) at::set_num_threads(options_.threads);
    ops_ = std::make_unique<ExploreOps>(DeviceChoice::select(options_.device), options_.pcaCacheDir, options_.generators,
                                        ModelLoader::parseChoice(options_.generator), options_.precision);
}

ExploreWorker::~ExploreWorker() = default;

bool ExploreWorker::reply(json header, const at::Tensor& payload) {
    if (outputGone_.load()) return false;
    // "bytes" is the framing key; an op's own byte counts are named otherwise (file_bytes).
    if (payload.defined())
        header["bytes"] = payload.numel();
    else
        header.erase("bytes");
    const std::string line = header.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::lock_guard<std::mutex> lock(writeMutex_);
    bool ok = writeAll(outFd_, line.data(), line.size());
    if (ok && payload.defined() && payload.numel() > 0)
        ok = writeAll(outFd_, static_cast<const char*>(payload.data_ptr()), static_cast<size_t>(payload.numel()));
    if (!ok) outputGone_ = true;
    return ok;
}

void ExploreWorker::fail(int64_t id, const std::string& error, bool cancelled) {
    json h{{"id", id}, {"ok", false}, {"error", firstLine(error)}};
    if (cancelled) h["cancelled"] = true;
    reply(std::move(h));
}

int ExploreWorker::run() {
    std::thread renderer([this] { renderLoop(); });
    std::string buffer;
    char chunk[65536];
    bool quit = false;
    while (!quit && !outputGone_.load()) {
        const ssize_t n = ::read(inFd_, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // EOF (or a broken input): finish what is queued
        buffer.append(chunk, static_cast<size_t>(n));
        size_t start = 0;
        for (size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
            std::string line = buffer.substr(start, nl - start);
            if (line.find("\"quit\"") != std::string::npos) {
                // Cheap pre-check; the parsed op decides.
                const json j = json::parse(line, nullptr, false);
                if (j.is_object() && j.value("op", json()).is_string() && j["op"] == "quit") {
                    quit = true;
                    std::lock_guard<std::mutex> lock(queueMutex_);
                    for (auto& [id, flag] : live_) *flag = true;
                    break;
                }
            }
            handleLine(line);
        }
        buffer.erase(0, start);
        if (buffer.size() > kMaxLine) {
            fail(-1, "request line longer than " + std::to_string(kMaxLine >> 20) + " MiB; send smaller requests");
            buffer.clear();  // the rest of that line is dropped up to its newline below
            for (;;) {
                const ssize_t m = ::read(inFd_, chunk, sizeof chunk);
                if (m < 0 && errno == EINTR) continue;
                if (m <= 0) break;
                const char* nl = static_cast<const char*>(memchr(chunk, '\n', static_cast<size_t>(m)));
                if (nl) {
                    buffer.assign(nl + 1, static_cast<size_t>(chunk + m - (nl + 1)));
                    break;
                }
            }
        }
    }
    {
        std::lock_guard<std::mutex> lock(queueMutex_);
        inputDone_ = true;
    }
    queueCv_.notify_all();
    renderer.join();
    return 0;
}

void ExploreWorker::handleLine(const std::string& raw) {
    std::string line = raw;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) return;
    json j;
    try {
        j = json::parse(line);
    } catch (const json::exception& e) {
        fail(-1, std::string("request line is not JSON (") + e.what() + "); send one JSON object per line");
        return;
    }
    if (!j.is_object()) return fail(-1, "request is not a JSON object; send {\"id\":N,\"op\":...}");
    const auto idIt = j.find("id");
    if (idIt == j.end() || !idIt->is_number_integer()) return fail(-1, "request has no integer 'id'; give every request a unique integer id");
    const int64_t id = idIt->get<int64_t>();
    const auto opIt = j.find("op");
    if (opIt == j.end() || !opIt->is_string()) return fail(id, "request field 'op' is missing; see docs/explore-worker.md for the ops");
    const std::string op = opIt->get<std::string>();
    if (op == "cancel") {
        const auto t = j.find("target");
        if (t == j.end() || !t->is_number_integer()) return fail(id, "request field 'target' must be the integer id of the request to cancel");
        bool found = false;
        {
            std::lock_guard<std::mutex> lock(queueMutex_);
            const auto it = live_.find(t->get<int64_t>());
            if (it != live_.end()) {
                *it->second = true;
                found = true;
            }
        }
        reply({{"id", id}, {"ok", true}, {"found", found}});
        return;
    }
    if (!ExploreOps::knows(op))
        return fail(id,
                    "request field 'op' is '" + op + "', which is unknown; use open, frames, latents, pca, export, evolution, session, seed-z, cancel or quit");
    Job job{id, std::move(j), std::make_shared<std::atomic<bool>>(false)};
    bool inUse = false;  // not job.id = -2 as a flag: job is moved from when queued, and -2 is a valid id
    {
        std::lock_guard<std::mutex> lock(queueMutex_);
        if (live_.count(id)) {
            // Answered here, out of order: the id is ambiguous, so the reply names the problem.
            inUse = true;
        } else {
            live_[id] = job.cancel;
            queue_.push_back(std::move(job));
        }
    }
    if (inUse) return fail(id, "request id " + std::to_string(id) + " is still in use by a queued or running request; use a new id");
    queueCv_.notify_one();
}

void ExploreWorker::renderLoop() {
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(queueMutex_);
            queueCv_.wait(lock, [this] { return !queue_.empty() || inputDone_; });
            if (queue_.empty()) return;
            job = std::move(queue_.front());
            queue_.pop_front();
        }
        runJob(job);
        std::lock_guard<std::mutex> lock(queueMutex_);
        live_.erase(job.id);
    }
}

void ExploreWorker::runJob(const Job& job) {
    if (job.cancel->load() || outputGone_.load()) return fail(job.id, "cancelled", true);
    // Progress headers at most every 50 ms (and the last one), so a fast export does not flood the pipe.
    auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    auto progress = [&](int64_t done, int64_t total) {
        const auto now = std::chrono::steady_clock::now();
        if (done < total && now - last < std::chrono::milliseconds(50)) return;
        last = now;
        reply({{"id", job.id}, {"progress", {done, total}}});
    };
    try {
        ExploreReply r = ops_->run(job.request, *job.cancel, progress);
        json h = std::move(r.fields);
        h["id"] = job.id;
        h["ok"] = true;
        reply(std::move(h), r.payload);
    } catch (const RenderCancelled&) {
        fail(job.id, "cancelled", true);
    } catch (const c10::Error& e) {
        fail(job.id, std::string("internal LibTorch error: ") + e.what_without_backtrace());
    } catch (const std::exception& e) {
        fail(job.id, e.what());
    }
}

}  // namespace streetgan
