// One export format's writer, as the format's own file registers it: the adapter from a latent-walk
// session (its delay, loop count, palette...) to the encoder, and the session check the encoder
// needs before any work. The writers a build has are the ones core/ml/CMakeLists.txt lists in
// STREETGAN_EXPORT_WRITERS (a format whose library the build lacks is not listed); each listed
// NAME is a file defining `const ExportWriter& exportWriterNAME()`, and ExportWriter::find reads
// the generated list, so that SessionExporter and the export worker dispatch without naming one.
//
// Thread contract: the registry is immutable; find/available may run on any thread. A writer's
// functions have SessionExporter's contract (the calling thread; `cancel` polled per frame).
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "base/latent/ExportFormat.h"
#include "base/latent/LatentSession.h"
#include "ml/export/FrameRenderer.h"

namespace streetgan {

struct ExportWriter {
    ExportFormat::Kind kind;
    /// Refuses, before any rendering, an output or a session this format cannot write (IoError for
    /// an unusable folder, ConfigError naming the session key and a value that works); null when
    /// SessionExporter's own check (a file path that can be created) is all it needs.
    void (*check)(const LatentSession& session, const std::string& out);
    /// Writes uint8 (N, H, W, 3) frames to `out` atomically and returns what it wrote ("GIF",
    /// "MP4 (libx264)"). Progress counts frames encoded; RenderCancelled when `cancel` turns true.
    std::string (*write)(const at::Tensor& framesHwc, const LatentSession& session, const std::string& out, const FrameProgress& progress,
                         const std::atomic<bool>* cancel);

    /// The writer of `kind` in this build, or nullptr when the build left its format out.
    static const ExportWriter* find(ExportFormat::Kind kind);
    /// The kinds this build writes, in ExportFormat's order.
    static std::vector<ExportFormat::Kind> available();
};

}  // namespace streetgan
