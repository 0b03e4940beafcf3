#include "ml/dataset/ImageDecoder.h"

#include <cstring>

#include "ml/dataset/ImageCodecs.h"

namespace streetgan {
namespace {

uint32_t be16(const uint8_t* p) { return (uint32_t(p[0]) << 8) | p[1]; }
uint32_t be32(const uint8_t* p) { return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3]; }
uint32_t le16(const uint8_t* p) { return uint32_t(p[0]) | (uint32_t(p[1]) << 8); }
uint32_t le24(const uint8_t* p) { return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16); }
uint32_t le32(const uint8_t* p) { return le24(p) | (uint32_t(p[3]) << 24); }

[[noreturn]] void fail(BadImageReason reason, const std::string& name, const std::string& what) {
    throw BadImageError(reason, "image '" + name + "': " + what);
}

constexpr uint8_t kPngSig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
constexpr uint8_t kJpegSig[2] = {0xFF, 0xD8};

/// True when the first min(size, n) bytes equal sig (and at least 2 are compared).
bool prefixMatches(const uint8_t* bytes, size_t size, const uint8_t* sig, size_t n) {
    const size_t k = size < n ? size : n;
    return k >= 2 && std::memcmp(bytes, sig, k) == 0;
}

const char* kRedownload = "the file is incomplete; re-download it or remove it from the data set";
const char* kRemove = "remove it from the data set or re-encode it";

// ------------------------------------------------------------------------------ JPEG

// Walks the marker segments from SOI to EOI, stepping over entropy-coded data with memchr
// (inside scans 0xFF is always followed by 0x00 stuffing or an RSTn marker). Reaching EOI
// proves the file is complete; trailing bytes after EOI (some cameras append data) are ignored.
ImageInfo walkJpeg(const uint8_t* b, size_t n, const std::string& name) {
    ImageInfo info;
    info.format = ImageFormat::Jpeg;
    bool haveFrame = false, haveScan = false;
    size_t pos = 2;
    for (;;) {
        if (pos >= n)
            fail(BadImageReason::Truncated, name,
                 "truncated JPEG (ends after " + std::to_string(n) + " bytes without the end-of-image marker); " + kRedownload);
        if (b[pos] != 0xFF) fail(BadImageReason::Corrupt, name, "corrupt JPEG (no marker at byte " + std::to_string(pos) + "); " + kRemove);
        while (pos < n && b[pos] == 0xFF) ++pos;  // fill bytes
        if (pos >= n) fail(BadImageReason::Truncated, name, "truncated JPEG (ends inside a marker); " + std::string(kRedownload));
        const uint8_t m = b[pos++];
        if (m == 0xD9) {  // EOI
            if (!haveFrame || !haveScan)
                fail(BadImageReason::Corrupt, name, "corrupt JPEG (end-of-image marker before any image data); " + std::string(kRemove));
            return info;
        }
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue;  // standalone markers
        if (m == 0x00 || m == 0xD8) fail(BadImageReason::Corrupt, name, "corrupt JPEG (invalid marker at byte " + std::to_string(pos - 1) + "); " + kRemove);
        if (pos + 2 > n) fail(BadImageReason::Truncated, name, "truncated JPEG (ends inside a segment header); " + std::string(kRedownload));
        const size_t len = be16(b + pos);
        if (len < 2) fail(BadImageReason::Corrupt, name, "corrupt JPEG (segment length " + std::to_string(len) + "); " + kRemove);
        if (pos + len > n) fail(BadImageReason::Truncated, name, "truncated JPEG (ends inside a segment); " + std::string(kRedownload));
        const bool isSof = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
        if (isSof && !haveFrame) {
            if (len < 8) fail(BadImageReason::Corrupt, name, "corrupt JPEG (short frame header); " + std::string(kRemove));
            const int precision = b[pos + 2];
            info.height = static_cast<int>(be16(b + pos + 3));
            info.width = static_cast<int>(be16(b + pos + 5));
            const int components = b[pos + 7];
            if (m == 0xC3 || m == 0xC5 || m == 0xC6 || m == 0xC7 || m == 0xCB || m == 0xCD || m == 0xCE || m == 0xCF)
                fail(BadImageReason::Unsupported, name, "lossless or hierarchical JPEG, which the decoder cannot read; re-encode it as a baseline JPEG or PNG");
            if (precision != 8)
                fail(BadImageReason::Unsupported, name,
                     std::to_string(precision) + "-bit JPEG, which the decoder cannot read; re-encode it with 8 bits per sample");
            if (info.width == 0 || info.height == 0 || (components != 1 && components != 3 && components != 4))
                fail(BadImageReason::Corrupt, name,
                     "corrupt JPEG (frame header says " + std::to_string(info.width) + "x" + std::to_string(info.height) + " with " +
                         std::to_string(components) + " components); " + kRemove);
            haveFrame = true;
        }
        pos += len;
        if (m == 0xDA) {  // SOS: entropy-coded data follows until the next real marker
            if (!haveFrame) fail(BadImageReason::Corrupt, name, "corrupt JPEG (scan before frame header); " + std::string(kRemove));
            haveScan = true;
            for (;;) {
                const void* ff = pos < n ? std::memchr(b + pos, 0xFF, n - pos) : nullptr;
                if (!ff || static_cast<const uint8_t*>(ff) + 1 >= b + n)
                    fail(BadImageReason::Truncated, name,
                         "truncated JPEG (image data ends after " + std::to_string(n) + " bytes without the end-of-image marker); " + kRedownload);
                pos = static_cast<size_t>(static_cast<const uint8_t*>(ff) - b);
                const uint8_t next = b[pos + 1];
                if (next == 0x00 || (next >= 0xD0 && next <= 0xD7)) {
                    pos += 2;
                } else if (next == 0xFF) {
                    pos += 1;
                } else {
                    break;  // a marker: back to the segment loop
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------ PNG

ImageInfo walkPng(const uint8_t* b, size_t n, const std::string& name) {
    ImageInfo info;
    info.format = ImageFormat::Png;
    size_t pos = 8;
    bool first = true, haveData = false;
    for (;;) {
        if (pos + 8 > n)
            fail(BadImageReason::Truncated, name, "truncated PNG (ends after " + std::to_string(n) + " bytes without the IEND chunk); " + kRedownload);
        const uint32_t len = be32(b + pos);
        const uint8_t* type = b + pos + 4;
        for (int i = 0; i < 4; ++i) {
            const bool letter = (type[i] >= 'A' && type[i] <= 'Z') || (type[i] >= 'a' && type[i] <= 'z');
            if (!letter) fail(BadImageReason::Corrupt, name, "corrupt PNG (invalid chunk at byte " + std::to_string(pos) + "); " + kRemove);
        }
        if (len > 0x7FFFFFFFu) fail(BadImageReason::Corrupt, name, "corrupt PNG (chunk length out of range); " + std::string(kRemove));
        if (n - pos - 8 < static_cast<size_t>(len) + 4)
            fail(BadImageReason::Truncated, name, "truncated PNG (ends inside a chunk); " + std::string(kRedownload));
        if (first) {
            if (std::memcmp(type, "IHDR", 4) != 0 || len != 13)
                fail(BadImageReason::Corrupt, name, "corrupt PNG (no IHDR header chunk); " + std::string(kRemove));
            const uint32_t w = be32(b + pos + 8), h = be32(b + pos + 12);
            if (w == 0 || h == 0 || w > 0x7FFFFFFFu || h > 0x7FFFFFFFu)
                fail(BadImageReason::Corrupt, name, "corrupt PNG (header says " + std::to_string(w) + "x" + std::to_string(h) + "); " + kRemove);
            info.width = static_cast<int>(w);
            info.height = static_cast<int>(h);
            first = false;
        } else if (std::memcmp(type, "IDAT", 4) == 0) {
            haveData = true;
        } else if (std::memcmp(type, "IEND", 4) == 0) {
            if (!haveData) fail(BadImageReason::Corrupt, name, "corrupt PNG (no image data chunk); " + std::string(kRemove));
            return info;
        }
        pos += 12 + static_cast<size_t>(len);
    }
}

// ------------------------------------------------------------------------------ WebP

ImageInfo walkWebP(const uint8_t* b, size_t n, const std::string& name) {
    ImageInfo info;
    info.format = ImageFormat::WebP;
    const size_t riff = le32(b + 4);
    if (riff < 4 + 8) fail(BadImageReason::Corrupt, name, "corrupt WebP (RIFF size " + std::to_string(riff) + "); " + kRemove);
    if (n < riff + 8)
        fail(BadImageReason::Truncated, name, "truncated WebP (" + std::to_string(n) + " of " + std::to_string(riff + 8) + " bytes); " + kRedownload);
    if (n < 30) fail(BadImageReason::Corrupt, name, "corrupt WebP (no image chunk); " + std::string(kRemove));
    const uint8_t* c = b + 12;
    const size_t chunk = le32(c + 4);
    if (std::memcmp(c, "VP8 ", 4) == 0) {
        if (chunk < 10 || (c[8] & 1) != 0 || c[11] != 0x9D || c[12] != 0x01 || c[13] != 0x2A)
            fail(BadImageReason::Corrupt, name, "corrupt WebP (bad VP8 frame header); " + std::string(kRemove));
        info.width = static_cast<int>(le16(c + 14) & 0x3FFF);
        info.height = static_cast<int>(le16(c + 16) & 0x3FFF);
    } else if (std::memcmp(c, "VP8L", 4) == 0) {
        if (chunk < 5 || c[8] != 0x2F) fail(BadImageReason::Corrupt, name, "corrupt WebP (bad VP8L header); " + std::string(kRemove));
        const uint32_t bits = le32(c + 9);
        info.width = static_cast<int>((bits & 0x3FFF) + 1);
        info.height = static_cast<int>(((bits >> 14) & 0x3FFF) + 1);
    } else if (std::memcmp(c, "VP8X", 4) == 0) {
        if (chunk < 10) fail(BadImageReason::Corrupt, name, "corrupt WebP (bad VP8X header); " + std::string(kRemove));
        if (c[8] & 0x02) fail(BadImageReason::Unsupported, name, "animated WebP, which the decoder cannot read; extract a frame as PNG or JPEG");
        info.width = static_cast<int>(le24(c + 12) + 1);
        info.height = static_cast<int>(le24(c + 15) + 1);
    } else {
        fail(BadImageReason::Corrupt, name, "corrupt WebP (unknown first chunk); " + std::string(kRemove));
    }
    if (info.width == 0 || info.height == 0) fail(BadImageReason::Corrupt, name, "corrupt WebP (zero width or height); " + std::string(kRemove));
    return info;
}

}  // namespace

const char* ImageDecoder::reasonName(BadImageReason reason) {
    switch (reason) {
        case BadImageReason::Empty:
            return "empty";
        case BadImageReason::NotAnImage:
            return "not-an-image";
        case BadImageReason::Truncated:
            return "truncated";
        case BadImageReason::Corrupt:
            return "corrupt";
        case BadImageReason::Unsupported:
            return "unsupported";
        case BadImageReason::TooSmall:
            return "too-small";
        case BadImageReason::TooLarge:
            return "too-large";
    }
    return "unknown";
}

const char* ImageDecoder::formatName(ImageFormat format) {
    switch (format) {
        case ImageFormat::Jpeg:
            return "JPEG";
        case ImageFormat::Png:
            return "PNG";
        case ImageFormat::WebP:
            return "WebP";
    }
    return "unknown";
}

int ImageDecoder::chooseReduction(int cropSide, int targetSide) {
    if (cropSide <= 0 || targetSide <= 0) return 1;
    for (int f : {8, 4, 2})
        if (static_cast<int64_t>(cropSide) >= static_cast<int64_t>(targetSide) * f) return f;
    return 1;
}

ImageInfo ImageDecoder::probe(const uint8_t* bytes, size_t size, const std::string& name) {
    if (size == 0 || bytes == nullptr) fail(BadImageReason::Empty, name, "the file is empty (0 bytes); re-download it or remove it");
    if (size >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) return walkJpeg(bytes, size, name);
    if (size >= 8 && std::memcmp(bytes, kPngSig, 8) == 0) return walkPng(bytes, size, name);
    if (size >= 12 && std::memcmp(bytes, "RIFF", 4) == 0 && std::memcmp(bytes + 8, "WEBP", 4) == 0) return walkWebP(bytes, size, name);
    // A signature cut short is a truncated file, not a foreign one.
    if (prefixMatches(bytes, size, kJpegSig, 2) && size < 3)
        fail(BadImageReason::Truncated, name, "truncated JPEG (" + std::to_string(size) + " bytes); " + kRedownload);
    if (prefixMatches(bytes, size, kPngSig, 8) && size < 8)
        fail(BadImageReason::Truncated, name, "truncated PNG (" + std::to_string(size) + " bytes); " + kRedownload);
    if (size < 12 && size >= 4 && std::memcmp(bytes, "RIFF", 4) == 0)
        fail(BadImageReason::Truncated, name, "truncated RIFF/WebP (" + std::to_string(size) + " bytes); " + kRedownload);
    fail(BadImageReason::NotAnImage, name, "not an image (no JPEG, PNG or WebP signature in its first bytes); remove it from the data set or convert it");
}

DecodedImage ImageDecoder::decode(const uint8_t* bytes, size_t size, const DecodeRequest& request, const std::string& name) {
    const ImageInfo info = probe(bytes, size, name);
    const int shortSide = info.width < info.height ? info.width : info.height;
    if (request.cropSide > 0 && shortSide < request.cropSide)
        fail(BadImageReason::TooSmall, name,
             std::to_string(info.width) + "x" + std::to_string(info.height) + " is smaller than the " + std::to_string(request.cropSide) +
                 " px crop; use larger images or a smaller crop factor or image size");
    const int64_t pixels = static_cast<int64_t>(info.width) * info.height;
    if (pixels > request.maxSourcePixels)
        fail(BadImageReason::TooLarge, name,
             std::to_string(info.width) + "x" + std::to_string(info.height) + " has more than the " + std::to_string(request.maxSourcePixels) +
                 " pixels the loader decodes; downscale it first");
    if (size > static_cast<size_t>(INT32_MAX)) fail(BadImageReason::TooLarge, name, "the file is larger than 2 GiB; downscale it first");
    if (pixels / DecodeRequest::kMaxPixelsPerByte >= static_cast<int64_t>(size))
        fail(BadImageReason::Corrupt, name,
             "its header declares " + std::to_string(info.width) + "x" + std::to_string(info.height) + ", more pixels than its " + std::to_string(size) +
                 " bytes can hold (at most " + std::to_string(DecodeRequest::kMaxPixelsPerByte) + " a byte); " + kRemove);

    int reduction = 1;
    if (info.format == ImageFormat::Jpeg && request.allowReduction) reduction = chooseReduction(request.cropSide, request.targetSide);
    if (info.format == ImageFormat::Jpeg && (request.forceReduction == 2 || request.forceReduction == 4 || request.forceReduction == 8))
        reduction = request.forceReduction;
    DecodedImage out;
    out.width = (info.width + reduction - 1) / reduction;  // libjpeg's scaled size rounds up
    out.height = (info.height + reduction - 1) / reduction;
    out.sourceWidth = info.width;
    out.sourceHeight = info.height;
    out.reduction = reduction;
    out.format = info.format;
    out.rgb.resize(static_cast<size_t>(out.width) * out.height * 3);
    std::string why;
    switch (info.format) {
        case ImageFormat::Jpeg:
            why = image_codecs::decodeJpeg(bytes, size, reduction, out.width, out.height, out.rgb.data());
            break;
        case ImageFormat::Png:
            why = image_codecs::decodePng(bytes, size, out.width, out.height, out.rgb.data());
            break;
        case ImageFormat::WebP:
            if (!image_codecs::haveWebP())
                fail(BadImageReason::Unsupported, name, "WebP, which this streetgan-trainer cannot decode (built without libwebp); convert it to JPEG or PNG");
            why = image_codecs::decodeWebP(bytes, size, out.width, out.height, out.rgb.data());
            break;
    }
    if (!why.empty()) fail(BadImageReason::Corrupt, name, why + "; " + kRemove);
    return out;
}

}  // namespace streetgan
