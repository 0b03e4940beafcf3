// The R1 gradient penalty (Mescheder et al. 2018) with StyleGAN2's lazy regularisation:
//   R1 = gamma / 2 x E_x ||grad_x D(x)||^2 x every
// on real images x, applied every `every`-th D step in a backward pass of its own (the factor
// `every` keeps its average strength). D(x) is the logit: our D ends without a sigmoid (its loss is
// BCE with logits), which is what StyleGAN2 penalises as well.
// Computed in fp32 outside autocast (the squared gradients of fp16 activations underflow); the
// caller scales it like any loss under fp16 loss scaling. With BatchNorm in D (DCGAN), the forward
// pass runs in training mode like D's other passes, so its running statistics move once more.
// Shapes: real (B, C, H, W); returns a 0-d float32 tensor with a graph to D's parameters.
#pragma once

#include <torch/types.h>

#include "ml/model/Discriminator.h"

namespace streetgan {

class R1Penalty {
public:
    static torch::Tensor compute(Discriminator& d, const torch::Tensor& real, double gamma, int64_t every);
};

}  // namespace streetgan
