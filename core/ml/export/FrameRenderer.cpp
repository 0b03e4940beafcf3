#include "ml/export/FrameRenderer.h"

#include <string>

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include "ml/export/GifWriter.h"
#include "ml/export/PixelResize.h"

namespace streetgan {

FrameRenderer::FrameRenderer(Generator g, Options options, std::shared_ptr<const FrozenGenerator> frozen)
    : g_(std::move(g)), options_(options), frozen_(std::move(frozen)) {
    if (options_.size < 1 || options_.size > 4096) throw ConfigError("frame renderer: size must be within 1..4096 (got " + std::to_string(options_.size) + ")");
    if (options_.batch < 1 || options_.batch > 4096)
        throw ConfigError("frame renderer: batch must be within 1..4096 (got " + std::to_string(options_.batch) + ")");
    g_->eval();
    if (options_.precision == FrozenGenerator::Precision::Float32) {
        frozen_.reset();
    } else if (!frozen_) {
        frozen_ = std::make_shared<const FrozenGenerator>(g_, options_.precision);
    } else if (frozen_->precision() != options_.precision || frozen_->config().nz != g_->config().nz) {
        throw ConfigError("frame renderer: the frozen generator given has another precision or nz than the renderer's");
    }
}

int64_t FrameRenderer::nz() const { return g_->config().nz; }

at::Tensor FrameRenderer::resize(const at::Tensor& framesHwc, int size, Upscale mode) {
    if (!framesHwc.defined() || framesHwc.dim() != 4 || framesHwc.size(3) != 3 || framesHwc.scalar_type() != at::kByte)
        throw DataError("frame renderer: expected uint8 frames (N, H, W, 3)");
    return PixelResize::resize(framesHwc, size, size, mode == Upscale::Nearest ? PixelResize::Filter::Nearest : PixelResize::Filter::Smooth);
}

at::Tensor FrameRenderer::render(const at::Tensor& z, const FrameProgress& progress, const std::atomic<bool>* cancel) const {
    const int64_t nzv = nz();
    if (!z.defined() || z.dim() < 2 || z.size(1) != nzv || z.numel() != z.size(0) * nzv)
        throw DataError("frame renderer: expected latents (N, " + std::to_string(nzv) + ", 1, 1)");
    const int64_t n = z.size(0);
    at::Tensor out = at::empty({n, options_.size, options_.size, 3}, at::kByte);
    Generator g = g_;  // the holder's operator-> is const-only on a const holder; the module is shared
    const auto device = g->parameters().front().device();
    for (int64_t start = 0; start < n; start += options_.batch) {
        if (cancel && cancel->load(std::memory_order_relaxed)) throw RenderCancelled("rendering was cancelled");
        const int64_t count = std::min<int64_t>(options_.batch, n - start);
        at::Tensor frames;
        {
            c10::InferenceMode guard;
            const at::Tensor zb = z.narrow(0, start, count).reshape({count, nzv, 1, 1});
            const at::Tensor images = frozen_ ? frozen_->forward(zb.to(at::kCPU, at::kFloat)) : g->forward(zb.to(device, at::kFloat));
            frames = resize(GifWriter::fromImages(images), options_.size, options_.upscale);
        }
        out.narrow(0, start, count).copy_(frames);
        if (progress) progress(start + count, n);
    }
    return out;
}

at::Tensor FrameRenderer::renderOne(const at::Tensor& z) const { return render(z.reshape({1, -1, 1, 1}))[0]; }

}  // namespace streetgan
