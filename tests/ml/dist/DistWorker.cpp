// One rank of the distributed tests (started twice by test_dist with torchrun's environment).
//   dist_worker grad OUT.json   : averaged gradient vs the gradient of the concatenated batch
//   dist_worker steps OUT.bin   : TrainStep updates on this rank's shard; writes every parameter
// Ranks start from different weights on purpose: the broadcast from rank 0 must make them equal.
#include <torch/torch.h>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "base/model/Presets.h"
#include "base/run/TrainConfig.h"
#include "ml/dataset/BatchLoader.h"
#include "ml/dataset/SyntheticSource.h"
#include "ml/dist/DistributedContext.h"
#include "ml/dist/GradientSync.h"
#include "ml/train/TrainStep.h"

using namespace streetgan;

namespace {

int gradScenario(DistributedContext& dist, const std::string& out) {
    torch::manual_seed(7);  // the same model on every rank: no BatchNorm, so the batch split is exact
    torch::nn::Sequential net(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 4).stride(2).padding(1).bias(false)),
                              torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
                              torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 16, 4).stride(2).padding(1)),
                              torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)), torch::nn::Flatten(), torch::nn::Linear(16 * 8 * 8, 1));
    const int64_t W = dist.worldSize(), perRank = 4, B = perRank * W;
    auto gen = torch::randn({B, 3, 32, 32});
    auto target = (torch::rand({B, 1}) > 0.5).to(torch::kFloat32);
    namespace F = torch::nn::functional;

    // Reference: one process, the whole batch.
    net->zero_grad(true);
    F::binary_cross_entropy_with_logits(net->forward(gen), target).backward();
    std::vector<torch::Tensor> ref;
    for (auto& p : net->parameters()) ref.push_back(p.grad().clone());

    // This rank's quarter, in two backward passes like D's real/fake (the second one armed).
    GradientSync sync(net->parameters(), dist, /*bucketBytes=*/4096);
    net->zero_grad(true);
    auto x = gen.narrow(0, dist.rank() * perRank, perRank);
    auto y = target.narrow(0, dist.rank() * perRank, perRank);
    const int64_t h = perRank / 2;
    (F::binary_cross_entropy_with_logits(net->forward(x.narrow(0, 0, h)), y.narrow(0, 0, h)) * 0.5).backward();
    sync.arm();
    (F::binary_cross_entropy_with_logits(net->forward(x.narrow(0, h, h)), y.narrow(0, h, h)) * 0.5).backward();
    sync.finish();
    double maxDiff = 0, maxRef = 0;
    auto params = net->parameters();
    for (size_t i = 0; i < params.size(); ++i) {
        maxDiff = std::max(maxDiff, (params[i].grad() - ref[i]).abs().max().item<double>());
        maxRef = std::max(maxRef, ref[i].abs().max().item<double>());
    }
    std::ofstream(out) << nlohmann::json{{"max_diff", maxDiff}, {"max_ref", maxRef}, {"buckets", sync.bucketCount()}}.dump();
    return 0;
}

int stepsScenario(DistributedContext& dist, const std::string& out) {
    TrainConfig cfg;
    cfg.model = Presets::get("tiny-32");
    cfg.batch = 4;
    cfg.seed = 3;
    torch::manual_seed(100 + dist.rank());  // different initial weights per rank
    TrainStep step(cfg, torch::kCPU);
    step.setDistributed(dist);
    LoaderOptions lo;
    lo.batch = cfg.batch;
    lo.imgSize = 32;
    lo.nz = cfg.model.nz;
    lo.seed = cfg.seed;
    lo.rank = dist.rank();
    lo.worldSize = dist.worldSize();
    BatchLoader loader(std::make_shared<SyntheticSource>(cfg.seed, 64), lo);
    auto flat = [&] {
        std::vector<torch::Tensor> all;
        for (auto& p : step.generator()->parameters()) all.push_back(p.detach().reshape(-1));
        for (auto& p : step.discriminator()->parameters()) all.push_back(p.detach().reshape(-1));
        return torch::cat(all).contiguous();
    };
    const auto start = flat();
    for (int64_t s = 0; s < 4; ++s) step.step(loader.make(s));
    const auto end = flat();
    std::ofstream f(out, std::ios::binary);
    f.write(reinterpret_cast<const char*>(end.data_ptr<float>()), static_cast<std::streamsize>(end.numel() * sizeof(float)));
    std::cout << nlohmann::json{{"moved", (end - start).abs().max().item<double>()}}.dump() << std::endl;
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: dist_worker grad|steps OUT\n";
        return 2;
    }
    try {
        torch::set_num_threads(1);
        auto env = DistributedContext::Env::fromEnvironment();
        if (!env) throw std::runtime_error("WORLD_SIZE > 1 is required");
        DistributedContext dist(*env, false, std::chrono::seconds(20));
        const std::string scenario = argv[1];
        if (scenario == "grad") return gradScenario(dist, argv[2]);
        if (scenario == "steps") return stepsScenario(dist, argv[2]);
        throw std::runtime_error("unknown scenario " + scenario);
    } catch (const std::exception& e) {
        std::cerr << "dist_worker: " << e.what() << "\n";
        return 1;
    }
}
