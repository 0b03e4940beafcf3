// The pixel codecs behind ImageDecoder (and `data synth`'s JPEG writer), called directly, without
// OpenCV, so that every build (the lean GPU bundle's included) decodes photos the same way:
// libjpeg-turbo (the DCT-domain reduction of ImageDecoder: scale_denom 2, 4 or 8), libpng, and
// libwebp where the build has it (STREETGAN_WITH_WEBP). The settings are OpenCV's imdecode ones
// (libjpeg's default islow IDCT and fancy upsampling, CMYK as OpenCV converts it, 16-bit PNG
// samples cut to their high byte, alpha dropped), so the pixels equal what OpenCV decodes with the
// same libraries.
//
// Callers have validated the container (ImageDecoder::probe) and sized the output from its header;
// a codec that fails, or decodes another size, returns a one-line reason (the caller names the
// image), never prints, never aborts.
//
// Thread contract: stateless; any number of threads at once (each call has its own codec state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace streetgan::image_codecs {

/// Decodes a JPEG reduced by `reduction` (1, 2, 4 or 8) into `rgb`, which holds w * h * 3 bytes for
/// the expected decoded size. Returns "" on success, else why not.
std::string decodeJpeg(const uint8_t* bytes, size_t size, int reduction, int w, int h, uint8_t* rgb);

/// Decodes a PNG of w x h into `rgb` (w * h * 3 bytes). Returns "" or why not.
std::string decodePng(const uint8_t* bytes, size_t size, int w, int h, uint8_t* rgb);

/// True when this build decodes WebP (libwebp).
bool haveWebP();
/// Decodes a still WebP of w x h into `rgb` (w * h * 3 bytes). Returns "" or why not.
std::string decodeWebP(const uint8_t* bytes, size_t size, int w, int h, uint8_t* rgb);

/// Encodes RGB pixels as a baseline JPEG (4:2:0, the given quality 1..100), as `data synth` writes.
/// Throws DataError when libjpeg refuses.
std::vector<uint8_t> encodeJpeg(const uint8_t* rgb, int w, int h, int quality);

}  // namespace streetgan::image_codecs
