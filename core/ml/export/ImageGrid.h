// Image grids with torchvision 0.14's make_grid semantics, and PNG encoding/writing with
// torchvision.utils.save_image's conversion (x * 255 + 0.5, clamped, truncated to uint8, RGB).
// Stateless and thread-safe: every function works only on its arguments. Tensors may live on any
// device; results of makeGrid stay on the input's device and dtype.
#pragma once

#include <string>

#include <ATen/core/Tensor.h>

namespace streetgan {

class ImageGrid {
public:
    /// torchvision.utils.make_grid(images, nrow, padding, normalize, value_range=None,
    /// scale_each=False, pad_value) reproduced operation for operation:
    /// - images: (N, C, H, W) of any range; (C, H, W) and (H, W) are taken as one image, like
    ///   torchvision. Single-channel images are repeated to 3 channels.
    /// - normalize: ONE min-max over the whole batch: clamp to [min, max], subtract min, divide by
    ///   max(max - min, 1e-5); the input is never modified.
    /// - N == 1 returns that (normalised) image itself, (C, H, W), without padding.
    /// - otherwise xmaps = min(nrow, N) columns, ymaps = ceil(N / xmaps) rows, and the grid is
    ///   (C, ymaps * (H + padding) + padding, xmaps * (W + padding) + padding) filled with padValue.
    /// Throws ConfigError for nrow < 1 or padding < 0, DataError for an empty batch, a tensor that is
    /// not 2-4 dimensional, or normalize on a non-floating-point tensor.
    static at::Tensor makeGrid(const at::Tensor& images, int nrow = 8, int padding = 2, bool normalize = true, float padValue = 0.f);

    /// PNG bytes of a (C, H, W) floating-point image in [0, 1] (C = 1 grey, 3 RGB, 4 RGBA; a (H, W)
    /// tensor is grey). Values are converted like save_image: mul(255).add_(0.5).clamp_(0, 255), then
    /// truncated to uint8; out-of-range values saturate. Throws DataError for another shape or dtype,
    /// IoError if zlib fails (base/util/PngEncoder). `zlibLevel` 1 writes the same pixels about 4x
    /// faster than the default 6 (the gallery server's choice: generated pictures barely compress).
    static std::string encodePng(const at::Tensor& chw01, int zlibLevel = 6);

    /// encodePng, written atomically through AtomicFile: a temporary file beside `path`, fsync,
    /// rename over `path`.
    /// On any failure the temporary file is removed and IoError names `path` and the reason.
    static void writePng(const at::Tensor& chw01, const std::string& path);
};

}  // namespace streetgan
