#include "ml/checkpoint/OptimizerState.h"

#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/util/TorchCompat.h"

namespace streetgan {
namespace {

auto key(const torch::Tensor& p) { return TorchCompat::optimizerStateKey(p); }

}  // namespace

OptimizerState OptimizerState::capture(torch::optim::AdamW& opt) {
    OptimizerState s;
    auto& group = opt.param_groups().at(0);
    const auto& o = static_cast<const torch::optim::AdamWOptions&>(group.options());
    s.lr = o.lr();
    s.beta1 = std::get<0>(o.betas());
    s.beta2 = std::get<1>(o.betas());
    s.weightDecay = o.weight_decay();
    s.eps = o.eps();
    for (const auto& p : group.params()) {
        auto it = opt.state().find(key(p));
        if (it == opt.state().end()) {
            s.step.push_back(0);
            s.expAvg.emplace_back();
            s.expAvgSq.emplace_back();
            continue;
        }
        const auto& st = static_cast<const torch::optim::AdamWParamState&>(*it->second);
        s.step.push_back(st.step());
        s.expAvg.push_back(st.exp_avg().detach().to(torch::kCPU).clone());
        s.expAvgSq.push_back(st.exp_avg_sq().detach().to(torch::kCPU).clone());
    }
    return s;
}

void OptimizerState::restore(torch::optim::AdamW& opt, const std::string& what) const {
    auto& group = opt.param_groups().at(0);
    auto& params = group.params();
    if (params.size() != step.size())
        throw CheckpointError(what + " optimizer state has " + std::to_string(step.size()) + " parameters, the model has " + std::to_string(params.size()));
    auto& o = static_cast<torch::optim::AdamWOptions&>(group.options());
    if (lr > 0) o.lr(lr);
    for (size_t i = 0; i < params.size(); ++i) {
        const auto& p = params[i];
        if (step[i] == 0) {
            opt.state().erase(key(p));
            continue;
        }
        if (!expAvg[i].defined() || expAvg[i].sizes() != p.sizes() || !expAvgSq[i].defined() || expAvgSq[i].sizes() != p.sizes())
            throw CheckpointError(what + " optimizer state " + std::to_string(i) + " has shape " +
                                  (expAvg[i].defined() ? Checkpoint::shapeText(expAvg[i]) : std::string("(none)")) + ", the parameter has " +
                                  Checkpoint::shapeText(p));
        auto st = std::make_unique<torch::optim::AdamWParamState>();
        st->step(step[i]);
        // Same memory format as the parameter (channels_last weights keep NHWC moments).
        const auto format = p.suggest_memory_format();
        st->exp_avg(expAvg[i].to(p.device(), p.scalar_type()).clone(format));
        st->exp_avg_sq(expAvgSq[i].to(p.device(), p.scalar_type()).clone(format));
        opt.state()[key(p)] = std::move(st);
    }
}

}  // namespace streetgan
