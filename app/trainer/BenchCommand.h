#pragma once

#include <cstdint>
#include <string>

#include "base/run/TrainConfig.h"
#include "trainer/Command.h"

namespace streetgan {

/// bench loader --data SPEC [--size 64] [--threads N] [--seconds S] [--decode-only] [--feed R] [--json]:
/// augmented images per second from a data source through the training loader, and per core (per
/// CPU-second the process used), with the cores a step rate R needs; --decode-only measures the
/// bare 1/4-scale JPEG decode ceiling on the same files.
/// bench train --preset P --batch B --threads T --steps N [--warmup W] [--json]: images/s of the
/// reference training step on a fixed batch with fresh noise each step (bench/ compares it with
/// PyTorch Python). Timing is measured, never asserted.
class BenchCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    int train();
    int loader();
    int decodeCeiling();

    CLI::App* train_ = nullptr;
    CLI::App* loader_ = nullptr;
    std::string data_ = "synthetic";
    TrainConfig s3_;  // bench loader's --s3-* options (S3DataOptions)
    int size_ = 64, loaderThreads_ = 1;
    double seconds_ = 5;
    double feed_ = 0;  // --feed: a step rate to size the cores for (0: none)
    bool decodeOnly_ = false;
    std::string preset_ = "naive-64", device_ = "cpu", amp_ = "off";
    int64_t batch_ = 128, steps_ = 10, warmup_ = 2;
    int threads_ = 0, repeat_ = 1;
    double peakTflops_ = 0;  // 0: GpuPeak's figure for the GPU, where it has one
    bool fusedBnAct_ = false;
    bool json_ = false;
    bool channelsLast_ = true;
    bool cudaGraph_ = false;
};

}  // namespace streetgan
