// The Laplacian pyramid of the sliced Wasserstein distance (Karras et al., "Progressive Growing of
// GANs", ICLR 2018, appendix D), as progressive_growing_of_gans/metrics/sliced_wasserstein.py
// builds it: the 5-tap binomial filter [1, 4, 6, 4, 1] / 16 applied separably (the 5x5 kernel
// outer(k, k) / 256) with mirror boundaries (scipy.ndimage's 'mirror', cv2's BORDER_REFLECT_101:
// d c b | a b c d | c b a); pyrDown blurs and keeps every second row and column; pyrUp inserts
// zeros between the pixels and blurs with 4x the kernel (cv2.pyrDown / cv2.pyrUp). Level i of the
// pyramid is Gaussian level i minus pyrUp of Gaussian level i + 1; the coarsest level is the
// Gaussian level itself.
//
// Tensors: float (N, C, H, W) on any device, H and W even down to the coarsest level; results on
// the same device, float32. Stateless; safe from any thread.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

namespace streetgan {

class LaplacianPyramid {
public:
    /// `levels` levels of `images` (levels >= 1): sizes H, H/2, ..., H/2^(levels-1).
    static std::vector<at::Tensor> build(const at::Tensor& images, int levels);
    /// Blur, then every second row and column: (N, C, H, W) -> (N, C, H/2, W/2).
    static at::Tensor pyrDown(const at::Tensor& images);
    /// Zeros between the pixels, then the blur times 4: (N, C, H, W) -> (N, C, 2H, 2W).
    static at::Tensor pyrUp(const at::Tensor& images);
    /// The separable 5-tap blur with mirror boundaries; `gain` multiplies the result.
    static at::Tensor blur(const at::Tensor& images, double gain = 1.0);
};

}  // namespace streetgan
