// Decodes one training image (JPEG, PNG or WebP) from memory into 8-bit RGB, shrinking JPEGs in
// the DCT domain (libjpeg-turbo's scaled IDCT, scale 1/2, 1/4 or 1/8, no full-size decode: what
// OpenCV's IMREAD_REDUCED_COLOR_{2,4,8} does) when the caller only needs a fraction of the
// resolution. The codecs are called directly (ImageCodecs), not through OpenCV, so the lean GPU
// build decodes as the desktop build does.
//
// Validation before decoding: the format is sniffed from magic bytes (file extensions are never
// trusted) and the container structure is walked without decoding pixels (JPEG markers and
// entropy-coded segments up to the end-of-image marker FFD9, PNG chunks up to IEND, the WebP RIFF
// size). This is what catches truncated files: libjpeg decodes a truncated JPEG "successfully"
// with grey bottom rows, and libpng prints to stderr before failing. The header's dimensions are
// checked against the request (too small for the crop, too large to decode safely) before any
// pixel memory is allocated, so a hostile header cannot make us allocate gigabytes or spin.
//
// Failures are BadImageError (a DataError) carrying a BadImageReason with a stable name for the
// loader's skip statistics; the message is one line naming the image and what to do about it.
//
// EXIF orientation is ignored: the reference pipeline opened images
// with PIL, which does not rotate them either, and the header's width/height then match the
// decoded ones. Alpha is dropped, grey and palette images are expanded to RGB, 16-bit PNGs are
// reduced to 8 bits (as PIL's convert("RGB") does).
//
// Thread contract: stateless; any number of threads may call decode()/probe() at once (each call
// has its own codec state). No temporary files; the input buffer is only read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/util/Errors.h"

namespace streetgan {

/// Container formats the decoder accepts.
enum class ImageFormat : uint8_t { Jpeg, Png, WebP };

/// Why an image could not be used. Stable names (ImageDecoder::reasonName) for statistics.
enum class BadImageReason : uint8_t {
    Empty,        ///< "empty": zero bytes
    NotAnImage,   ///< "not-an-image": no JPEG/PNG/WebP signature (text, HTML error page, GIF, BMP, ...)
    Truncated,    ///< "truncated": the file ends before its end marker (JPEG EOI, PNG IEND, RIFF size)
    Corrupt,      ///< "corrupt": malformed structure, or the codec rejected the data
    Unsupported,  ///< "unsupported": a valid file of a variant the codec cannot decode (12-bit,
                  ///<   lossless or hierarchical JPEG, animated WebP)
    TooSmall,     ///< "too-small": short side below the crop the augmentation needs
    TooLarge,     ///< "too-large": more source pixels than DecodeRequest::maxSourcePixels
};
inline constexpr int kBadImageReasonCount = 7;

/// A DataError for one unusable image; reason() tells the loader which counter to bump.
class BadImageError : public DataError {
public:
    BadImageError(BadImageReason reason, const std::string& message) : DataError(message), reason_(reason) {}
    BadImageReason reason() const { return reason_; }

private:
    BadImageReason reason_;
};

/// What the caller will do with the image, so the decoder can reject early and shrink cheaply.
struct DecodeRequest {
    /// Source pixels (original resolution) of the square the caller will cut out; images whose
    /// short side is smaller fail with TooSmall before decoding. 0: no minimum.
    int cropSide = 0;
    /// Pixels that crop becomes in the caller's output. JPEGs are decoded reduced by
    /// chooseReduction(cropSide, targetSide); 0 (or cropSide 0): full resolution.
    int targetSide = 0;
    /// Set false to force a full-resolution decode (benchmarks, reference comparisons).
    bool allowReduction = true;
    /// 2, 4 or 8: a JPEG decoded at this reduction whatever the sizes say (`bench loader
    /// --decode-only`); 0: chooseReduction's (or 1 without allowReduction).
    int forceReduction = 0;
    /// Largest width*height (source pixels) decoded; more fails with TooLarge before decoding.
    /// 40 Mpx (an 8192 x 4096 panorama is 33.5): decoding one holds its BGR and RGB copies, about
    /// 240 MB, per decoding thread; a street photo is 0.3 to 12 Mpx.
    int64_t maxSourcePixels = 40'000'000;
    /// A header declaring more pixels than this many per byte of the file is refused as Corrupt
    /// before decoding: deflate expands at most 1032:1 (8256 pixels a byte at 1 bit a pixel) and a
    /// baseline JPEG spends at least a bit per 8x8 block; only a crafted file declares more (a
    /// 286-byte JPEG declaring 10000 x 10000 would have libjpeg allocate and fill 300 MB).
    static constexpr int64_t kMaxPixelsPerByte = 16384;
};

/// What probe() reads from the header alone.
struct ImageInfo {
    ImageFormat format = ImageFormat::Jpeg;
    int width = 0;   ///< source pixels
    int height = 0;  ///< source pixels
};

/// A decoded image: `height` rows of `width` RGB pixels, R G B bytes, row-major, no padding.
struct DecodedImage {
    std::vector<uint8_t> rgb;  ///< height * width * 3 bytes, HWC, RGB
    int width = 0;             ///< decoded pixels = ceil(sourceWidth / reduction)
    int height = 0;            ///< decoded pixels = ceil(sourceHeight / reduction)
    int sourceWidth = 0;       ///< pixels stored in the file
    int sourceHeight = 0;
    /// 1, 2, 4 or 8: decoded pixel (x, y) covers source pixels [x*r, (x+1)*r) x [y*r, (y+1)*r)
    /// (the last row/column may be partial). Geometry in source pixels divides by this.
    int reduction = 1;
    ImageFormat format = ImageFormat::Jpeg;
};

class ImageDecoder {
public:
    /// Decodes `size` bytes at `bytes` (the whole file). `nameForMessages` (a path or archive
    /// member) only appears in error messages. Throws BadImageError. Thread-safe.
    static DecodedImage decode(const uint8_t* bytes, size_t size, const DecodeRequest& request, const std::string& nameForMessages);

    /// Format and source dimensions from the header, after the same structural validation as
    /// decode() (so a truncated file fails here too) but without decoding pixels. Throws
    /// BadImageError (never TooSmall/TooLarge). Costs one pass of memchr over a JPEG's bytes.
    static ImageInfo probe(const uint8_t* bytes, size_t size, const std::string& nameForMessages);

    /// The DCT reduction rule: the largest f in {1, 2, 4, 8} with cropSide / f >= targetSide, i.e.
    /// the crop still has at least targetSide decoded pixels across. Examples: crop 256 -> 64 px
    /// gives 4 (256/4 = 64, 256/8 = 32 < 64); a whole 640x480 photo as a 64 px thumbnail
    /// (cropSide 480) gives 4 (480/4 = 120, 480/8 = 60 < 64); cropSide 480 -> 256 px gives 1
    /// (480/2 = 240 < 256). Returns 1 when either argument is <= 0.
    static int chooseReduction(int cropSide, int targetSide);

    /// Stable lower-case name of a reason ("empty", "not-an-image", "truncated", "corrupt",
    /// "unsupported", "too-small", "too-large") for statistics and logs.
    static const char* reasonName(BadImageReason reason);

    /// "JPEG", "PNG" or "WebP".
    static const char* formatName(ImageFormat format);
};

}  // namespace streetgan
