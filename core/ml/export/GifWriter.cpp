#include "ml/export/GifWriter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include <ATen/ATen.h>
#include <gif_lib.h>
#include <libimagequant.h>
#include "base/util/AtomicFile.h"
#include "ml/export/ExportWriter.h"
#include "ml/export/PixelResize.h"
#include "ml/util/ShapeText.h"

namespace streetgan {
namespace {

struct LiqAttrDeleter {
    void operator()(liq_attr* p) const { liq_attr_destroy(p); }
};
struct LiqImageDeleter {
    void operator()(liq_image* p) const { liq_image_destroy(p); }
};
struct LiqResultDeleter {
    void operator()(liq_result* p) const { liq_result_destroy(p); }
};
struct LiqHistogramDeleter {
    void operator()(liq_histogram* p) const { liq_histogram_destroy(p); }
};
using LiqAttr = std::unique_ptr<liq_attr, LiqAttrDeleter>;
using LiqImage = std::unique_ptr<liq_image, LiqImageDeleter>;
using LiqResult = std::unique_ptr<liq_result, LiqResultDeleter>;
using LiqHistogram = std::unique_ptr<liq_histogram, LiqHistogramDeleter>;

std::string liqText(liq_error e) {
    switch (e) {
        case LIQ_QUALITY_TOO_LOW:
            return "the palette cannot reach the minimum quality";
        case LIQ_VALUE_OUT_OF_RANGE:
            return "a value is out of range";
        case LIQ_OUT_OF_MEMORY:
            return "out of memory";
        case LIQ_ABORTED:
            return "aborted";
        case LIQ_BUFFER_TOO_SMALL:
            return "buffer too small";
        case LIQ_INVALID_POINTER:
            return "invalid pointer";
        case LIQ_UNSUPPORTED:
            return "unsupported";
        default:
            return "error " + std::to_string(static_cast<int>(e));
    }
}

void checkLiq(liq_error e, const char* what) {
    if (e == LIQ_OK) return;
    if (e == LIQ_QUALITY_TOO_LOW) throw DataError(std::string("GIF encoder: ") + what + ": " + liqText(e) + "; lower minQuality or raise maxColors");
    throw IoError(std::string("GIF encoder: libimagequant failed to ") + what + ": " + liqText(e));
}

/// One frame as RGBA (what libimagequant takes), already scaled.
struct RgbaFrame {
    std::vector<unsigned char> pixels;
};

struct GifPalette {
    int count = 0;
    GifColorType colors[256];
};

// A colour map for giflib: the palette padded with black to a power of two (2..256 entries).
ColorMapObject* makeColorMap(const GifPalette& p) {
    int size = 2;
    while (size < p.count) size *= 2;
    std::vector<GifColorType> colors(static_cast<size_t>(size), GifColorType{0, 0, 0});
    std::copy(p.colors, p.colors + p.count, colors.begin());
    ColorMapObject* map = GifMakeMapObject(size, colors.data());
    if (!map) throw IoError("GIF encoder: out of memory for a colour map");
    return map;
}

GifPalette toGifPalette(const liq_palette* lp) {
    GifPalette p;
    p.count = static_cast<int>(std::min<unsigned>(lp->count, 256));
    for (int i = 0; i < p.count; ++i) p.colors[i] = {lp->entries[i].r, lp->entries[i].g, lp->entries[i].b};
    return p;
}

// Maps indices into `from` onto the nearest colour of `to` (identity where the colours agree).
std::vector<unsigned char> translation(const GifPalette& from, const GifPalette& to) {
    std::vector<unsigned char> t(256, 0);
    for (int i = 0; i < from.count; ++i) {
        int best = 0;
        long bestD = -1;
        for (int j = 0; j < to.count; ++j) {
            const long dr = from.colors[i].Red - to.colors[j].Red, dg = from.colors[i].Green - to.colors[j].Green, db = from.colors[i].Blue - to.colors[j].Blue;
            const long d = dr * dr + dg * dg + db * db;
            if (bestD < 0 || d < bestD) {
                bestD = d;
                best = j;
                if (d == 0 && i == j) break;
            }
        }
        t[static_cast<size_t>(i)] = static_cast<unsigned char>(best);
    }
    return t;
}

int writeToString(GifFileType* gif, const GifByteType* data, int len) {
    static_cast<std::string*>(gif->UserData)->append(reinterpret_cast<const char*>(data), static_cast<size_t>(len));
    return len;
}

class GifFile {
public:
    explicit GifFile(std::string* out) {
        int err = 0;
        gif_ = EGifOpen(out, writeToString, &err);
        if (!gif_) throw IoError(std::string("GIF encoder: giflib cannot start a file: ") + GifErrorString(err));
        EGifSetGifVersion(gif_, true);
    }
    ~GifFile() {
        if (gif_) {
            int err = 0;
            EGifCloseFile(gif_, &err);
        }
    }
    GifFile(const GifFile&) = delete;
    GifFile& operator=(const GifFile&) = delete;

    void check(int rc, const char* what) const {
        if (rc != GIF_OK) throw IoError(std::string("GIF encoder: giflib failed to ") + what + ": " + GifErrorString(gif_->Error));
    }
    void close() {
        int err = 0;
        GifFileType* g = gif_;
        gif_ = nullptr;
        if (EGifCloseFile(g, &err) != GIF_OK) throw IoError(std::string("GIF encoder: giflib failed to finish the file: ") + GifErrorString(err));
    }
    GifFileType* get() const { return gif_; }

private:
    GifFileType* gif_ = nullptr;
};

}  // namespace

void GifOptions::validate() const {
    auto bad = [](const std::string& what) { throw ConfigError("GIF options: " + what); };
    if (!(dithering >= 0.0 && dithering <= 1.0)) bad("dithering must be within 0..1 (got " + std::to_string(dithering) + ")");
    if (frameDelayMs < 0 || frameDelayMs > 655350) bad("frame delay must be within 0..655350 ms (got " + std::to_string(frameDelayMs) + ")");
    if (loopCount > 65535) bad("loop count must be at most 65535 (0 = forever; got " + std::to_string(loopCount) + ")");
    if (width < 0 || height < 0 || width > 65535 || height > 65535 || ((width == 0) != (height == 0)))
        bad("width and height must both be 0 (input size) or both within 1..65535 (got " + std::to_string(width) + "x" + std::to_string(height) + ")");
    if (maxColors < 2 || maxColors > 256) bad("maxColors must be within 2..256 (got " + std::to_string(maxColors) + ")");
    if (minQuality < 0 || maxQuality > 100 || minQuality > maxQuality)
        bad("quality must satisfy 0 <= min <= max <= 100 (got " + std::to_string(minQuality) + ".." + std::to_string(maxQuality) + ")");
    if (speed < 1 || speed > 10) bad("speed must be within 1..10 (got " + std::to_string(speed) + ")");
}

GifWriter::GifWriter(GifOptions options) : options_(options) { options_.validate(); }

at::Tensor GifWriter::fromImages(const at::Tensor& images) {
    if (!images.defined() || (images.dim() != 3 && images.dim() != 4))
        throw DataError("GIF frames: expected generator images shaped (F, 3, H, W), got " +
                        (images.defined() ? shapeText(images) : std::string("an undefined tensor")));
    at::Tensor x = images.dim() == 3 ? images.unsqueeze(0) : images;
    if (x.size(1) != 3) throw DataError("GIF frames: expected 3 channels first (F, 3, H, W), got " + shapeText(images));
    if (!at::isFloatingType(x.scalar_type())) throw DataError("GIF frames: expected floating-point images in [-1, 1]");
    return x.detach().to(at::kCPU, at::kFloat).add(1).div_(2).mul_(255).add_(0.5).clamp_(0, 255).to(at::kByte).permute({0, 2, 3, 1}).contiguous();
}

std::string GifWriter::encode(const at::Tensor& framesHwc, const GifProgress& progress, const std::atomic<bool>* cancel) const {
    if (!framesHwc.defined() || framesHwc.dim() != 4 || framesHwc.size(3) != 3)
        throw DataError("GIF encoder: expected frames shaped (F, H, W, 3), got " +
                        (framesHwc.defined() ? shapeText(framesHwc) : std::string("an undefined tensor")));
    if (framesHwc.scalar_type() != at::kByte) throw DataError("GIF encoder: expected uint8 RGB frames; convert generator output with GifWriter::fromImages");
    if (!framesHwc.device().is_cpu()) throw DataError("GIF encoder: frames must be on the CPU; move them with .cpu()");
    const int64_t f = framesHwc.size(0), inH = framesHwc.size(1), inW = framesHwc.size(2);
    if (f < 1 || inH < 1 || inW < 1) throw DataError("GIF encoder: the frames " + shapeText(framesHwc) + " hold no pixels");
    if (inH > 65535 || inW > 65535) throw DataError("GIF encoder: frames " + shapeText(framesHwc) + " exceed GIF's 65535-pixel edge");
    const int w = options_.width ? options_.width : static_cast<int>(inW);
    const int h = options_.height ? options_.height : static_cast<int>(inH);
    const int frames = static_cast<int>(f);
    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
    auto throwIfCancelled = [&] {
        if (cancelled()) throw GifCancelled("GIF encoding was cancelled");
    };

    // 1. Scale (smooth: before quantising; nearest: the index maps afterwards) and convert to RGBA.
    const bool scaleIndices = options_.resample == GifOptions::Resample::Nearest && (w != inW || h != inH);
    const int qw = scaleIndices ? static_cast<int>(inW) : w, qh = scaleIndices ? static_cast<int>(inH) : h;
    const at::Tensor src = framesHwc.contiguous();
    const bool scaleFrames = !scaleIndices && (w != inW || h != inH);
    const auto filter = options_.resample == GifOptions::Resample::Nearest ? PixelResize::Filter::Nearest : PixelResize::Filter::Smooth;
    std::vector<RgbaFrame> rgba(static_cast<size_t>(frames));
    for (int i = 0; i < frames; ++i) {
        throwIfCancelled();
        // One frame at a time: PixelResize works in float, four times the frame's bytes.
        const at::Tensor frame = scaleFrames ? PixelResize::resize(src.narrow(0, i, 1), h, w, filter)[0] : src[i];
        const uint8_t* rgb = frame.data_ptr<uint8_t>();
        auto& px = rgba[static_cast<size_t>(i)].pixels;
        px.resize(static_cast<size_t>(qw) * static_cast<size_t>(qh) * 4);
        for (size_t p = 0, n = static_cast<size_t>(qw) * static_cast<size_t>(qh); p < n; ++p) {
            px[4 * p] = rgb[3 * p];
            px[4 * p + 1] = rgb[3 * p + 1];
            px[4 * p + 2] = rgb[3 * p + 2];
            px[4 * p + 3] = 255;
        }
    }

    LiqAttr attr(liq_attr_create());
    if (!attr) throw IoError("GIF encoder: libimagequant could not start (out of memory)");
    checkLiq(liq_set_max_colors(attr.get(), options_.maxColors), "set the palette size");
    checkLiq(liq_set_speed(attr.get(), options_.speed), "set the speed");
    checkLiq(liq_set_quality(attr.get(), options_.minQuality, options_.maxQuality), "set the quality");

    auto makeImage = [&](int i) {
        LiqImage img(liq_image_create_rgba(attr.get(), rgba[static_cast<size_t>(i)].pixels.data(), qw, qh, 0));
        if (!img) throw IoError("GIF encoder: libimagequant refused a " + std::to_string(qw) + "x" + std::to_string(qh) + " frame");
        return img;
    };

    // 2. Palette(s) and remapped indices.
    std::vector<std::vector<unsigned char>> indices(static_cast<size_t>(frames));
    std::vector<GifPalette> palettes;  // one (global) or one per frame
    const bool global = options_.palette == GifOptions::Palette::Global;
    LiqResult globalResult;
    GifPalette globalPalette;
    if (global) {
        LiqHistogram hist(liq_histogram_create(attr.get()));
        if (!hist) throw IoError("GIF encoder: libimagequant could not create a histogram (out of memory)");
        for (int i = 0; i < frames; ++i) {
            throwIfCancelled();
            LiqImage img = makeImage(i);
            checkLiq(liq_histogram_add_image(hist.get(), attr.get(), img.get()), "add a frame to the histogram");
        }
        liq_result* res = nullptr;
        checkLiq(liq_histogram_quantize(hist.get(), attr.get(), &res), "quantise the histogram");
        globalResult.reset(res);
        checkLiq(liq_set_dithering_level(res, static_cast<float>(options_.dithering)), "set the dithering level");
        globalPalette = toGifPalette(liq_get_palette(res));
        palettes.push_back(globalPalette);
    }
    for (int i = 0; i < frames; ++i) {
        throwIfCancelled();
        LiqImage img = makeImage(i);
        auto& idx = indices[static_cast<size_t>(i)];
        idx.resize(static_cast<size_t>(qw) * static_cast<size_t>(qh));
        if (global) {
            checkLiq(liq_write_remapped_image(globalResult.get(), img.get(), idx.data(), idx.size()), "remap a frame");
            // Remapping may refine the palette it hands back; map indices onto the one global table.
            const GifPalette refined = toGifPalette(liq_get_palette(globalResult.get()));
            if (refined.count != globalPalette.count ||
                std::memcmp(refined.colors, globalPalette.colors, sizeof(GifColorType) * static_cast<size_t>(refined.count)) != 0) {
                const std::vector<unsigned char> t = translation(refined, globalPalette);
                for (auto& v : idx) v = t[v];
            }
        } else {
            liq_result* res = nullptr;
            checkLiq(liq_image_quantize(img.get(), attr.get(), &res), "quantise a frame");
            LiqResult owned(res);
            checkLiq(liq_set_dithering_level(res, static_cast<float>(options_.dithering)), "set the dithering level");
            checkLiq(liq_write_remapped_image(res, img.get(), idx.data(), idx.size()), "remap a frame");
            palettes.push_back(toGifPalette(liq_get_palette(res)));
        }
        if (scaleIndices) {
            const at::Tensor map = at::from_blob(idx.data(), {1, qh, qw, 1}, at::kByte);
            const at::Tensor big = PixelResize::resize(map, h, w, PixelResize::Filter::Nearest);
            idx.assign(big.data_ptr<uint8_t>(), big.data_ptr<uint8_t>() + big.numel());
        }
        if (progress) progress(i + 1, frames);
    }
    throwIfCancelled();

    // 3. GIF89a.
    std::string out;
    out.reserve(static_cast<size_t>(w) * static_cast<size_t>(h) * static_cast<size_t>(frames) / 2 + 1024);
    GifFile gif(&out);
    {
        ColorMapObject* screenMap = makeColorMap(palettes.front());
        const int rc = EGifPutScreenDesc(gif.get(), w, h, 8, 0, screenMap);
        GifFreeMapObject(screenMap);
        gif.check(rc, "write the screen descriptor");
    }
    if (options_.loopCount >= 0) {
        const unsigned char loop[3] = {1, static_cast<unsigned char>(options_.loopCount & 0xff), static_cast<unsigned char>((options_.loopCount >> 8) & 0xff)};
        gif.check(EGifPutExtensionLeader(gif.get(), APPLICATION_EXT_FUNC_CODE), "write the loop extension");
        gif.check(EGifPutExtensionBlock(gif.get(), 11, "NETSCAPE2.0"), "write the loop extension");
        gif.check(EGifPutExtensionBlock(gif.get(), 3, loop), "write the loop extension");
        gif.check(EGifPutExtensionTrailer(gif.get()), "write the loop extension");
    }
    GraphicsControlBlock gcb;
    gcb.DisposalMode = DISPOSE_DO_NOT;
    gcb.UserInputFlag = false;
    gcb.DelayTime = static_cast<int>(std::lround(options_.frameDelayMs / 10.0));
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    GifByteType gcbBytes[4];
    const size_t gcbLen = EGifGCBToExtension(&gcb, gcbBytes);
    for (int i = 0; i < frames; ++i) {
        gif.check(EGifPutExtension(gif.get(), GRAPHICS_EXT_FUNC_CODE, static_cast<int>(gcbLen), gcbBytes), "write a frame delay");
        ColorMapObject* local = global ? nullptr : makeColorMap(palettes[static_cast<size_t>(i)]);
        const int rc = EGifPutImageDesc(gif.get(), 0, 0, w, h, false, local);
        if (local) GifFreeMapObject(local);
        gif.check(rc, "write a frame descriptor");
        auto& idx = indices[static_cast<size_t>(i)];
        for (int y = 0; y < h; ++y) gif.check(EGifPutLine(gif.get(), idx.data() + static_cast<size_t>(y) * static_cast<size_t>(w), w), "write a frame");
    }
    gif.close();
    return out;
}

void GifWriter::write(const at::Tensor& framesHwc, const std::string& path, const GifProgress& progress, const std::atomic<bool>* cancel) const {
    const std::string bytes = encode(framesHwc, progress, cancel);
    AtomicFile::write(path, bytes);
}

// The GIF row of ExportFormat: the session's delay, loop count, palette, dithering and speed.
const ExportWriter& exportWriterGif() {
    static const ExportWriter writer{
        ExportFormat::Kind::Gif, nullptr,
        [](const at::Tensor& framesHwc, const LatentSession& session, const std::string& out, const FrameProgress& progress, const std::atomic<bool>* cancel) {
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
            return std::string(ExportFormat::of(ExportFormat::Kind::Gif).name);
        }};
    return writer;
}

}  // namespace streetgan
