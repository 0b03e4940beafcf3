#include "ml/directions/LabelClassifier.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "base/util/Errors.h"

namespace streetgan {

LabelClassifier::LabelClassifier(Discriminator d) : d_(std::move(d)) {
    if (!d_.is_empty()) d_->eval();
}

at::Tensor LabelClassifier::features(const at::Tensor& images, int64_t batch) const {
    torch::NoGradGuard noGrad;
    std::vector<at::Tensor> rows;
    for (int64_t i = 0; i < images.size(0); i += batch) {
        const at::Tensor x = images.narrow(0, i, std::min(batch, images.size(0) - i));
        std::vector<at::Tensor> parts{torch::adaptive_avg_pool2d(x, {kThumbnail, kThumbnail}).flatten(1)};
        if (!d_.is_empty()) {
            const auto dev = d_->parameters().front().device();
            for (const auto& f : d_->features(x.to(dev))) parts.push_back(f.mean({2, 3}));
        }
        for (auto& p : parts) p = p.to(torch::kCPU, torch::kFloat);
        rows.push_back(torch::cat(parts, 1));
    }
    return torch::cat(rows, 0);
}

LabelClassifier::Trained LabelClassifier::train(const at::Tensor& features, const at::Tensor& y, uint64_t seed, double heldOutFraction) {
    const int64_t n = features.size(0);
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    const at::Tensor order = torch::randperm(n, gen, torch::TensorOptions().dtype(torch::kLong));
    const auto held = static_cast<int64_t>(static_cast<double>(n) * heldOutFraction);
    const at::Tensor heldIdx = order.narrow(0, 0, held), trainIdx = order.narrow(0, held, n - held);
    const at::Tensor yTrain = y.index_select(0, trainIdx), yHeld = y.index_select(0, heldIdx);
    auto bothClasses = [](const at::Tensor& t) {
        const int64_t pos = t.to(torch::kLong).sum().item<int64_t>();
        return pos > 0 && pos < t.numel();
    };
    if (!bothClasses(yTrain) || !bothClasses(yHeld))
        throw DataError("too few labelled images: " + std::to_string(n) + " images (" + std::to_string(y.to(torch::kLong).sum().item<int64_t>()) +
                        " on the positive side) leave a class out of the training or held-out part; give more labelled images");
    Trained t;
    t.fit = LogisticFit::fit(features.index_select(0, trainIdx), yTrain, {});
    t.heldOutAccuracy = t.fit.balancedAccuracy(features.index_select(0, heldIdx), yHeld);
    t.train = n - held;
    t.heldOut = held;
    return t;
}

}  // namespace streetgan
