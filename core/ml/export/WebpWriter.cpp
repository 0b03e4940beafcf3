// Animated WebP export through libwebp's WebPAnimEncoder (libwebpmux): the WebP row of ExportFormat
// and its writer, registered by STREETGAN_EXPORT_WRITERS where the build found libwebpmux (no
// header: nothing else calls it; ExportWriter::find dispatches to it).
// Input: uint8 RGB frames, channels last, on the CPU (N, H, W, 3), N >= 1, H and W in 1..16383.
// Lossy (VP8) at quality 90, method 4: on the demo walk a file about a quarter of the GIF's size at
// equal PSNR (bench/bench_render.sh, part webp). Timing: every frame shows for the session's
// frame delay in milliseconds (WebP stores milliseconds: no rounding, unlike GIF's centiseconds).
// Looping: the session's gif_loop_count (0 forever). libwebp stores each frame as the rectangle
// that changed, and identical consecutive frames as one frame shown for their summed time: a
// decoder may count fewer frames, never a different playing time (frames all alike make a still
// WebP: libwebp drops the animation chunk for a single frame).
// The file is written atomically (AtomicFile): on an error or cancellation nothing is left behind
// and an existing file is untouched.
//
// Thread contract: immutable after construction; write() may run concurrently on one instance.
// Progress runs on the calling thread after each frame; `cancel` is polled before each frame and
// before the file is assembled (RenderCancelled).
#include <cstdint>
#include <filesystem>
#include <memory>

#include <ATen/ATen.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "ml/export/ExportWriter.h"
#include "ml/util/ShapeText.h"

namespace streetgan {
namespace {

constexpr int kMaxDelayMs = (1 << 24) - 1;  // an ANMF frame's duration is 24 bits

struct EncoderDeleter {
    void operator()(WebPAnimEncoder* e) const { WebPAnimEncoderDelete(e); }
};
using Encoder = std::unique_ptr<WebPAnimEncoder, EncoderDeleter>;

// A WebPPicture freed however the scope is left.
class Picture {
public:
    Picture() {
        if (!WebPPictureInit(&pic_)) throw IoError("WebP encoder: this libwebp's encoder has another ABI version; reinstall libwebp");
    }
    ~Picture() { WebPPictureFree(&pic_); }
    Picture(const Picture&) = delete;
    Picture& operator=(const Picture&) = delete;
    WebPPicture* get() { return &pic_; }

private:
    WebPPicture pic_;
};

}  // namespace

class WebpWriter {
public:
    WebpWriter(int frameDelayMs, int loopCount) : frameDelayMs_(frameDelayMs), loopCount_(loopCount) {
        if (frameDelayMs < 1 || frameDelayMs > kMaxDelayMs)
            throw ConfigError("session key 'frame_delay_ms' is " + std::to_string(frameDelayMs) + " but WebP needs 1.." + std::to_string(kMaxDelayMs));
        if (loopCount < 0 || loopCount > 65535)
            throw ConfigError("session key 'gif_loop_count' is " + std::to_string(loopCount) + " but WebP needs 0..65535 (0 = forever)");
    }

    void write(const at::Tensor& framesHwc, const std::string& path, const FrameProgress& progress, const std::atomic<bool>* cancel) const {
        // The folder first: a missing one is found before the frames are encoded.
        namespace fs = std::filesystem;
        const fs::path parent = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
        std::error_code ec;
        if (!fs::is_directory(parent, ec))
            throw IoError("WebP: cannot write '" + path + "': the folder '" + parent.string() + "' does not exist; create it first or choose another path");
        AtomicFile::write(path, encode(framesHwc, progress, cancel));
    }

private:
    std::string encode(const at::Tensor& framesHwc, const FrameProgress& progress, const std::atomic<bool>* cancel) const {
        checkFrames(framesHwc);
        const int64_t n = framesHwc.size(0), h = framesHwc.size(1), w = framesHwc.size(2);
        auto throwIfCancelled = [&] {
            if (cancel && cancel->load(std::memory_order_relaxed)) throw RenderCancelled("WebP export was cancelled");
        };
        WebPAnimEncoderOptions eo;
        if (!WebPAnimEncoderOptionsInit(&eo)) throw IoError("WebP encoder: this libwebpmux has another ABI version; reinstall libwebpmux");
        eo.anim_params.loop_count = loopCount_;
        eo.anim_params.bgcolor = 0xff000000;  // opaque black (ARGB); every frame covers the canvas
        const Encoder enc(WebPAnimEncoderNew(static_cast<int>(w), static_cast<int>(h), &eo));
        if (!enc) throw IoError("WebP encoder: libwebp could not start (out of memory)");
        auto encoderError = [&](const char* what) {
            return IoError(std::string("WebP encoder: libwebp failed to ") + what + ": " + WebPAnimEncoderGetError(enc.get()));
        };
        WebPConfig config;
        if (!WebPConfigInit(&config)) throw IoError("WebP encoder: this libwebp's encoder has another ABI version; reinstall libwebp");
        config.quality = 90;  // lossy VP8: a quarter of the GIF at equal PSNR on the demo walk
        config.method = 4;    // libwebp's default speed/size balance (0 fastest .. 6 smallest)
        const at::Tensor src = framesHwc.contiguous();
        int timestamp = 0;
        for (int64_t i = 0; i < n; ++i) {
            throwIfCancelled();
            Picture pic;
            pic.get()->use_argb = 1;  // what the animation encoder works in (it compares frames in ARGB)
            pic.get()->width = static_cast<int>(w);
            pic.get()->height = static_cast<int>(h);
            if (!WebPPictureImportRGB(pic.get(), src[i].data_ptr<uint8_t>(), static_cast<int>(w) * 3))
                throw IoError("WebP encoder: libwebp failed to import frame " + std::to_string(i) + " (out of memory)");
            if (!WebPAnimEncoderAdd(enc.get(), pic.get(), timestamp, &config)) throw encoderError("encode a frame");
            timestamp += frameDelayMs_;
            if (progress) progress(i + 1, n);
        }
        throwIfCancelled();
        // The end timestamp gives the last frame its duration.
        if (!WebPAnimEncoderAdd(enc.get(), nullptr, timestamp, nullptr)) throw encoderError("finish the frames");
        WebPData data;
        WebPDataInit(&data);
        if (!WebPAnimEncoderAssemble(enc.get(), &data)) throw encoderError("assemble the file");
        std::string out(reinterpret_cast<const char*>(data.bytes), data.size);
        WebPDataClear(&data);
        return out;
    }

    void checkFrames(const at::Tensor& f) const {
        if (!f.defined() || f.dim() != 4 || f.size(3) != 3 || f.scalar_type() != at::kByte || !f.device().is_cpu() || f.size(0) < 1)
            throw DataError("WebP encoder: expected uint8 RGB frames (N, H, W, 3) on the CPU, got " + (f.defined() ? shapeText(f) : std::string("none")));
        if (f.size(1) < 1 || f.size(2) < 1 || f.size(1) > WEBP_MAX_DIMENSION || f.size(2) > WEBP_MAX_DIMENSION)
            throw DataError("WebP encoder: frames " + shapeText(f) + " are outside WebP's 1.." + std::to_string(WEBP_MAX_DIMENSION) +
                            "-pixel edge; export another size");
        if (static_cast<int64_t>(frameDelayMs_) * f.size(0) > static_cast<int64_t>(INT32_MAX))
            throw DataError("WebP encoder: " + std::to_string(f.size(0)) + " frames of " + std::to_string(frameDelayMs_) +
                            " ms exceed WebP's timestamps (2^31 ms)");
    }

    int frameDelayMs_, loopCount_;
};

const ExportWriter& exportWriterWebp() {
    static const ExportWriter writer{
        ExportFormat::Kind::Webp, [](const LatentSession& session, const std::string&) { WebpWriter(session.frameDelayMs, session.gifLoopCount); },
        [](const at::Tensor& framesHwc, const LatentSession& session, const std::string& out, const FrameProgress& progress, const std::atomic<bool>* cancel) {
            WebpWriter(session.frameDelayMs, session.gifLoopCount).write(framesHwc, out, progress, cancel);
            return std::string(ExportFormat::of(ExportFormat::Kind::Webp).name);
        }};
    return writer;
}

}  // namespace streetgan
