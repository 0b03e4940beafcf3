#include "ml/train/FusedAdamW.h"

#include <torch/torch.h>

#include "ml/util/TorchCompat.h"

namespace streetgan {

bool FusedAdamW::available(torch::Device device) { return TorchCompat::kTorch2 && device.is_cuda(); }

void FusedAdamW::step(torch::optim::AdamW& opt, const std::optional<torch::Tensor>& foundInf) {
    torch::NoGradGuard noGrad;
    auto& group = opt.param_groups().at(0);
    const auto& o = static_cast<const torch::optim::AdamWOptions&>(group.options());
    auto& params = group.params();
    if (steps_.size() != params.size()) steps_.assign(params.size(), torch::Tensor());
    std::vector<torch::Tensor> ps, grads, m, v, steps;
    for (size_t i = 0; i < params.size(); ++i) {
        auto& p = params[i];
        if (!p.grad().defined()) continue;
        const auto key = TorchCompat::optimizerStateKey(p);
        auto it = opt.state().find(key);
        if (it == opt.state().end()) {
            // As torch::optim::AdamW creates it: zero moments in the parameter's memory format.
            auto st = std::make_unique<torch::optim::AdamWParamState>();
            st->step(0);
            st->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
            st->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
            it = opt.state().insert({key, std::move(st)}).first;
        }
        auto& st = static_cast<torch::optim::AdamWParamState&>(*it->second);
        if (!steps_[i].defined()) steps_[i] = torch::full({}, static_cast<double>(st.step()), torch::TensorOptions().dtype(torch::kFloat32).device(p.device()));
        ps.push_back(p);
        // The kernel walks parameter, gradient and moments as one flat layout: autograd gives a
        // gradient its parameter's strides, but a gradient set by hand may not have them.
        grads.push_back(p.grad().strides() == p.strides() ? p.grad() : p.grad().contiguous(p.suggest_memory_format()));
        m.push_back(st.exp_avg());
        v.push_back(st.exp_avg_sq());
        steps.push_back(steps_[i]);
    }
    if (ps.empty()) return;
    // As torch.optim's fused path: count the step, update (the kernel skips where found_inf is
    // set), then take the count back where it was skipped.
    // found_inf has one element (GradScaler's is of shape [1]); the step counts are scalars.
    std::optional<torch::Tensor> found;
    if (foundInf) found = foundInf->reshape({});
    torch::_foreach_add_(steps, 1);
    TorchCompat::fusedAdamW(ps, grads, m, v, steps, o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.weight_decay(), o.eps(), found);
    if (found) torch::_foreach_sub_(steps, std::vector<torch::Tensor>(steps.size(), *found));
}

void FusedAdamW::syncSteps(torch::optim::AdamW& opt) {
    auto& params = opt.param_groups().at(0).params();
    for (size_t i = 0; i < params.size() && i < steps_.size(); ++i) {
        if (!steps_[i].defined()) continue;
        auto it = opt.state().find(TorchCompat::optimizerStateKey(params[i]));
        if (it == opt.state().end()) continue;
        static_cast<torch::optim::AdamWParamState&>(*it->second).step(static_cast<int64_t>(steps_[i].item<float>()));
    }
}

}  // namespace streetgan
