// The explore worker's request loop (docs/explore-worker.md): JSON request lines in on one file
// descriptor, reply headers (and binary image payloads) out on another.
//
// Two threads: run()'s caller reads and parses lines, answers `cancel` and malformed lines at once
// and queues the rest; one render thread runs the queued requests in order through ExploreOps and
// writes their progress and final replies. Writes are serialised (a header and its payload are never
// interleaved with another reply). `cancel` raises the target's flag: a queued target ends with
// "cancelled" without running, a running one at its next poll. EOF on the input lets the queued
// requests finish, then run() returns; `quit` cancels everything and returns at once. A reply that
// cannot be written (the reader went away) ends the worker too.
//
// The worker never writes anything but replies to `outFd` (diagnostics belong on stderr) and does
// not close the descriptors it was given. SIGPIPE must be ignored by the process (the command does
// it) so that a vanished client is a write error, not a signal.
//
// Thread contract: construct and call run() on one thread; run() blocks until the worker ends.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include "ml/explore/ExploreOps.h"

namespace streetgan {

class ExploreWorker {
public:
    struct Options {
        std::string device = "auto";     ///< auto | cpu | cuda (DeviceChoice::select)
        int threads = 0;                 ///< torch intra-op threads, 0 = LibTorch's default
        std::string pcaCacheDir;         ///< "" = PcaDirections' default cache folder
        size_t generators = 4;           ///< generators kept loaded (LRU)
        std::string generator;           ///< "ema" | "raw" | "" (G_ema where the checkpoint has one): ModelLoader
        std::string precision = "auto";  ///< of preview frames: auto | bf16 | fp32 (RenderPrecision)
    };

    /// Throws ConfigError for an unusable device.
    ExploreWorker(int inFd, int outFd, Options options);
    ~ExploreWorker();
    ExploreWorker(const ExploreWorker&) = delete;
    ExploreWorker& operator=(const ExploreWorker&) = delete;

    /// Serves requests until EOF, `quit` or a failed write; returns 0 (the process exit code).
    int run();

private:
    struct Job {
        int64_t id = -1;
        nlohmann::json request;
        std::shared_ptr<std::atomic<bool>> cancel;
    };

    void handleLine(const std::string& line);
    void renderLoop();
    void runJob(const Job& job);
    /// One header line (and `payload`'s bytes, uint8 contiguous, when defined); false once the
    /// output is gone.
    bool reply(nlohmann::json header, const at::Tensor& payload = {});
    void fail(int64_t id, const std::string& error, bool cancelled = false);

    int inFd_, outFd_;
    Options options_;
    std::unique_ptr<ExploreOps> ops_;  ///< used by the render thread only

    std::mutex writeMutex_;
    std::atomic<bool> outputGone_{false};

    std::mutex queueMutex_;
    std::condition_variable queueCv_;
    std::deque<Job> queue_;
    std::map<int64_t, std::shared_ptr<std::atomic<bool>>> live_;  ///< queued or running: id -> cancel flag
    bool inputDone_ = false;                                      ///< EOF or quit: the render thread ends when the queue is empty
};

}  // namespace streetgan
