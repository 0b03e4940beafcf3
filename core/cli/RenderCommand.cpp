#include "cli/RenderCommand.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <torch/torch.h>

#include "eval/ContentHash.h"
#include "export/FrameRenderer.h"
#include "export/GifWriter.h"
#include "export/ImageGrid.h"
#include "export/Mp4Writer.h"
#include "export/PngSequenceWriter.h"
#include "latent/LatentSession.h"
#include "latent/PcaDirections.h"
#include "train/ModelLoader.h"
#include "train/Trainer.h"
#include "util/Errors.h"

namespace streetgan {
namespace fs = std::filesystem;

namespace {

enum class OutKind { Gif, Png, Mp4, Dir };

OutKind kindOf(const std::string& out) {
    std::string ext = fs::path(out).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext == ".gif") return OutKind::Gif;
    if (ext == ".png") return OutKind::Png;
    if (ext == ".mp4") return OutKind::Mp4;
    if (ext.empty() || out.back() == '/' || fs::is_directory(out)) return OutKind::Dir;
    throw ConfigError("--out '" + out + "' has the extension '" + ext + "'; use FILE.gif, FILE.png, FILE.mp4 or a folder for a PNG sequence");
}

// An output file must be creatable: its folder exists and is writable, and it is not a folder.
void checkFileWritable(const std::string& out) {
    const fs::path parent = fs::path(out).parent_path().empty() ? fs::path(".") : fs::path(out).parent_path();
    std::error_code ec;
    if (!fs::is_directory(parent, ec)) throw IoError("cannot write '" + out + "': the folder '" + parent.string() + "' does not exist; create it first");
    if (::access(parent.c_str(), W_OK | X_OK) != 0)
        throw IoError("cannot write '" + out + "': " + std::strerror(errno) + "; choose another output path");
    if (fs::is_directory(out, ec)) throw IoError("cannot write '" + out + "': it is a folder; choose a file name");
    if (fs::exists(out, ec) && ::access(out.c_str(), W_OK) != 0)
        throw IoError("cannot write '" + out + "': the existing file is read-only; choose another output path");
}

}  // namespace

CLI::App* RenderCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("render", "Render a latent-walk session to a GIF, PNG grid, MP4 or PNG sequence folder");
    a->add_option("--session", session_, "Session JSON file (CLI.md, \"Session file\")")->required();
    a->add_option("--checkpoint", checkpoint_, "Checkpoint to use instead of the session's");
    a->add_option("--out", out_, "FILE.gif | FILE.png (grid of all frames) | FILE.mp4 | DIR (PNG sequence)")->required();
    a->add_option("--device", device_, "cpu | cuda | auto");
    a->add_option("--threads", threads_, "Torch intra-op threads (0: default)")->check(CLI::Range(0, 1024));
    return a;
}

int RenderCommand::execute() {
    const auto t0 = std::chrono::steady_clock::now();
    if (threads_ > 0) torch::set_num_threads(threads_);
    const LatentSession session = LatentSession::read(session_);
    const OutKind kind = kindOf(out_);
    // Refuse unusable outputs before any work.
    if (kind == OutKind::Dir) PngSequenceWriter::checkWritable(out_);
    else checkFileWritable(out_);
    if (kind == OutKind::Mp4 && session.size % 2 != 0)
        throw ConfigError("session key 'size' is " + std::to_string(session.size) + " but MP4 (yuv420p) needs an even size; use " +
                          std::to_string(session.size + 1));

    const std::string ckPath = session.resolveCheckpoint(session_, checkpoint_);
    const CheckpointData ck = Checkpoint::load(ckPath);
    const std::string sha = ContentHash::sha256File(ckPath);
    if (const std::string w = session.hashWarning(ckPath, sha); !w.empty()) std::cerr << "streetgan-trainer: warning: " << w << "\n";
    const torch::Device device = Trainer::selectDevice(device_);
    Generator g = ModelLoader::generator(ck, ckPath, "", device);
    const int64_t nz = g->config().nz;

    PcaDirections pca;
    if (!session.directions.empty()) {
        PcaDirections::Options po = session.pcaOptions();
        if (po.components > nz)
            throw ConfigError("session key 'pca_components' is " + std::to_string(po.components) + " but the generator has nz=" + std::to_string(nz));
        pca = PcaDirections::cached(g, sha, po);
    }
    const at::Tensor z = session.latents(nz, session.directions.empty() ? nullptr : &pca);
    FrameRenderer::Options ro;
    ro.size = session.size;
    ro.upscale = session.upscale == LatentSession::Upscale::Nearest ? FrameRenderer::Upscale::Nearest : FrameRenderer::Upscale::Smooth;
    const FrameRenderer renderer(g, ro);
    const at::Tensor frames = renderer.render(z);
    const int64_t n = frames.size(0);

    std::string what;
    switch (kind) {
        case OutKind::Gif: {
            GifOptions go;
            go.frameDelayMs = session.frameDelayMs;
            go.loopCount = session.gifLoopCount;
            go.palette = session.gifPerFramePalette ? GifOptions::Palette::PerFrame : GifOptions::Palette::Global;
            go.dithering = session.gifDithering;
            go.speed = session.gifSpeed;
            GifWriter(go).write(frames, out_);
            what = "GIF";
            break;
        }
        case OutKind::Png: {
            const at::Tensor chw = frames.permute({0, 3, 1, 2}).to(at::kFloat).div(255.0);
            ImageGrid::writePng(ImageGrid::makeGrid(chw, session.nrow, session.padding, false), out_);
            what = "PNG grid";
            break;
        }
        case OutKind::Mp4: {
            Mp4Options mo;
            mo.frameDelayMs = session.frameDelayMs;
            const Mp4Writer writer(mo);
            writer.write(frames, out_);
            what = "MP4 (" + writer.encoderName() + ")";
            break;
        }
        case OutKind::Dir: PngSequenceWriter::write(frames, out_); what = "PNG sequence"; break;
    }
    uintmax_t bytes = 0;
    std::error_code ec;
    if (kind == OutKind::Dir) {
        for (const auto& e : fs::directory_iterator(out_, ec)) bytes += e.file_size(ec);
    } else {
        bytes = fs::file_size(out_, ec);
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "wrote " << out_ << ": " << what << ", " << n << " frames " << session.size << "x" << session.size << ", " << bytes << " bytes, "
              << std::fixed << std::setprecision(2) << secs << " s\n";
    return 0;
}

}  // namespace streetgan
