// The operations of the explore worker (docs/explore-worker.md, "Ops"), one request at a time:
// open, frames, latents, pca, export, evolution, session, seed-z. Framing, ids, queueing and
// cancellation requests are ExploreWorker's; this class turns one parsed request into the fields of
// its final reply and an optional image payload, with the same code `streetgan-trainer render` uses
// (SessionExporter, FrameRenderer, LatentSession), so `frames` are render's bytes on one device.
//
// Images in payloads: uint8 (N, H, W, 3) RGB, contiguous on the CPU (the reply carries "frames",
// "width", "height").
//
// Interactive cost (issue 44 item 4): `frames` computes the latents of the frames it renders only
// (SessionLatents::latents over from..from+count, the same bits as the whole walk's rows), so a
// slider or keyframe edit costs the frames shown, not the walk; PCA directions are kept in memory
// per checkpoint and options. `frames` and `latents` render in the cache's preview precision
// (RenderPrecision: bfloat16 where it pays, "precision" in their replies); `export` and
// `evolution` always in float32 (render's bytes).
//
// Thread contract: one thread (the worker's render thread) calls run(); it owns the generator cache.
// `cancel` is polled between frames (RenderCancelled); `progress` runs on the calling thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include "base/latent/LatentSession.h"
#include "ml/explore/GeneratorCache.h"
#include "ml/latent/PcaDirections.h"

namespace streetgan {

struct ExploreReply {
    nlohmann::json fields = nlohmann::json::object();  ///< the op's reply fields (no id, no ok)
    at::Tensor payload;                                ///< uint8 images (N, H, W, 3) or undefined
};

class ExploreOps {
public:
    using Progress = std::function<void(int64_t done, int64_t total)>;

    /// `pcaCacheDir`: PcaDirections' cache folder ("" = its default).
    /// `precision`: of preview frames, "auto" | "bf16" | "fp32" (GeneratorCache, RenderPrecision).
    ExploreOps(c10::Device device, std::string pcaCacheDir = "", size_t cacheCapacity = 4, GeneratorChoice generator = GeneratorChoice::Default,
               std::string precision = "auto");

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

    /// The PCA directions of a session with direction edits (null without): PcaDirections::cached
    /// once per checkpoint hash and options, then from memory (a slider drag sends one request per
    /// step; reading the cache file each time would cost more than the frame's latents).
    const PcaDirections* pcaFor(const LatentSession& s, const LoadedGenerator& lg);

    GeneratorCache cache_;
    std::string pcaCacheDir_;
    std::string pcaKey_;
    std::unique_ptr<PcaDirections> pca_;
};

}  // namespace streetgan
