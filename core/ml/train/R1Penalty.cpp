#include "ml/train/R1Penalty.h"

#include <torch/torch.h>

namespace streetgan {

torch::Tensor R1Penalty::compute(Discriminator& d, const torch::Tensor& real, double gamma, int64_t every) {
    auto x = real.detach().to(at::promote_types(real.scalar_type(), torch::kFloat32)).requires_grad_(true);  // fp32 or wider
    auto logits = d->forward(x).to(torch::kFloat32);
    // create_graph: the penalty is differentiated again, with respect to D's parameters.
    auto grad = torch::autograd::grad({logits.sum()}, {x}, /*grad_outputs=*/{}, /*retain_graph=*/true, /*create_graph=*/true)[0];
    return grad.square().sum({1, 2, 3}).mean() * (gamma / 2.0 * static_cast<double>(every));
}

}  // namespace streetgan
