#include "ml/dist/DistCheck.h"

#include <torch/torch.h>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "ml/dist/DistributedContext.h"
#include "ml/dist/GradientSync.h"
#include "ml/model/Discriminator.h"
#include "ml/model/Generator.h"
#include "ml/model/WeightInit.h"

namespace streetgan {
namespace {

namespace F = torch::nn::functional;

std::vector<torch::Tensor> gradients(const std::vector<torch::Tensor>& params) {
    std::vector<torch::Tensor> out;
    for (const auto& p : params) out.push_back(p.grad().defined() ? p.grad().detach().clone() : torch::zeros_like(p));
    return out;
}

// Largest |a - b| and |b| over all tensors.
std::pair<double, double> compare(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
    double diff = 0, ref = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, (a[i] - b[i]).abs().max().item<double>());
        ref = std::max(ref, b[i].abs().max().item<double>());
    }
    return {diff, ref};
}

}  // namespace

double DistCheck::Result::tolerance(const torch::Device& device) { return device.is_cuda() ? 1e-2 : 1e-4; }

nlohmann::json DistCheck::Result::toJson() const {
    return {{"d_max_diff", dMaxDiff}, {"d_max_grad", dMaxRef}, {"d_relative", dRelative()}, {"d_buckets", dBuckets},
            {"g_max_diff", gMaxDiff}, {"g_max_grad", gMaxRef}, {"g_relative", gRelative()}, {"g_buckets", gBuckets}};
}

DistCheck::Result DistCheck::run(DistributedContext& dist, const Options& o, const torch::Device& device) {
    // The check is about the split and the collectives, not the convolutions' rounding: on a GPU,
    // TF32 and cuDNN's nondeterministic algorithms alone move gradients by up to 3% between two
    // runs of one batch (measured on an H200 by FusedBnActTest), more than the tolerance. Plain
    // fp32 and deterministic algorithms, for the process: dist-check is a command of its own.
    at::globalContext().setAllowTF32CuDNN(false);
    at::globalContext().setDeterministicCuDNN(true);
    at::globalContext().setBenchmarkCuDNN(false);
    torch::manual_seed(o.seed);
    Generator g(o.model);
    Discriminator d(o.model);
    WeightInit::dcgan(*g);
    WeightInit::dcgan(*d);
    g->to(device);
    d->to(device);
    // The trainer's start: rank 0's weights everywhere (the same seed gives them already).
    dist.broadcastModule(*g, "broadcast of G from rank 0");
    dist.broadcastModule(*d, "broadcast of D from rank 0");
    g->eval();  // see the header: per-image outputs make the batch split exact
    d->eval();

    const int64_t W = dist.worldSize(), B = W * o.perRank, S = o.model.imgSize;
    const auto real = (torch::rand({B, o.model.nc, S, S}) * 2 - 1).to(device);
    const auto z = torch::randn({B, o.model.nz, 1, 1}).to(device);
    const auto ones = torch::ones({B}, torch::TensorOptions().device(device)), zeros = torch::zeros({B}, torch::TensorOptions().device(device));

    GradientSync syncD(d->parameters(), dist, o.bucketBytes), syncG(g->parameters(), dist, o.bucketBytes);
    // D's update and G's, as TrainStep::update computes them; `sync` arms the last backward pass.
    auto dGrad = [&](int64_t from, int64_t n, bool sync) {
        d->zero_grad(true);
        F::binary_cross_entropy_with_logits(d->forward(real.narrow(0, from, n)), ones.narrow(0, from, n)).backward();
        if (sync) syncD.arm();
        const auto fake = g->forward(z.narrow(0, from, n)).detach();
        F::binary_cross_entropy_with_logits(d->forward(fake), zeros.narrow(0, from, n)).backward();
        if (sync) syncD.finish();
        return gradients(d->parameters());
    };
    auto gGrad = [&](int64_t from, int64_t n, bool sync) {
        g->zero_grad(true);
        d->zero_grad(true);
        const auto loss = F::binary_cross_entropy_with_logits(d->forward(g->forward(z.narrow(0, from, n))), ones.narrow(0, from, n));
        if (sync) syncG.arm();
        loss.backward();
        if (sync) syncG.finish();
        return gradients(g->parameters());
    };

    const auto dWhole = dGrad(0, B, false), gWhole = gGrad(0, B, false);
    const int64_t from = dist.rank() * o.perRank;
    const auto dAveraged = dGrad(from, o.perRank, true), gAveraged = gGrad(from, o.perRank, true);

    Result r;
    std::tie(r.dMaxDiff, r.dMaxRef) = compare(dAveraged, dWhole);
    std::tie(r.gMaxDiff, r.gMaxRef) = compare(gAveraged, gWhole);
    r.dBuckets = syncD.bucketCount();
    r.gBuckets = syncG.bucketCount();
    return r;
}

}  // namespace streetgan
