#include "ml/export/WebpWriter.h"

#include <filesystem>
#include <memory>

#include <ATen/ATen.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "ml/util/ShapeText.h"

namespace streetgan {
namespace fs = std::filesystem;
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
        if (!WebPPictureInit(&pic_)) throw IoError("WebP encoder: this libwebp's encoder has another ABI version; reinstall libwebp7");
    }
    ~Picture() { WebPPictureFree(&pic_); }
    Picture(const Picture&) = delete;
    Picture& operator=(const Picture&) = delete;
    WebPPicture* get() { return &pic_; }

private:
    WebPPicture pic_;
};

// libwebp's picture error codes, for messages.
std::string pictureError(WebPEncodingError e) {
    switch (e) {
        case VP8_ENC_ERROR_OUT_OF_MEMORY:
        case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY:
            return "out of memory";
        case VP8_ENC_ERROR_BAD_DIMENSION:
            return "bad frame size";
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
        case VP8_ENC_ERROR_PARTITION_OVERFLOW:
            return "a frame is too large to encode at this quality";
        default:
            return "error " + std::to_string(static_cast<int>(e));
    }
}

}  // namespace

void WebpOptions::validate() const {
    auto bad = [](const std::string& what) { throw ConfigError("WebP options: " + what); };
    if (frameDelayMs < 1 || frameDelayMs > kMaxDelayMs)
        bad("frame delay must be within 1.." + std::to_string(kMaxDelayMs) + " ms (got " + std::to_string(frameDelayMs) + ")");
    if (loopCount < 0 || loopCount > 65535) bad("loop count must be within 0..65535 (0 = forever; got " + std::to_string(loopCount) + ")");
    if (quality < 0 || quality > 100) bad("quality must be within 0..100 (got " + std::to_string(quality) + ")");
    if (method < 0 || method > 6) bad("method must be within 0..6 (got " + std::to_string(method) + ")");
}

WebpWriter::WebpWriter(WebpOptions options) : options_(options) { options_.validate(); }

std::string WebpWriter::encode(const at::Tensor& framesHwc, const FrameProgress& progress, const std::atomic<bool>* cancel) const {
    if (!framesHwc.defined() || framesHwc.dim() != 4 || framesHwc.size(3) != 3)
        throw DataError("WebP encoder: expected frames shaped (N, H, W, 3), got " +
                        (framesHwc.defined() ? shapeText(framesHwc) : std::string("an undefined tensor")));
    if (framesHwc.scalar_type() != at::kByte) throw DataError("WebP encoder: expected uint8 RGB frames; convert generator output with GifWriter::fromImages");
    if (!framesHwc.device().is_cpu()) throw DataError("WebP encoder: frames must be on the CPU; move them with .cpu()");
    const int64_t n = framesHwc.size(0), h = framesHwc.size(1), w = framesHwc.size(2);
    if (n < 1 || h < 1 || w < 1) throw DataError("WebP encoder: the frames " + shapeText(framesHwc) + " hold no pixels");
    if (h > WEBP_MAX_DIMENSION || w > WEBP_MAX_DIMENSION)
        throw DataError("WebP encoder: frames " + shapeText(framesHwc) + " exceed WebP's " + std::to_string(WEBP_MAX_DIMENSION) +
                        "-pixel edge; export a smaller size");
    if (static_cast<int64_t>(options_.frameDelayMs) * n > static_cast<int64_t>(INT32_MAX))
        throw DataError("WebP encoder: " + std::to_string(n) + " frames of " + std::to_string(options_.frameDelayMs) +
                        " ms exceed WebP's timestamps (2^31 ms)");
    auto throwIfCancelled = [&] {
        if (cancel && cancel->load(std::memory_order_relaxed)) throw RenderCancelled("WebP export was cancelled");
    };

    WebPAnimEncoderOptions eo;
    if (!WebPAnimEncoderOptionsInit(&eo)) throw IoError("WebP encoder: this libwebpmux has another ABI version; reinstall libwebpmux3");
    eo.anim_params.loop_count = options_.loopCount;
    eo.anim_params.bgcolor = 0xff000000;  // opaque black (ARGB); every frame covers the canvas
    Encoder enc(WebPAnimEncoderNew(static_cast<int>(w), static_cast<int>(h), &eo));
    if (!enc) throw IoError("WebP encoder: libwebp could not start (out of memory)");
    auto encoderError = [&](const char* what) {
        return IoError(std::string("WebP encoder: libwebp failed to ") + what + ": " + WebPAnimEncoderGetError(enc.get()));
    };

    WebPConfig config;
    if (!WebPConfigInit(&config)) throw IoError("WebP encoder: this libwebp's encoder has another ABI version; reinstall libwebp7");
    config.lossless = options_.lossless ? 1 : 0;
    config.quality = static_cast<float>(options_.quality);
    config.method = options_.method;
    if (!WebPValidateConfig(&config))
        throw ConfigError("WebP options: libwebp refuses quality " + std::to_string(options_.quality) + ", method " + std::to_string(options_.method));

    const at::Tensor src = framesHwc.contiguous();
    const int stride = static_cast<int>(w) * 3;
    int timestamp = 0;
    for (int64_t i = 0; i < n; ++i) {
        throwIfCancelled();
        Picture pic;
        pic.get()->use_argb = 1;  // what the animation encoder works in (it compares frames in ARGB)
        pic.get()->width = static_cast<int>(w);
        pic.get()->height = static_cast<int>(h);
        if (!WebPPictureImportRGB(pic.get(), src[i].data_ptr<uint8_t>(), stride))
            throw IoError("WebP encoder: libwebp failed to import a frame: " + pictureError(pic.get()->error_code));
        if (!WebPAnimEncoderAdd(enc.get(), pic.get(), timestamp, &config)) throw encoderError("encode a frame");
        timestamp += options_.frameDelayMs;
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

void WebpWriter::write(const at::Tensor& framesHwc, const std::string& path, const FrameProgress& progress, const std::atomic<bool>* cancel) const {
    // The folder first: a missing one is found before the frames are encoded.
    const fs::path parent = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
    std::error_code ec;
    if (!fs::is_directory(parent, ec))
        throw IoError("WebP: cannot write '" + path + "': the folder '" + parent.string() + "' does not exist; create it first or choose another path");
    if (fs::is_directory(path, ec)) throw IoError("WebP: cannot write '" + path + "': it is a folder; choose a file name");
    const std::string bytes = encode(framesHwc, progress, cancel);
    AtomicFile::write(path, bytes);
}

}  // namespace streetgan
