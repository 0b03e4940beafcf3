#include "ml/export/PngSequenceWriter.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <ATen/ATen.h>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "base/util/PngEncoder.h"
#include "ml/export/ExportWriter.h"

namespace streetgan {
namespace fs = std::filesystem;

namespace {

fs::path parentOf(const std::string& dir) {
    fs::path p = fs::path(dir);
    if (!p.has_filename()) p = p.parent_path();  // "out/" -> "out"
    fs::path parent = p.parent_path();
    return parent.empty() ? fs::path(".") : parent;
}

void fsyncDir(const fs::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

}  // namespace

std::string PngSequenceWriter::fileName(int64_t index, int64_t total) {
    int digits = 4;
    for (int64_t t = 10000; total > t; t *= 10) ++digits;
    char buf[64];
    std::snprintf(buf, sizeof buf, "frame_%0*lld.png", digits, static_cast<long long>(index));
    return buf;
}

void PngSequenceWriter::checkWritable(const std::string& dir) {
    std::error_code ec;
    const fs::path parent = parentOf(dir);
    if (!fs::is_directory(parent, ec)) throw IoError("PNG sequence: the folder '" + parent.string() + "' for '" + dir + "' does not exist; create it first");
    if (::access(parent.c_str(), W_OK | X_OK) != 0)
        throw IoError("PNG sequence: cannot write into '" + parent.string() + "' (" + std::strerror(errno) + "); choose another output folder");
    if (fs::exists(dir, ec)) {
        if (!fs::is_directory(dir, ec)) throw IoError("PNG sequence: '" + dir + "' exists and is not a folder; choose another output");
        if (!fs::is_empty(dir, ec)) throw IoError("PNG sequence: the folder '" + dir + "' is not empty; choose a new folder or empty it");
    }
}

void PngSequenceWriter::write(const at::Tensor& framesHwc, const std::string& dir, const FrameProgress& progress, const std::atomic<bool>* cancel) {
    if (!framesHwc.defined() || framesHwc.dim() != 4 || framesHwc.size(3) != 3 || framesHwc.scalar_type() != at::kByte || framesHwc.size(0) < 1 ||
        !framesHwc.device().is_cpu())
        throw DataError("PNG sequence: expected uint8 frames (N, H, W, 3) on the CPU");
    checkWritable(dir);
    fs::path target = fs::path(dir);
    if (!target.has_filename()) target = target.parent_path();
    const fs::path parent = parentOf(dir);
    std::string pattern = (parent / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    if (!::mkdtemp(pattern.data())) throw IoError("PNG sequence: cannot create a temporary folder in '" + parent.string() + "': " + std::strerror(errno));
    const fs::path tmp = pattern;
    try {
        const at::Tensor src = framesHwc.contiguous();
        const int64_t n = src.size(0);
        const int h = static_cast<int>(src.size(1)), w = static_cast<int>(src.size(2));
        for (int64_t i = 0; i < n; ++i) {
            if (cancel && cancel->load(std::memory_order_relaxed)) throw RenderCancelled("PNG sequence export was cancelled");
            AtomicFile::write((tmp / fileName(i, n)).string(), PngEncoder::encode(src[i].data_ptr<uint8_t>(), w, h, 3));
            if (progress) progress(i + 1, n);
        }
        if (cancel && cancel->load(std::memory_order_relaxed)) throw RenderCancelled("PNG sequence export was cancelled");
        ::chmod(tmp.c_str(), 0755);  // mkdtemp makes 0700; an export folder is an ordinary folder
        // rename(2) replaces an empty directory atomically; a non-empty one fails (ENOTEMPTY).
        if (::rename(tmp.c_str(), target.c_str()) != 0) throw IoError("PNG sequence: cannot move the frames into '" + dir + "': " + std::strerror(errno));
        fsyncDir(parent);
    } catch (...) {
        std::error_code ec;
        fs::remove_all(tmp, ec);
        throw;
    }
}

// The PNG sequence row of ExportFormat: a folder of frames, refused up front unless it is empty
// or new and writable.
const ExportWriter& exportWriterPngSequence() {
    static const ExportWriter writer{
        ExportFormat::Kind::PngSequence, [](const LatentSession&, const std::string& out) { PngSequenceWriter::checkWritable(out); },
        [](const at::Tensor& framesHwc, const LatentSession&, const std::string& out, const FrameProgress& progress, const std::atomic<bool>* cancel) {
            PngSequenceWriter::write(framesHwc, out, progress, cancel);
            return std::string(ExportFormat::of(ExportFormat::Kind::PngSequence).name);
        }};
    return writer;
}

}  // namespace streetgan
