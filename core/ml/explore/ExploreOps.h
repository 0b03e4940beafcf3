// The operations of the explore worker (docs/explore-worker.md, "Ops"), one request at a time:
// open, frames, latents, pca, export, evolution, session, seed-z. Framing, ids, queueing and
// cancellation requests are ExploreWorker's; this class turns one parsed request into the fields of
// its final reply and an optional image payload, with the same code `streetgan-trainer render` uses
// (SessionExporter, FrameRenderer, LatentSession), so `frames` are render's bytes on one device.
//
// Images in payloads: uint8 (N, H, W, 3) RGB, contiguous on the CPU (the reply carries "frames",
// "width", "height").
//
// Thread contract: one thread (the worker's render thread) calls run(); it owns the generator cache.
// `cancel` is polled between frames (RenderCancelled); `progress` runs on the calling thread.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include "ml/explore/GeneratorCache.h"

namespace streetgan {

struct ExploreReply {
    nlohmann::json fields = nlohmann::json::object();  ///< the op's reply fields (no id, no ok)
    at::Tensor payload;                                ///< uint8 images (N, H, W, 3) or undefined
};

class ExploreOps {
public:
    using Progress = std::function<void(int64_t done, int64_t total)>;

    /// `pcaCacheDir`: PcaDirections' cache folder ("" = its default).
    ExploreOps(c10::Device device, std::string pcaCacheDir = "", size_t cacheCapacity = 4, GeneratorChoice generator = GeneratorChoice::Default);

    /// True for the ops run() knows (cancel and quit are the worker's).
    static bool knows(const std::string& op);

    /// Runs `request` ("op" and its fields). Throws ConfigError naming a missing or bad field,
    /// the errors of the code it calls (IoError, CheckpointError, DataError...), RenderCancelled.
    ExploreReply run(const nlohmann::json& request, const std::atomic<bool>& cancel, const Progress& progress);

    const GeneratorCache& cache() const { return cache_; }

private:
    ExploreReply open(const nlohmann::json& r);
    ExploreReply frames(const nlohmann::json& r, const std::atomic<bool>& cancel, const Progress& progress);
    ExploreReply latents(const nlohmann::json& r, const std::atomic<bool>& cancel);
    ExploreReply pca(const nlohmann::json& r);
    ExploreReply exportSession(const nlohmann::json& r, const std::atomic<bool>& cancel, const Progress& progress);
    ExploreReply evolution(const nlohmann::json& r, const std::atomic<bool>& cancel, const Progress& progress);
    static ExploreReply session(const nlohmann::json& r);
    static ExploreReply seedZ(const nlohmann::json& r);

    GeneratorCache cache_;
    std::string pcaCacheDir_;
    // The last session's latents (the scrubber asks for one frame of the same walk at a time; the
    // whole walk's SLERP is most of a small frame's cost): key = checkpoint hash + session JSON.
    std::string latentsKey_;
    at::Tensor latents_;
};

}  // namespace streetgan
