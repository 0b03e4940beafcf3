#include "ml/eval/LaplacianPyramid.h"

#include <array>

#include <ATen/ATen.h>

#include "base/util/Errors.h"

namespace streetgan {

at::Tensor LaplacianPyramid::blur(const at::Tensor& images, double gain) {
    if (images.dim() != 4 || images.size(2) < 3 || images.size(3) < 3)
        throw DataError("Laplacian pyramid: images must be (N, C, H, W) with H, W >= 3, got " + std::string(c10::str(images.sizes())));
    const int64_t c = images.size(1);
    const at::Tensor x = images.to(at::kFloat);
    const at::Tensor k = at::tensor({1.0f, 4.0f, 6.0f, 4.0f, 1.0f}, x.options()).div_(16.0);
    // One 1-D pass per axis, each channel on its own (groups = C).
    const at::Tensor rows = k.mul(gain).view({1, 1, 5, 1}).expand({c, 1, 5, 1}).contiguous();
    const at::Tensor cols = k.view({1, 1, 1, 5}).expand({c, 1, 1, 5}).contiguous();
    at::Tensor padded = at::reflection_pad2d(x, {2, 2, 2, 2});  // reflect-101: the edge pixel is not repeated
    const std::array<int64_t, 2> one{1, 1}, none{0, 0};
    const at::Tensor noBias;
    return at::conv2d(at::conv2d(padded, rows, noBias, one, none, one, c), cols, noBias, one, none, one, c);
}

at::Tensor LaplacianPyramid::pyrDown(const at::Tensor& images) {
    const at::Tensor b = blur(images);
    return b.slice(2, 0, b.size(2), 2).slice(3, 0, b.size(3), 2).contiguous();
}

at::Tensor LaplacianPyramid::pyrUp(const at::Tensor& images) {
    const at::Tensor x = images.to(at::kFloat);
    at::Tensor up = at::zeros({x.size(0), x.size(1), x.size(2) * 2, x.size(3) * 2}, x.options());
    up.slice(2, 0, up.size(2), 2).slice(3, 0, up.size(3), 2).copy_(x);
    return blur(up, 4.0);
}

std::vector<at::Tensor> LaplacianPyramid::build(const at::Tensor& images, int levels) {
    if (levels < 1) throw DataError("Laplacian pyramid: levels must be at least 1");
    std::vector<at::Tensor> pyramid{images.to(at::kFloat).contiguous()};
    for (int i = 1; i < levels; ++i) {
        if (pyramid.back().size(2) % 2 != 0 || pyramid.back().size(3) % 2 != 0)
            throw DataError("Laplacian pyramid: level " + std::to_string(i - 1) + " is " + std::to_string(pyramid.back().size(2)) + "x" +
                            std::to_string(pyramid.back().size(3)) + ", not even: use power-of-two image sizes");
        pyramid.push_back(pyrDown(pyramid.back()));
        pyramid[i - 1] = pyramid[i - 1] - pyrUp(pyramid[i]);
    }
    return pyramid;
}

}  // namespace streetgan
