// One rank of the distributed tests (started twice by test_dist with torchrun's environment).
//   dist_worker grad OUT.json   : DistCheck (averaged gradients vs the whole batch's) with small buckets
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
#include "ml/dist/DistCheck.h"
#include "ml/dist/DistributedContext.h"
#include "ml/train/TrainStep.h"

using namespace streetgan;

namespace {

// DistCheck with tiny-32 and 4 KB buckets (several per model, launched in order).
int gradScenario(DistributedContext& dist, const std::string& out) {
    DistCheck::Options o;
    o.model = Presets::get("tiny-32");
    o.perRank = 4;
    o.seed = 7;
    o.bucketBytes = 4096;
    std::ofstream(out) << DistCheck::run(dist, o, torch::kCPU).toJson().dump();
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
        DistributedContext dist(*env, "gloo", torch::kCPU, std::chrono::seconds(20));
        const std::string scenario = argv[1];
        if (scenario == "grad") return gradScenario(dist, argv[2]);
        if (scenario == "steps") return stepsScenario(dist, argv[2]);
        throw std::runtime_error("unknown scenario " + scenario);
    } catch (const std::exception& e) {
        std::cerr << "dist_worker: " << e.what() << "\n";
        return 1;
    }
}
