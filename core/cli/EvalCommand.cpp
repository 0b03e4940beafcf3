#include "cli/EvalCommand.h"

#include <unistd.h>

#include <ATen/CPUGeneratorImpl.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "data/DataSources.h"
#include "data/SyntheticSource.h"
#include "eval/ParzenWindow.h"
#include "train/ModelLoader.h"
#include "train/TrainConfig.h"
#include "train/Trainer.h"
#include "util/Errors.h"

namespace streetgan {
namespace {

// Real images in [0, 1], (n, 3, S, S), from `first` on.
torch::Tensor realImages(const ImageSource& src, int64_t first, int64_t n, int size) {
    auto out = torch::empty({n, size, size, 3}, torch::kUInt8);
    const int64_t bytes = static_cast<int64_t>(size) * size * 3;
    for (int64_t i = 0; i < n; ++i) src.load(first + i, size, 0, out.data_ptr<uint8_t>() + i * bytes);
    return out.permute({0, 3, 1, 2}).to(torch::kFloat32).div_(255.0);
}

}  // namespace

CLI::App* EvalCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("eval", "Parzen-window log-likelihood of held-out real images (the reference's metric)");
    a->add_option("--checkpoint", checkpoint_, "StreetGAN or reference checkpoint")->required();
    a->add_option("--data", data_, "Real images: synthetic, a folder or an archive (its held-out split)");
    a->add_option("--samples", samples_, "Generated samples in the window")->check(CLI::Range(int64_t{1}, int64_t{1000000}));
    a->add_option("--validation", validation_, "Real images that choose sigma")->check(CLI::Range(int64_t{1}, int64_t{1000000}));
    a->add_option("--test", test_, "Held-out real images scored")->check(CLI::Range(int64_t{1}, int64_t{1000000}));
    a->add_option("--seed", seed_, "Seed of the generated samples");
    a->add_option("--batch", batch_, "Rows per batch (memory only)")->check(CLI::Range(1, 100000));
    a->add_option("--device", device_, "cpu | cuda | auto");
    a->add_flag("--json", json_, "One JSON document on stdout");
    return a;
}

int EvalCommand::execute() {
    const CheckpointData ck = Checkpoint::load(checkpoint_);
    const torch::Device device = Trainer::selectDevice(device_);
    Generator g = ModelLoader::generator(ck, checkpoint_, "", device);
    const int size = static_cast<int>(ck.model.imgSize);

    // Held-out real images, never trained on: for the synthetic set the scenes past the run's
    // epoch; for photos the validation split by key hash.
    TrainConfig run;
    if (!ck.configJson.empty()) run.merge(nlohmann::json::parse(ck.configJson));
    run.model.imgSize = ck.model.imgSize;
    torch::Tensor validation, test;
    if (data_ == "synthetic") {
        SyntheticSource src(run.seed, run.syntheticImages + validation_ + test_);
        validation = realImages(src, run.syntheticImages, validation_, size);
        test = realImages(src, run.syntheticImages + validation_, test_, size);
    } else {
        const auto src = DataSources::openHeldOut(data_, run);
        if (src->size() < validation_ + test_)
            throw DataError("held-out split of '" + data_ + "' has " + std::to_string(src->size()) + " images, fewer than --validation " +
                            std::to_string(validation_) + " + --test " + std::to_string(test_) + ": lower them");
        validation = realImages(*src, 0, validation_, size);
        test = realImages(*src, validation_, test_, size);
    }

    torch::Tensor samples = torch::empty({samples_, ck.model.nc, size, size});
    {
        torch::NoGradGuard noGrad;
        auto gen = at::make_generator<at::CPUGeneratorImpl>(seed_);
        for (int64_t i = 0; i < samples_; i += 256) {
            const int64_t n = std::min<int64_t>(256, samples_ - i);
            auto z = torch::randn({n, ck.model.nz, 1, 1}, gen);
            samples.narrow(0, i, n).copy_(g->forward(z.to(device)).to(torch::kCPU).add(1.0).div(2.0));
        }
    }
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    auto progress = [&](double f) {
        if (tty) std::fprintf(stderr, "\r\033[Kparzen window %3.0f%%", f * 100.0);
    };
    const ParzenResult r = ParzenWindow::evaluate(samples, validation, test, batch_, progress);
    if (tty) std::fprintf(stderr, "\r\033[K");
    nlohmann::json j = {{"metric", "parzen"}, {"checkpoint", checkpoint_}, {"sigma", r.sigma}, {"log_likelihood", r.meanLogLikelihood},
                        {"std_error", r.stdError}, {"samples", samples_}, {"validation", validation_}, {"test", test_},
                        {"sigma_scores", nlohmann::json::array()}};
    for (const auto& [s, ll] : r.sigmaScores) j["sigma_scores"].push_back({s, ll});
    if (json_) std::cout << j.dump() << "\n";
    else std::printf("Parzen log-likelihood %.2f +- %.2f nats (sigma %.4f, %lld samples, %lld test images)\n", r.meanLogLikelihood, r.stdError, r.sigma,
                     static_cast<long long>(samples_), static_cast<long long>(test_));
    return 0;
}

}  // namespace streetgan
