#include "trainer/SampleCommand.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>
#include <iostream>

#include "base/util/Errors.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/ImageGrid.h"
#include "ml/util/DeviceChoice.h"
#include "trainer/GeneratorOption.h"

namespace streetgan {

CLI::App* SampleCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("sample", "Write a PNG grid of generated images from a checkpoint");
    a->add_option("--checkpoint", checkpoint_, "StreetGAN or reference Python checkpoint")->required();
    auto* fixed = a->add_flag("--fixed-noise", fixedNoise_, "Use the checkpoint's fixed progress noise");
    auto* seed = a->add_option("--seed", seed_, "Draw z from the standard normal generator with this seed");
    a->add_option("--count", count_, "Images to draw with --seed")->check(CLI::Range(int64_t{1}, int64_t{4096}));
    fixed->excludes(seed);
    a->add_option("--nrow", nrow_, "Images per grid row")->check(CLI::Range(1, 1024));
    a->add_option("--padding", padding_, "Pixels between images")->check(CLI::Range(0, 256));
    a->add_option("--out", out_, "Output PNG");
    a->add_option("--preset", preset_, "Refuse checkpoints that are not of this preset's architecture");
    a->add_option("--device", device_, "cpu | cuda | auto");
    addGeneratorOption(a, generator_);
    return a;
}

int SampleCommand::execute() {
    const CheckpointData ck = Checkpoint::load(checkpoint_);
    const torch::Device device = DeviceChoice::select(device_);
    Generator g = ModelLoader::generator(ck, checkpoint_, preset_, device, ModelLoader::parseChoice(generator_));
    torch::Tensor z;
    if (fixedNoise_) {
        if (!ck.fixedNoise.defined()) throw CheckpointError("checkpoint '" + checkpoint_ + "' holds no fixed noise: use --seed N --count K");
        z = ck.fixedNoise;
    } else {
        // Same draws as Python's torch.manual_seed(seed); torch.randn(count, nz, 1, 1).
        auto gen = at::make_generator<at::CPUGeneratorImpl>(seed_);
        z = torch::randn({count_, g->config().nz, 1, 1}, gen);
    }
    torch::Tensor images;
    {
        torch::NoGradGuard noGrad;
        images = g->forward(z.to(device)).to(torch::kCPU);
    }
    ImageGrid::writePng(ImageGrid::makeGrid(images, nrow_, padding_, true), out_);
    std::cout << out_ << "\n";
    return 0;
}

}  // namespace streetgan
