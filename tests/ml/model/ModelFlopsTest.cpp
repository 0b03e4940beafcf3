// ModelFlops against the FLOPs counted from the real modules' shapes in a forward pass, and
// GpuPeak's lookup by CUDA's device names.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "base/model/ModelFlops.h"
#include "base/model/Presets.h"
#include "base/util/GpuPeak.h"
#include "ml/model/Discriminator.h"
#include "ml/model/Generator.h"

using namespace streetgan;

namespace {

struct Counted {
    double total = 0, first = 0;
};

// 2 x multiply-adds of every (transposed) convolution in `seq`, from the tensors it sees.
Counted count(torch::nn::Module& model, torch::Tensor x) {
    torch::NoGradGuard noGrad;
    Counted c;
    auto seq = model.named_children()["main"];
    for (const auto& layer : seq->children()) {
        const torch::Tensor in = x;
        if (auto conv = std::dynamic_pointer_cast<torch::nn::Conv2dImpl>(layer)) {
            x = conv->forward(x);
            const auto k = conv->weight.size(2) * conv->weight.size(3);
            const int64_t outPerImage = x.numel() / x.size(0);  // exact: every image has the same shape
            const double f = 2.0 * static_cast<double>(outPerImage * in.size(1) * k);
            c.total += f;
            if (c.first == 0) c.first = f;
        } else if (auto convT = std::dynamic_pointer_cast<torch::nn::ConvTranspose2dImpl>(layer)) {
            x = convT->forward(x);
            const auto k = convT->weight.size(2) * convT->weight.size(3);
            const int64_t inPerImage = in.numel() / in.size(0);
            const double f = 2.0 * static_cast<double>(inPerImage * x.size(1) * k);
            c.total += f;
            if (c.first == 0) c.first = f;
        } else if (auto bn = std::dynamic_pointer_cast<torch::nn::BatchNorm2dImpl>(layer)) {
            x = bn->forward(x);
        } else {
            x = torch::relu(x);  // the activations change no shape
        }
    }
    return c;
}

}  // namespace

TEST(ModelFlops, CountsEveryConvolutionOfThePresets) {
    for (const char* preset : {"tiny-32", "naive-64", "msls-128"}) {
        const ModelConfig m = Presets::get(preset);
        Generator g(m);
        Discriminator d(m);
        g->eval();
        d->eval();
        const Counted cg = count(*g, torch::randn({2, m.nz, 1, 1}));
        const Counted cd = count(*d, torch::randn({2, m.nc, m.imgSize, m.imgSize}));
        const ModelFlops f = ModelFlops::of(m);
        EXPECT_DOUBLE_EQ(f.generatorForward, cg.total) << preset;
        EXPECT_DOUBLE_EQ(f.discriminatorForward, cd.total) << preset;
        EXPECT_DOUBLE_EQ(f.generatorFirstLayer, cg.first) << preset;
        EXPECT_DOUBLE_EQ(f.discriminatorFirstLayer, cd.first) << preset;
        // D's weight gradients in G's pass are one more forward's worth of D.
        EXPECT_DOUBLE_EQ(f.stepPerImage(true) - f.stepPerImage(false), f.discriminatorForward) << preset;
    }
    // naive-64: G 0.209 and D 0.208 GFLOP forward; the step as TrainStep runs it 2.27, with D's
    // discarded weight gradients (PyTorch's reference step) 2.48, issue 46's figure.
    const ModelFlops n = ModelFlops::of(Presets::get("naive-64"));
    EXPECT_NEAR(n.stepPerImage(false) / 1e9, 2.275, 0.001);
    EXPECT_NEAR(n.stepPerImage(true) / 1e9, 2.482, 0.001);
}

TEST(GpuPeak, KnowsTheChipsByCudasNames) {
    EXPECT_EQ(GpuPeak::tflops("NVIDIA H200", "bf16"), 989.4);
    EXPECT_EQ(GpuPeak::tflops("NVIDIA H100 80GB HBM3", "tf32"), 494.7);
    EXPECT_EQ(GpuPeak::tflops("NVIDIA H100 PCIe", "bf16"), 756.0);
    EXPECT_EQ(GpuPeak::tflops("NVIDIA A100-SXM4-80GB", "fp32"), 19.5);
    EXPECT_EQ(GpuPeak::tflops("NVIDIA L40S", "bf16"), 362.0);
    EXPECT_EQ(GpuPeak::tflops("NVIDIA L40", "bf16"), 181.0);
    EXPECT_EQ(GpuPeak::tflops("NVIDIA L4", "bf16"), 121.0);
    EXPECT_EQ(GpuPeak::tflops("Tesla V100-SXM2-16GB", "fp16"), 125.0);
    EXPECT_FALSE(GpuPeak::tflops("Tesla V100-SXM2-16GB", "bf16")) << "Volta has no bf16 tensor cores";
    EXPECT_FALSE(GpuPeak::tflops("NVIDIA GeForce RTX 4090", "bf16")) << "an unknown GPU has no figure";
    EXPECT_FALSE(GpuPeak::tflops("", "bf16")) << "the CPU";
    EXPECT_FALSE(GpuPeak::tflops("NVIDIA H200", "int8"));
}
