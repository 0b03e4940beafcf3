// A latent-walk session (latent/LatentSession.h) rendered and written to one output, the logic of
// `streetgan-trainer render` and of the explore worker's `export` op. The output's extension picks
// its ExportFormat row, and that row's writer (ExportWriter: GIF, PNG grid, MP4, PNG sequence...)
// writes it; a format this build left out is one line naming the build option.
// frames() is the single definition of "the session's frames": session.latents (PCA directions
// through PcaDirections::cached when the session has edits) -> FrameRenderer at the session's size
// and upscale. Every output is written atomically by its writer: on an error or cancellation
// nothing is left at `out` (an existing file there is untouched).
//
// Thread contract: static functions; they run the generator, so one thread per Generator at a time
// (LibTorch modules are not thread-safe). `progress` runs on the calling thread; `cancel` is
// polled between frames (RenderCancelled).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include <ATen/core/Tensor.h>

#include "base/latent/ExportFormat.h"
#include "base/latent/LatentSession.h"
#include "ml/export/FrameRenderer.h"
#include "ml/model/Generator.h"

namespace streetgan {

class SessionExporter {
public:
    using Kind = ExportFormat::Kind;  // the formats are ExportFormat's table

    struct Result {
        std::string out;
        std::string what;  ///< "GIF", "PNG grid", "MP4 (libx264)", "PNG sequence"
        int64_t frames = 0;
        int size = 0;         ///< frame edge in pixels
        uintmax_t bytes = 0;  ///< file size, or the sum over the folder's files
        double seconds = 0;   ///< render + encode + write
    };

    /// The output kind of `out` by its extension; ConfigError for another extension.
    static Kind kindOf(const std::string& out);
    /// Refuses an unusable output before any work: a folder that is missing or not writable, a
    /// non-empty PNG-sequence folder (IoError), an odd size for MP4 (ConfigError naming 'size').
    static void checkOutput(const LatentSession& session, const std::string& out);

    /// The generator input of the session: float32 (N, nz, 1, 1) on the CPU. `checkpointSha256`
    /// keys the PCA cache (only used when the session has direction edits; `pcaCacheDir` empty:
    /// PcaDirections' default). ConfigError when pca_components exceeds nz.
    static at::Tensor latents(const LatentSession& session, const Generator& g, const std::string& checkpointSha256, const std::string& pcaCacheDir = "");
    /// FrameRenderer options of the session (size, upscale).
    static FrameRenderer::Options rendererOptions(const LatentSession& session);
    /// All frames of the walk: uint8 (N, size, size, 3) on the CPU.
    static at::Tensor frames(const LatentSession& session, const Generator& g, const std::string& checkpointSha256, const FrameProgress& progress = {},
                             const std::atomic<bool>* cancel = nullptr, const std::string& pcaCacheDir = "");
    /// Writes rendered frames to `out` as kindOf(out) says. Progress counts frames encoded.
    static Result write(const at::Tensor& framesHwc, const LatentSession& session, const std::string& out, const FrameProgress& progress = {},
                        const std::atomic<bool>* cancel = nullptr);
    /// checkOutput, frames, write. Progress runs over 2N steps: N rendered, then N encoded.
    static Result exportSession(const LatentSession& session, const Generator& g, const std::string& checkpointSha256, const std::string& out,
                                const FrameProgress& progress = {}, const std::atomic<bool>* cancel = nullptr, const std::string& pcaCacheDir = "");
};

}  // namespace streetgan
