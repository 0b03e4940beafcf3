#include "ml/export/PixelResize.h"

#include <string>

#include <ATen/ATen.h>

#include "base/util/Errors.h"
#include "base/util/ImageResize.h"
#include "ml/util/ShapeText.h"

namespace streetgan {

at::Tensor PixelResize::resize(const at::Tensor& frames, int outH, int outW, Filter filter) {
    if (!frames.defined() || frames.dim() != 4 || frames.size(3) < 1 || frames.scalar_type() != at::kByte)
        throw DataError("resize: expected uint8 frames (N, H, W, C), got " + (frames.defined() ? shapeText(frames) : std::string("an undefined tensor")));
    const int64_t n = frames.size(0), h = frames.size(1), w = frames.size(2), c = frames.size(3);
    at::Tensor src = frames.to(at::kCPU).contiguous();
    if (h == outH && w == outW) return src.clone();
    if (h > ResampleWeights::kMaxSide || w > ResampleWeights::kMaxSide) throw DataError("resize: frames of " + shapeText(frames) + " are too large");
    if (filter == Filter::Smooth) filter = outH >= h && outW >= w ? Filter::Cubic : Filter::Area;
    ResampleWeights::Filter f = ResampleWeights::Filter::Area;
    if (filter == Filter::Nearest) f = ResampleWeights::Filter::Nearest;
    if (filter == Filter::Cubic) f = ResampleWeights::Filter::Cubic;
    at::Tensor out = at::empty({n, outH, outW, c}, at::kByte);
    const int64_t inFrame = h * w * c, outFrame = int64_t{outH} * outW * c;
    for (int64_t i = 0; i < n; ++i)
        ImageResize::resize(src.data_ptr<uint8_t>() + i * inFrame, static_cast<int>(w), static_cast<int>(h), static_cast<size_t>(w * c), static_cast<int>(c),
                            out.data_ptr<uint8_t>() + i * outFrame, outW, outH, f);
    return out;
}

}  // namespace streetgan
