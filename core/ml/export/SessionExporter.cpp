#include "ml/export/SessionExporter.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include <ATen/ATen.h>

#include "base/util/Errors.h"
#include "ml/export/ExportWriter.h"
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

}  // namespace

SessionExporter::Kind SessionExporter::kindOf(const std::string& out) {
    if (const auto kind = ExportFormat::forPath(out)) return *kind;
    throw ConfigError("--out '" + out + "' has the extension '" + fs::path(out).extension().string() + "'; use " + ExportFormat::choices());
}

void SessionExporter::checkOutput(const LatentSession& session, const std::string& out) {
    const Kind kind = kindOf(out);
    const ExportWriter* writer = ExportWriter::find(kind);
    if (!writer) ExportFormat::missing(kind, out, ExportWriter::available());
    if (*ExportFormat::of(kind).extension) checkFileWritable(out);  // a folder format's writer checks its folder
    if (writer->check) writer->check(session, out);
}

at::Tensor SessionExporter::latents(const LatentSession& session, const Generator& g, const std::string& checkpointSha256, const std::string& pcaCacheDir) {
    const int64_t nz = g->config().nz;
    if (session.directions.empty()) return SessionLatents::latents(session, nz, nullptr);
    const PcaDirections::Options po = SessionLatents::pcaOptions(session, nz);
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
    const ExportWriter* writer = ExportWriter::find(kind);
    if (!writer) ExportFormat::missing(kind, out, ExportWriter::available());
    r.what = writer->write(framesHwc, session, out, progress, cancel);
    std::error_code ec;
    if (!*ExportFormat::of(kind).extension) {
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
