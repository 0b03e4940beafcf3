// AdamW state in a form independent of LibTorch's optimizer internals: one entry per parameter in
// module.parameters() order, the same order and content as PyTorch's optimizer.state_dict()
// ("state": {i: {step, exp_avg, exp_avg_sq}}, "param_groups": [{lr, betas, ...}]).
#pragma once

#include <cstdint>
#include <vector>

#include <torch/optim/adamw.h>

namespace streetgan {

struct OptimizerState {
    double lr = 0;
    double beta1 = 0, beta2 = 0, weightDecay = 0, eps = 0;
    std::vector<int64_t> step;          ///< per parameter; 0: no state yet
    std::vector<torch::Tensor> expAvg;  ///< per parameter (undefined when step == 0)
    std::vector<torch::Tensor> expAvgSq;

    bool empty() const { return step.empty(); }
    /// Copies the state out of `opt` (single param group), tensors on CPU.
    static OptimizerState capture(torch::optim::AdamW& opt);
    /// Puts the state into `opt`, moving tensors to the parameters' devices; throws CheckpointError
    /// when the parameter count or a tensor shape differs (naming `what` and the index).
    void restore(torch::optim::AdamW& opt, const std::string& what) const;
};

}  // namespace streetgan
