// How close two images are: PSNR and SSIM, the figures `streetgan-trainer invert` reports and the
// SSIM term of LatentInverter's loss (so SSIM is written with differentiable ATen ops).
//
// Images are (N, C, H, W) with values in [0, 1] (data range 1); each function returns one figure
// per image, (N) on the images' device, computed in the images' floating type (float32 gives SSIM
// to about 1e-3: its variances are differences of close numbers; pass float64 for a figure to
// report), integer images as float32.
// - PSNR = 10 log10(1 / MSE), the MSE over all channels and pixels; identical images give +inf.
// - SSIM as Wang et al. (2004) define it and scikit-image's structural_similarity computes it with
//   gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=1: local means,
//   variances and covariance under an 11 x 11 Gaussian window (sigma 1.5; the window shrinks to
//   the image's side, kept odd, for images under 11 px), K1 = 0.01, K2 = 0.03, the SSIM map over
//   the positions where the window fits whole (no padding), averaged over them and the channels.
//   (Not compared with scikit-image itself, which the build machine lacks; the tests compare it
//   with the formula written out window by window.)
//
// Thread contract: stateless; any thread.
#pragma once

#include <ATen/core/Tensor.h>

namespace streetgan {

class ImageSimilarity {
public:
    /// (N) PSNR in dB. Throws DataError when the shapes differ or are not (N, C, H, W).
    static at::Tensor psnr(const at::Tensor& a, const at::Tensor& b);
    /// (N) mean SSIM in [-1, 1]. Differentiable in both arguments. Throws DataError as psnr does.
    static at::Tensor ssim(const at::Tensor& a, const at::Tensor& b);
};

}  // namespace streetgan
