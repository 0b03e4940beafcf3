// Gradient averaging over a c10d process group, overlapped with the backward pass (what DDP's
// Reducer does, for models whose parameters see several backward passes per optimiser step, as
// DCGAN's D does: real then fake). The parameters are split into buckets of about `bucketBytes`
// in reverse registration order (roughly the order backward produces their gradients). A hook
// after each parameter's gradient accumulation marks it ready; a full bucket is copied into its
// flat buffer and its allreduce is started at once, on the backend's threads, while autograd
// goes on with the earlier layers. Buckets are launched strictly in index order, so every rank
// issues the same collectives in the same order. finish() launches what is left (parameters
// backward did not reach contribute zeros), waits, divides by the world size and writes the
// averages back into each parameter's .grad.
//
// Usage per optimiser step: backward passes that must not be reduced run disarmed; arm() before
// the LAST backward pass of the step (the hook then sees the accumulated gradient), finish()
// after it, then optimizer.step(). Thread contract: arm()/finish() on the training thread; the
// hooks run on autograd's thread during that backward pass. The parameters must outlive this.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <torch/csrc/autograd/variable.h>
#include <torch/types.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

namespace torch::autograd {
struct Node;
}

namespace streetgan {

class DistributedContext;

class GradientSync {
public:
    GradientSync(std::vector<torch::Tensor> params, DistributedContext& dist, size_t bucketBytes = size_t{4} << 20);
    ~GradientSync();
    GradientSync(const GradientSync&) = delete;
    GradientSync& operator=(const GradientSync&) = delete;

    /// The next backward pass reduces (hooks active until finish()).
    void arm();
    /// Completes the reduction; throws Error (DistributedContext::failure) when a peer is gone.
    void finish();
    size_t bucketCount() const { return buckets_.size(); }

private:
    struct Bucket {
        std::vector<size_t> params;  // indices into params_
        std::vector<int64_t> offsets;
        torch::Tensor flat;  // on the collective device
        size_t pending = 0;  // parameters not yet ready in this pass
        c10::intrusive_ptr<c10d::Work> work;
    };
    void onReady(size_t param);
    void launchReady();  // under mutex_: launches the ready buckets in index order
    void launch(Bucket& b);

    std::vector<torch::Tensor> params_;
    DistributedContext& dist_;
    std::vector<Bucket> buckets_;
    std::vector<size_t> bucketOf_;
    std::vector<char> ready_;
    // The handle grad_accumulator() returns: std::shared_ptr<Node> up to torch 2.14,
    // c10::intrusive_ptr<Node> from 2.15.
    using GradAccumulator = decltype(torch::autograd::impl::grad_accumulator(std::declval<const torch::autograd::Variable&>()));
    std::vector<GradAccumulator> accumulators_;  // keeps the hooked nodes alive
    std::mutex mutex_;
    bool armed_ = false;
    size_t nextLaunch_ = 0;
    std::exception_ptr error_;
};

}  // namespace streetgan
