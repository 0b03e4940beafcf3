#include "trainer/DistCheckCommand.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <torch/torch.h>

#include "base/model/Presets.h"
#include "base/util/Errors.h"
#include "ml/dist/DistCheck.h"
#include "ml/dist/DistributedContext.h"
#include "ml/dist/RankLauncher.h"
#include "trainer/FiniteNumber.h"

namespace streetgan {

CLI::App* DistCheckCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand(
        "dist-check",
        "Check that distributed gradient averaging equals one process on the whole batch: launch --nproc N -- dist-check (alone: a group of one rank)");
    a->add_option("--preset", preset_, "Model preset (naive-64 by default)");
    a->add_option("--batch", batch_, "Images per rank; the whole batch is N times this")->check(CLI::Range(int64_t{1}, int64_t{4096}));
    a->add_option("--seed", seed_, "Seed of the weights and the batch");
    a->add_option("--device", device_, "cpu | cuda (one GPU per local rank) | cuda:N (every rank on GPU N)");
    a->add_option("--dist-backend", backend_, "auto (NCCL on CUDA, Gloo on the CPU) | nccl | gloo")->check(CLI::IsMember({"auto", "nccl", "gloo"}));
    a->add_option("--tolerance", tolerance_, "Largest relative difference accepted (0: 1e-4 on the CPU, 1e-2 on CUDA, where convolutions use TF32)")
        ->check(FiniteNumber())
        ->check(CLI::Range(0.0, 1.0));
    a->add_option("--dist-timeout", timeout_, "Seconds a rank waits for the others")->check(FiniteNumber())->check(CLI::Range(1.0, 86400.0));
    a->add_option("--threads", threads_, "Torch intra-op threads per rank")->check(CLI::Range(1, 1024));
    return a;
}

int DistCheckCommand::execute() {
    auto env = DistributedContext::Env::fromEnvironment();
    if (!env) {
        // Alone (no WORLD_SIZE above 1): a group of one rank on a loopback rendezvous. The
        // comparison is then trivial, but the backend's group forms and its collectives run on
        // this device: the one NCCL check a single GPU allows (NCCL refuses two ranks on one GPU).
        env.emplace();
        env->masterAddr = "127.0.0.1";
        env->masterPort = RankLauncher::freePort();
    }
    torch::set_num_threads(threads_);
    const torch::Device device = DistributedContext::rankDevice(device_, *env);
    DistributedContext dist(*env, backend_, device, std::chrono::milliseconds(static_cast<int64_t>(timeout_ * 1000)));
    DistCheck::Options o;
    o.model = Presets::get(preset_);
    o.perRank = batch_;
    o.seed = seed_;
    const DistCheck::Result r = DistCheck::run(dist, o, device);
    const double tolerance = tolerance_ > 0 ? tolerance_ : DistCheck::Result::tolerance(device);
    const bool ok = r.dRelative() <= tolerance && r.gRelative() <= tolerance;
    nlohmann::json line = {{"rank", dist.rank()},      {"world_size", dist.worldSize()}, {"backend", dist.backend()}, {"device", device.str()},
                           {"preset", o.model.preset}, {"batch_per_rank", batch_},       {"tolerance", tolerance},    {"ok", ok}};
    line.update(r.toJson());
    std::cout << line.dump() << std::endl;
    if (!ok) {
        std::ostringstream why;
        why << "dist-check on rank " << dist.rank() << " of " << dist.worldSize() << " (" << dist.backend() << ", " << device.str()
            << "): the averaged gradients differ from the whole batch's by " << r.dRelative() << " (D) and " << r.gRelative()
            << " (G), relative, above the tolerance " << tolerance
            << ": this process group does not average gradients correctly; report it with the JSON line above";
        throw Error(why.str());
    }
    return 0;
}

}  // namespace streetgan
