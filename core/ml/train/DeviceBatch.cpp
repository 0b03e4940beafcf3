#include "ml/train/DeviceBatch.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>
#include <stdexcept>

namespace streetgan {

DeviceBatch DeviceBatch::from(const Batch& batch, torch::Device device, bool channelsLast, double instanceStd) {
    if (!batch.noise.defined()) throw std::logic_error("DeviceBatch::from: the batch has no z (BatchLoader draws it in both forms)");
    const bool async = device.is_cuda();  // pinned host memory: the copy does not wait for the host
    DeviceBatch d;
    d.noise = batch.noise.to(device, async);
    if (!batch.realU8.defined()) {
        d.real = batch.real.to(device, async);
        if (channelsLast) d.real = d.real.contiguous(torch::MemoryFormat::ChannelsLast);
        if (instanceStd > 0 && batch.instanceReal.defined()) {
            d.noiseReal = batch.instanceReal.to(device, async).mul_(instanceStd);
            d.noiseFake = batch.instanceFake.to(device, async).mul_(instanceStd);
        }
        return d;
    }
    torch::NoGradGuard noGrad;
    // (B, S, S, 3) viewed as (B, 3, S, S) has channels-last strides already.
    d.real = batch.realU8.to(device, async).permute({0, 3, 1, 2}).to(torch::kFloat32).mul_(2.0 / 255.0).sub_(1.0);
    if (!channelsLast) d.real = d.real.contiguous();
    const auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    // A private generator seeded for this step (a resumed run draws the same values), which leaves
    // torch's global streams alone; off the CPU, a clone of the device's default generator, as
    // naming the backend's generator type would need its own (CUDA) headers. No lock is held
    // around the draws: every draw locks its generator itself.
    at::Generator gen = device.is_cpu() ? at::make_generator<at::CPUGeneratorImpl>(batch.deviceSeed) : at::globalContext().defaultGenerator(device).clone();
    if (!device.is_cpu()) gen.set_current_seed(batch.deviceSeed);
    // As Augmentation::addNoise: std in [0, 1] pixel units, doubled by the move to [-1, 1].
    if (batch.augNoiseStd > 0) d.real.add_(at::randn(d.real.sizes(), gen, opts).mul_(2.0 * batch.augNoiseStd));
    if (instanceStd > 0) {
        d.noiseReal = at::randn(d.real.sizes(), gen, opts).mul_(instanceStd);
        d.noiseFake = at::randn(d.real.sizes(), gen, opts).mul_(instanceStd);
    }
    return d;
}

}  // namespace streetgan
