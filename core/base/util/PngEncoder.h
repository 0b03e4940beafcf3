// PNG encoding of 8-bit images with zlib alone: the writer of every PNG the project makes (sample
// grids, PNG sequences, the gallery's images), so that a trainer built without OpenCV (the GPU
// bundle, STREETGAN_WITH_OPENCV=OFF) writes the same files as the desktop build.
//
// Output: one IHDR (bit depth 8, colour type 0 grey / 2 RGB / 6 RGBA, no interlace), the pixels
// in IDAT chunks of at most 1 MiB, IEND. Each row gets the filter libpng picks by default: of the
// five (None, Sub, Up, Average, Paeth), the one with the smallest sum of absolute (signed) bytes.
//
// Thread contract: stateless; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace streetgan {

class PngEncoder {
public:
    /// PNG bytes of a `width` x `height` image whose rows (top first) start `stride` bytes apart
    /// (0: width * channels) and hold `channels` interleaved bytes per pixel: 1 grey, 3 RGB,
    /// 4 RGBA. `level` is zlib's (0 none .. 9 smallest; 6 is libpng's default, 1 the fastest that
    /// still compresses). Throws DataError for a bad shape or channel count, IoError if zlib fails.
    static std::string encode(const uint8_t* pixels, int width, int height, int channels, int level = 6, std::size_t stride = 0);
};

}  // namespace streetgan
