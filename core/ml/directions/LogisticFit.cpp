#include "ml/directions/LogisticFit.h"

#include <torch/torch.h>

#include "base/util/Errors.h"

namespace streetgan {

LogisticFit LogisticFit::fit(const at::Tensor& xIn, const at::Tensor& yIn, const Options& o) {
    if (xIn.dim() != 2 || yIn.dim() != 1 || xIn.size(0) != yIn.size(0))
        throw DataError("logistic fit: expected features (N, D) and N labels, got " + std::to_string(xIn.dim()) + "-d and " + std::to_string(yIn.numel()));
    torch::NoGradGuard outer;
    const at::Tensor x = xIn.to(at::kFloat).contiguous();
    const at::Tensor y = yIn.to(at::kFloat);
    const double pos = y.sum().item<double>(), n = static_cast<double>(y.size(0));
    if (pos < 1 || pos > n - 1)
        throw DataError("logistic fit: both classes are needed, got " + std::to_string(static_cast<int64_t>(pos)) + " of " +
                        std::to_string(static_cast<int64_t>(n)) + " positive");
    LogisticFit f;
    if (o.standardise) {
        f.mean_ = x.mean(0);
        f.scale_ = x.std(0, /*unbiased=*/false).clamp_min(1e-6);
    } else {
        f.mean_ = torch::zeros({x.size(1)});
        f.scale_ = torch::ones({x.size(1)});
    }
    const at::Tensor xs = (x - f.mean_) / f.scale_;
    // Each class carries half the loss: weights n / (2 * count of the sample's class).
    const at::Tensor weight = torch::where(y > 0.5, torch::full_like(y, n / (2 * pos)), torch::full_like(y, n / (2 * (n - pos))));
    at::Tensor w = torch::zeros({x.size(1)}, torch::requires_grad()), b = torch::zeros({1}, torch::requires_grad());
    torch::optim::Adam opt({w, b}, torch::optim::AdamOptions(o.lr));
    {
        torch::AutoGradMode grad(true);
        for (int s = 0; s < o.steps; ++s) {
            opt.zero_grad();
            const at::Tensor logits = xs.matmul(w) + b;
            const at::Tensor loss = torch::binary_cross_entropy_with_logits(logits, y, weight) + o.l2 * w.pow(2).sum();
            loss.backward();
            opt.step();
        }
    }
    f.w_ = w.detach().clone();
    f.b_ = b.detach().clone();
    return f;
}

at::Tensor LogisticFit::logits(const at::Tensor& x) const {
    torch::NoGradGuard noGrad;
    return ((x.to(at::kFloat) - mean_) / scale_).matmul(w_) + b_;
}

double LogisticFit::balancedAccuracy(const at::Tensor& x, const at::Tensor& y) const { return balancedAccuracyOf(logits(x) > 0, y); }

double LogisticFit::balancedAccuracyOf(const at::Tensor& predicted, const at::Tensor& y) {
    const at::Tensor t = y.to(at::kBool), p = predicted.to(at::kBool);
    const double pos = t.sum().item<double>(), neg = static_cast<double>(t.numel()) - pos;
    const double hitPos = (p & t).sum().item<double>(), hitNeg = (~p & ~t).sum().item<double>();
    if (pos == 0) return hitNeg / neg;
    if (neg == 0) return hitPos / pos;
    return 0.5 * (hitPos / pos + hitNeg / neg);
}

at::Tensor LogisticFit::weightInInputs() const { return w_ / scale_; }

}  // namespace streetgan
