#include "ml/export/SessionExporter.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include <ATen/ATen.h>

#include "base/util/BuildFeatures.h"
#include "base/util/Errors.h"
#include "ml/export/GifWriter.h"
#include "ml/export/ImageGrid.h"
#include "ml/export/Mp4Writer.h"
#include "ml/export/PngSequenceWriter.h"
#include "ml/latent/PcaDirections.h"
#include "ml/latent/SessionLatents.h"

namespace streetgan {
namespace fs = std::filesystem;

namespace {

// An output file must be creatable: its folder exists and is writable, and it is not a folder.
void checkFileWritable(const std::string& out) {
    const fs::path parent = fs::path(out).parent_path().empty() ? fs::path(".") : fs::path(out).parent_path();
    std::error_code ec;
    if (!fs::is_directory(parent, ec)) throw IoError("cannot write '" + out + "': the folder '" + parent.string() + "' does not exist; create it first");
    if (::access(parent.c_str(), W_OK | X_OK) != 0) throw IoError("cannot write '" + out + "': " + std::strerror(errno) + "; choose another output path");
    if (fs::is_directory(out, ec)) throw IoError("cannot write '" + out + "': it is a folder; choose a file name");
    if (fs::exists(out, ec) && ::access(out.c_str(), W_OK) != 0)
        throw IoError("cannot write '" + out + "': the existing file is read-only; choose another output path");
}

bool cancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

}  // namespace

SessionExporter::Kind SessionExporter::kindOf(const std::string& out) {
    if (const auto kind = ExportFormat::forPath(out)) return *kind;
    throw ConfigError("--out '" + out + "' has the extension '" + fs::path(out).extension().string() + "'; use " + ExportFormat::choices());
}

void SessionExporter::checkOutput(const LatentSession& session, const std::string& out) {
    const Kind kind = kindOf(out);
    const ExportFormat::Spec& spec = ExportFormat::of(kind);
    if (spec.needsMp4 && !BuildFeatures::kMp4) BuildFeatures::missing(std::string(spec.name) + " export to '" + out + "'", BuildFeatures::Feature::Mp4);
    if (kind == Kind::PngSequence)
        PngSequenceWriter::checkWritable(out);
    else
        checkFileWritable(out);
    if (kind == Kind::Mp4 && session.size % 2 != 0)
        throw ConfigError("session key 'size' is " + std::to_string(session.size) + " but MP4 (yuv420p) needs an even size; use " +
                          std::to_string(session.size + 1));
}

at::Tensor SessionExporter::latents(const LatentSession& session, const Generator& g, const std::string& checkpointSha256, const std::string& pcaCacheDir) {
    const int64_t nz = g->config().nz;
    if (session.directions.empty()) return SessionLatents::latents(session, nz, nullptr);
    const PcaDirections::Options po = SessionLatents::pcaOptions(session);
    if (po.components > nz)
        throw ConfigError("session key 'pca_components' is " + std::to_string(po.components) + " but the generator has nz=" + std::to_string(nz));
    const PcaDirections pca = PcaDirections::cached(g, checkpointSha256, po, pcaCacheDir);
    return SessionLatents::latents(session, nz, &pca);
}

FrameRenderer::Options SessionExporter::rendererOptions(const LatentSession& session) {
    FrameRenderer::Options ro;
    ro.size = session.size;
    ro.upscale = session.upscale == LatentSession::Upscale::Nearest ? FrameRenderer::Upscale::Nearest : FrameRenderer::Upscale::Smooth;
    return ro;
}

at::Tensor SessionExporter::frames(const LatentSession& session, const Generator& g, const std::string& checkpointSha256, const FrameProgress& progress,
                                   const std::atomic<bool>* cancel, const std::string& pcaCacheDir) {
    const at::Tensor z = latents(session, g, checkpointSha256, pcaCacheDir);
    return FrameRenderer(g, rendererOptions(session)).render(z, progress, cancel);
}

SessionExporter::Result SessionExporter::write(const at::Tensor& framesHwc, const LatentSession& session, const std::string& out, const FrameProgress& progress,
                                               const std::atomic<bool>* cancel) {
    const auto t0 = std::chrono::steady_clock::now();
    const Kind kind = kindOf(out);
    const int64_t n = framesHwc.size(0);
    Result r;
    r.out = out;
    r.frames = n;
    r.size = static_cast<int>(framesHwc.size(1));
    switch (kind) {
        case Kind::Gif: {
            GifOptions go;
            go.frameDelayMs = session.frameDelayMs;
            go.loopCount = session.gifLoopCount;
            go.palette = session.gifPerFramePalette ? GifOptions::Palette::PerFrame : GifOptions::Palette::Global;
            go.dithering = session.gifDithering;
            go.speed = session.gifSpeed;
            GifProgress gp;
            if (progress) gp = [&progress](int done, int total) { progress(done, total); };
            try {
                GifWriter(go).write(framesHwc, out, gp, cancel);
            } catch (const GifCancelled& e) {
                throw RenderCancelled(e.what());  // one cancellation type for every output kind
            }
            r.what = ExportFormat::of(kind).name;
            break;
        }
        case Kind::PngGrid: {
            if (cancelled(cancel)) throw RenderCancelled("rendering was cancelled");
            const at::Tensor chw = framesHwc.permute({0, 3, 1, 2}).to(at::kFloat).div(255.0);
            ImageGrid::writePng(ImageGrid::makeGrid(chw, session.nrow, session.padding, false), out);
            if (progress) progress(n, n);
            r.what = ExportFormat::of(kind).name;
            break;
        }
        case Kind::Mp4: {
#if STREETGAN_WITH_MP4
            Mp4Options mo;
            mo.frameDelayMs = session.frameDelayMs;
            const Mp4Writer writer(mo);
            writer.write(framesHwc, out, progress, cancel);
            r.what = "MP4 (" + writer.encoderName() + ")";
#else
            BuildFeatures::missing("MP4 export to '" + out + "'", BuildFeatures::Feature::Mp4);
#endif
            break;
        }
        case Kind::PngSequence:
            PngSequenceWriter::write(framesHwc, out, progress, cancel);
            r.what = ExportFormat::of(kind).name;
            break;
    }
    std::error_code ec;
    if (kind == Kind::PngSequence) {
        for (const auto& e : fs::directory_iterator(out, ec)) r.bytes += e.file_size(ec);
    } else {
        r.bytes = fs::file_size(out, ec);
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

SessionExporter::Result SessionExporter::exportSession(const LatentSession& session, const Generator& g, const std::string& checkpointSha256,
                                                       const std::string& out, const FrameProgress& progress, const std::atomic<bool>* cancel,
                                                       const std::string& pcaCacheDir) {
    const auto t0 = std::chrono::steady_clock::now();
    checkOutput(session, out);
    FrameProgress renderProgress, writeProgress;
    if (progress) {
        renderProgress = [&progress](int64_t done, int64_t total) { progress(done, 2 * total); };
        writeProgress = [&progress](int64_t done, int64_t total) { progress(total + done, 2 * total); };
    }
    const at::Tensor f = frames(session, g, checkpointSha256, renderProgress, cancel, pcaCacheDir);
    Result r = write(f, session, out, writeProgress, cancel);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace streetgan
