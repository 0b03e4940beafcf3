#include "ml/dist/GradientSync.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/torch.h>

#include "base/util/Errors.h"
#include "ml/dist/DistributedContext.h"

namespace streetgan {

GradientSync::GradientSync(std::vector<torch::Tensor> params, DistributedContext& dist, size_t bucketBytes)
    : params_(std::move(params)), dist_(dist), bucketOf_(params_.size()), ready_(params_.size(), 0) {
    size_t bytes = 0;
    for (size_t k = params_.size(); k-- > 0;) {
        const auto& p = params_[k];
        if (p.scalar_type() != torch::kFloat32)
            throw ConfigError("gradient averaging supports float32 parameters only: keep the model in float32 (AMP autocasts)");
        if (buckets_.empty() || bytes >= bucketBytes) {
            buckets_.emplace_back();
            bytes = 0;
        }
        Bucket& b = buckets_.back();
        b.offsets.push_back(b.params.empty() ? 0 : b.offsets.back() + params_[b.params.back()].numel());
        b.params.push_back(k);
        bucketOf_[k] = buckets_.size() - 1;
        bytes += static_cast<size_t>(p.numel()) * sizeof(float);
    }
    for (auto& b : buckets_) {
        const int64_t n = b.offsets.back() + params_[b.params.back()].numel();
        b.flat = torch::zeros({n}, torch::TensorOptions().dtype(torch::kFloat32).device(dist_.collectiveDevice()));
    }
    for (size_t k = 0; k < params_.size(); ++k) {
        auto acc = torch::autograd::impl::grad_accumulator(params_[k]);
        // Runs after AccumulateGrad has added this pass's gradient into .grad.
        acc->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
            [this, k](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
                onReady(k);
                return outputs;
            }));
        accumulators_.push_back(std::move(acc));
    }
}

// The hooks stay registered on the accumulators (c10 has no removal API in 1.13 for post hooks);
// GradientSync lives as long as the modules it serves (TrainStep owns both).
GradientSync::~GradientSync() = default;

void GradientSync::arm() {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = true;
    nextLaunch_ = 0;
    error_ = nullptr;
    std::fill(ready_.begin(), ready_.end(), 0);
    for (auto& b : buckets_) {
        b.pending = b.params.size();
        b.work.reset();
    }
}

void GradientSync::onReady(size_t param) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!armed_ || ready_[param]) return;
    ready_[param] = 1;
    --buckets_[bucketOf_[param]].pending;
    launchReady();
}

void GradientSync::launchReady() {
    while (nextLaunch_ < buckets_.size() && buckets_[nextLaunch_].pending == 0) {
        try {
            launch(buckets_[nextLaunch_]);
        } catch (...) {
            if (!error_) error_ = std::current_exception();
        }
        ++nextLaunch_;
    }
}

void GradientSync::launch(Bucket& b) {
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < b.params.size(); ++i) {
        const auto& p = params_[b.params[i]];
        auto dst = b.flat.narrow(0, b.offsets[i], p.numel());
        const auto& g = p.grad();
        if (g.defined())
            dst.copy_(g.reshape(-1));  // reshape: channels-last gradients are not contiguous
        else
            dst.zero_();
    }
    std::vector<torch::Tensor> v{b.flat};
    b.work = dist_.group()->allreduce(v);
}

void GradientSync::finish() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!armed_) return;
    for (auto& b : buckets_) b.pending = 0;  // parameters backward never reached: zeros
    launchReady();
    armed_ = false;
    lock.unlock();
    if (error_) {
        try {
            std::rethrow_exception(error_);
        } catch (const Error&) {
            throw;
        } catch (const std::exception& e) {
            throw Error(dist_.failure("gradient allreduce", e.what()));
        }
    }
    torch::NoGradGuard noGrad;
    const double inv = 1.0 / dist_.worldSize();
    for (auto& b : buckets_) {
        dist_.waitFor(b.work, "gradient allreduce");
        b.flat.mul_(inv);
        for (size_t i = 0; i < b.params.size(); ++i) {
            auto& p = params_[b.params[i]];
            auto avg = b.flat.narrow(0, b.offsets[i], p.numel()).view(p.sizes());
            if (p.grad().defined())
                p.mutable_grad().copy_(avg);
            else
                p.mutable_grad() = avg.clone().contiguous(p.suggest_memory_format());
        }
    }
}

}  // namespace streetgan
