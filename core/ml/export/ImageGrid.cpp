#include "ml/export/ImageGrid.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <ATen/ATen.h>
#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "base/util/PngEncoder.h"
#include "ml/export/ExportWriter.h"
#include "ml/util/ShapeText.h"

namespace streetgan {
at::Tensor ImageGrid::makeGrid(const at::Tensor& images, int nrow, int padding, bool normalize, float padValue) {
    if (nrow < 1) throw ConfigError("Image grid: nrow must be at least 1 (got " + std::to_string(nrow) + ")");
    if (padding < 0) throw ConfigError("Image grid: padding must be 0 or more (got " + std::to_string(padding) + ")");
    if (!images.defined() || images.dim() < 2 || images.dim() > 4)
        throw DataError("Image grid: expected images shaped (N, C, H, W), got " + (images.defined() ? shapeText(images) : std::string("an undefined tensor")));

    at::Tensor tensor = images;
    // torchvision: (H, W) -> (1, H, W); a single (C, H, W) image becomes a batch of one, grey to RGB.
    if (tensor.dim() == 2) tensor = tensor.unsqueeze(0);
    if (tensor.dim() == 3) {
        if (tensor.size(0) == 1) tensor = at::cat({tensor, tensor, tensor}, 0);
        tensor = tensor.unsqueeze(0);
    }
    if (tensor.size(1) == 1) tensor = at::cat({tensor, tensor, tensor}, 1);
    if (tensor.size(0) == 0 || tensor.numel() == 0) throw DataError("Image grid: the batch " + shapeText(images) + " holds no pixels; pass at least one image");

    if (normalize) {
        if (!at::isFloatingType(tensor.scalar_type())) throw DataError("Image grid: normalize needs floating-point images; convert them with .to(kFloat)");
        tensor = tensor.clone();
        // norm_ip(img, float(t.min()), float(t.max())): the same ops and scalar types as torchvision.
        const double low = tensor.min().item<double>();
        const double high = tensor.max().item<double>();
        tensor.clamp_(low, high);
        tensor.sub_(low).div_(std::max(high - low, 1e-5));
    }

    if (tensor.size(0) == 1) return tensor.squeeze(0);

    const int64_t nmaps = tensor.size(0);
    const int64_t xmaps = std::min<int64_t>(nrow, nmaps);
    const int64_t ymaps = static_cast<int64_t>(std::ceil(static_cast<double>(nmaps) / static_cast<double>(xmaps)));
    const int64_t height = tensor.size(2) + padding, width = tensor.size(3) + padding;
    const int64_t numChannels = tensor.size(1);
    at::Tensor grid = at::full({numChannels, height * ymaps + padding, width * xmaps + padding}, padValue, tensor.options());
    int64_t k = 0;
    for (int64_t y = 0; y < ymaps; ++y) {
        for (int64_t x = 0; x < xmaps; ++x) {
            if (k >= nmaps) break;
            grid.narrow(1, y * height + padding, height - padding).narrow(2, x * width + padding, width - padding).copy_(tensor[k]);
            ++k;
        }
    }
    return grid;
}

std::string ImageGrid::encodePng(const at::Tensor& chw01, int zlibLevel) {
    if (!chw01.defined() || chw01.dim() < 2 || chw01.dim() > 3)
        throw DataError("PNG encoder: expected an image shaped (C, H, W), got " + (chw01.defined() ? shapeText(chw01) : std::string("an undefined tensor")));
    at::Tensor img = chw01.dim() == 2 ? chw01.unsqueeze(0) : chw01;
    const int64_t c = img.size(0), h = img.size(1), w = img.size(2);
    if (c != 1 && c != 3 && c != 4)
        throw DataError("PNG encoder: an image needs 1, 3 or 4 channels, got " + shapeText(chw01) + "; pass (C, H, W) with C first");
    if (h <= 0 || w <= 0) throw DataError("PNG encoder: the image " + shapeText(chw01) + " is empty");
    if (h > 1'000'000 || w > 1'000'000) throw DataError("PNG encoder: the image " + shapeText(chw01) + " is too large");
    if (!at::isFloatingType(img.scalar_type())) throw DataError("PNG encoder: expected a floating-point image in [0, 1]; convert it with .to(kFloat)");

    // save_image: grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to("cpu", torch.uint8)
    at::Tensor hwc = img.detach().mul(255).add_(0.5).clamp_(0, 255).permute({1, 2, 0}).to(at::kCPU, at::kByte).contiguous();
    return PngEncoder::encode(hwc.data_ptr<uint8_t>(), static_cast<int>(w), static_cast<int>(h), static_cast<int>(c), zlibLevel);
}

void ImageGrid::writePng(const at::Tensor& chw01, const std::string& path) { AtomicFile::write(path, encodePng(chw01)); }

// The PNG grid row of ExportFormat: every frame in one image, the session's nrow and padding,
// without normalisation (the frames are already pixels).
const ExportWriter& exportWriterPngGrid() {
    static const ExportWriter writer{
        ExportFormat::Kind::PngGrid, nullptr,
        [](const at::Tensor& framesHwc, const LatentSession& session, const std::string& out, const FrameProgress& progress, const std::atomic<bool>* cancel) {
            if (cancel && cancel->load(std::memory_order_relaxed)) throw RenderCancelled("rendering was cancelled");
            const at::Tensor chw = framesHwc.permute({0, 3, 1, 2}).to(at::kFloat).div(255.0);
            ImageGrid::writePng(ImageGrid::makeGrid(chw, session.nrow, session.padding, false), out);
            if (progress) progress(framesHwc.size(0), framesHwc.size(0));
            return std::string(ExportFormat::of(ExportFormat::Kind::PngGrid).name);
        }};
    return writer;
}

}  // namespace streetgan
