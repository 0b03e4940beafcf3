#include "ml/directions/LabelledImages.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>

#include "base/util/Errors.h"
#include "ml/export/FrameRenderer.h"

namespace streetgan {

LabelledImages LabelledImages::load(const ImageSource& source, const std::vector<int64_t>& indices, std::vector<std::string> keys, int side,
                                    const ProgressFn& progress, const std::atomic<bool>* cancel) {
    if (keys.size() != indices.size())
        throw DataError("labelled images: " + std::to_string(indices.size()) + " indices but " + std::to_string(keys.size()) + " keys");
    const auto n = static_cast<int64_t>(indices.size());
    at::Tensor bytes = torch::empty({n, side, side, 3}, torch::kUInt8);
    uint8_t* out = bytes.data_ptr<uint8_t>();
    const size_t each = static_cast<size_t>(side) * static_cast<size_t>(side) * 3;
    for (int64_t i = 0; i < n; ++i) {
        if (cancel && cancel->load()) throw RenderCancelled("direction fitting cancelled");
        source.load(indices[static_cast<size_t>(i)], side, 0, out + static_cast<size_t>(i) * each);
        if (progress) progress(i + 1, n);
    }
    LabelledImages l;
    l.keys = std::move(keys);
    l.images = bytes.permute({0, 3, 1, 2}).to(torch::kFloat).div(127.5).sub(1).contiguous();
    return l;
}

std::vector<int64_t> LabelledImages::pick(int64_t count, int64_t max, uint64_t seed) {
    std::vector<int64_t> out;
    if (count <= max) {
        for (int64_t i = 0; i < count; ++i) out.push_back(i);
        return out;
    }
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    const at::Tensor order = torch::randperm(count, gen, torch::TensorOptions().dtype(torch::kLong)).narrow(0, 0, max);
    out.assign(order.data_ptr<int64_t>(), order.data_ptr<int64_t>() + max);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace streetgan
