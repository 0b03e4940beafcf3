#include "ml/dataset/ImageCodecs.h"

#include <csetjmp>
#include <cstdio>  // jpeglib.h needs FILE
#include <cstdlib>
#include <cstring>

#include <jpeglib.h>
#include <png.h>
#if STREETGAN_HAVE_WEBP_DECODE
#include <webp/decode.h>
#endif

#include "base/util/Errors.h"

namespace streetgan::image_codecs {
namespace {

// libjpeg and libpng report errors through a callback that must not return: it longjmps back to
// the setjmp of the function that drives the codec. Those functions keep only trivially
// destructible locals, so that the jump skips no destructor; their callers own the buffers.

struct JpegError {
    jpeg_error_mgr pub{};
    std::jmp_buf jump{};
    char message[JMSG_LENGTH_MAX] = {};
};

void jpegErrorExit(j_common_ptr cinfo) {
    auto* e = reinterpret_cast<JpegError*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, e->message);
    std::longjmp(e->jump, 1);
}

void jpegQuiet(j_common_ptr /*cinfo*/) {}  // warnings (corrupt data libjpeg decodes anyway) are not printed

// OpenCV's icvCvt_CMYK2BGR_8u_C4C3R (Adobe's inverted CMYK, as libjpeg returns it), as RGB.
void cmykToRgb(const uint8_t* cmyk, uint8_t* rgb, int w) {
    for (int x = 0; x < w; ++x, cmyk += 4, rgb += 3) {
        const int k = cmyk[3];
        for (int c = 0; c < 3; ++c) rgb[c] = static_cast<uint8_t>(k - (((255 - cmyk[c]) * k) >> 8));
    }
}

// Returns false when libjpeg failed (err.message says why); true with outW/outH set otherwise,
// having read the pixels only when they match w x h.
bool runJpeg(jpeg_decompress_struct& cinfo, JpegError& err, const uint8_t* bytes, size_t size, int reduction, int w, int h, uint8_t* rgb, uint8_t* cmykRow,
             int& outW, int& outH) {
    if (setjmp(err.jump)) return false;  // NOLINT(cert-err52-cpp): libjpeg's error protocol (see above)
    jpeg_mem_src(&cinfo, bytes, static_cast<unsigned long>(size));
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = 1;
    cinfo.scale_denom = static_cast<unsigned int>(reduction);
    const bool cmyk = cinfo.num_components == 4;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    jpeg_start_decompress(&cinfo);
    outW = static_cast<int>(cinfo.output_width);
    outH = static_cast<int>(cinfo.output_height);
    if (outW != w || outH != h || cinfo.output_components != (cmyk ? 4 : 3)) return true;
    while (cinfo.output_scanline < cinfo.output_height) {
        const auto y = static_cast<size_t>(cinfo.output_scanline);
        uint8_t* dst = rgb + y * static_cast<size_t>(w) * 3;
        JSAMPROW row = cmyk ? cmykRow : dst;
        if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) {
            std::snprintf(err.message, sizeof err.message, "the data ended at row %zu of %d", y, h);
            return false;
        }
        if (cmyk) cmykToRgb(cmykRow, dst, w);
    }
    return true;
}

struct PngState {
    const uint8_t* data = nullptr;
    size_t size = 0;
    size_t pos = 0;
    char message[200] = {};
};

void pngRead(png_structp png, png_bytep out, size_t n) {
    auto* s = static_cast<PngState*>(png_get_io_ptr(png));
    if (n > s->size - s->pos) png_error(png, "the data ends early");
    std::memcpy(out, s->data + s->pos, n);
    s->pos += n;
}

void pngError(png_structp png, png_const_charp message) {
    auto* s = static_cast<PngState*>(png_get_error_ptr(png));
    std::snprintf(s->message, sizeof s->message, "%s", message);
    png_longjmp(png, 1);
}

void pngWarning(png_structp /*png*/, png_const_charp /*message*/) {}

bool runPng(png_structp png, png_infop info, PngState& state, int w, int h, uint8_t* rgb, png_bytep* rows) {
    if (setjmp(png_jmpbuf(png))) return false;  // NOLINT(cert-err52-cpp): libpng's error protocol (see above)
    png_set_read_fn(png, &state, pngRead);
    png_read_info(png, info);
    const int depth = png_get_bit_depth(png, info);
    const int type = png_get_color_type(png, info);
    if (static_cast<int>(png_get_image_width(png, info)) != w || static_cast<int>(png_get_image_height(png, info)) != h) {
        std::snprintf(state.message, sizeof state.message, "the header read by libpng differs from the one checked");
        return false;
    }
    if (depth == 16) png_set_strip_16(png);
    if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if ((type & PNG_COLOR_MASK_COLOR) == 0) {
        if (depth < 8) png_set_expand_gray_1_2_4_to_8(png);
        png_set_gray_to_rgb(png);
    }
    png_set_strip_alpha(png);  // also a palette's or grey's tRNS expanded to alpha
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_channels(png, info) != 3 || png_get_bit_depth(png, info) != 8 || png_get_rowbytes(png, info) != static_cast<size_t>(w) * 3) {
        std::snprintf(state.message, sizeof state.message, "libpng gives %d channels of %d bits", png_get_channels(png, info), png_get_bit_depth(png, info));
        return false;
    }
    for (int y = 0; y < h; ++y) rows[y] = rgb + static_cast<size_t>(y) * static_cast<size_t>(w) * 3;
    png_read_image(png, rows);
    return true;
}

}  // namespace

std::string decodeJpeg(const uint8_t* bytes, size_t size, int reduction, int w, int h, uint8_t* rgb) {
    jpeg_decompress_struct cinfo{};
    JpegError err;
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = jpegErrorExit;
    err.pub.output_message = jpegQuiet;
    jpeg_create_decompress(&cinfo);
    std::vector<uint8_t> cmykRow(static_cast<size_t>(w) * 4);
    int outW = 0, outH = 0;
    const bool ok = runJpeg(cinfo, err, bytes, size, reduction, w, h, rgb, cmykRow.data(), outW, outH);
    jpeg_destroy_decompress(&cinfo);
    if (!ok) return std::string("the JPEG decoder failed (") + err.message + ")";
    if (outW != w || outH != h)
        return "the JPEG decoder returned " + std::to_string(outW) + "x" + std::to_string(outH) + " where the header promised " + std::to_string(w) + "x" +
               std::to_string(h);
    return {};
}

std::string decodePng(const uint8_t* bytes, size_t size, int w, int h, uint8_t* rgb) {
    PngState state;
    state.data = bytes;
    state.size = size;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, pngError, pngWarning);
    if (png == nullptr) return "libpng could not start (out of memory)";
    png_infop info = png_create_info_struct(png);
    std::vector<png_bytep> rows(static_cast<size_t>(h));
    const bool ok = info != nullptr && runPng(png, info, state, w, h, rgb, rows.data());
    png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
    if (!ok) return std::string("the PNG decoder failed (") + (state.message[0] != 0 ? state.message : "out of memory") + ")";
    return {};
}

bool haveWebP() { return STREETGAN_HAVE_WEBP_DECODE != 0; }

std::string decodeWebP(const uint8_t* bytes, size_t size, int w, int h, uint8_t* rgb) {
#if STREETGAN_HAVE_WEBP_DECODE
    int gotW = 0, gotH = 0;
    if (WebPGetInfo(bytes, size, &gotW, &gotH) == 0) return "the WebP decoder rejected the data";
    if (gotW != w || gotH != h)
        return "the WebP decoder reads " + std::to_string(gotW) + "x" + std::to_string(gotH) + " where the header promised " + std::to_string(w) + "x" +
               std::to_string(h);
    const size_t bytesOut = static_cast<size_t>(w) * static_cast<size_t>(h) * 3;
    if (WebPDecodeRGBInto(bytes, size, rgb, bytesOut, w * 3) == nullptr) return "the WebP decoder failed";
    return {};
#else
    (void)bytes, (void)size, (void)w, (void)h, (void)rgb;
    return "this streetgan-trainer was built without WebP decoding (libwebp, STREETGAN_WITH_WEBP=OFF)";
#endif
}

std::vector<uint8_t> encodeJpeg(const uint8_t* rgb, int w, int h, int quality) {
    jpeg_compress_struct cinfo{};
    JpegError err;
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = jpegErrorExit;
    err.pub.output_message = jpegQuiet;
    unsigned char* out = nullptr;
    unsigned long outSize = 0;
    jpeg_create_compress(&cinfo);
    bool ok = false;
    if (!setjmp(err.jump)) {  // NOLINT(cert-err52-cpp): libjpeg's error protocol (see above)
        jpeg_mem_dest(&cinfo, &out, &outSize);
        cinfo.image_width = static_cast<JDIMENSION>(w);
        cinfo.image_height = static_cast<JDIMENSION>(h);
        cinfo.input_components = 3;
        cinfo.in_color_space = JCS_RGB;
        jpeg_set_defaults(&cinfo);
        jpeg_set_quality(&cinfo, quality, TRUE);
        jpeg_start_compress(&cinfo, TRUE);
        while (cinfo.next_scanline < cinfo.image_height) {
            auto* row = const_cast<JSAMPROW>(rgb + static_cast<size_t>(cinfo.next_scanline) * static_cast<size_t>(w) * 3);
            jpeg_write_scanlines(&cinfo, &row, 1);
        }
        jpeg_finish_compress(&cinfo);
        ok = true;
    }
    jpeg_destroy_compress(&cinfo);
    std::vector<uint8_t> bytes;
    if (ok) bytes.assign(out, out + outSize);
    std::free(out);  // NOLINT(cppcoreguidelines-no-malloc): jpeg_mem_dest's buffer is malloc'ed
    if (!ok) throw DataError(std::string("JPEG encoding failed (") + err.message + ")");
    return bytes;
}

}  // namespace streetgan::image_codecs
