#pragma once

#include <cstdint>
#include <string>

#include "trainer/Command.h"

namespace streetgan {

/// sample --checkpoint CK (--fixed-noise | --seed N --count K) [--nrow 8] [--padding 4] [--out F.png]:
/// a make_grid(normalize=True) PNG of the generator in eval mode.
class SampleCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string checkpoint_, out_ = "samples.png", preset_, device_ = "cpu";
    std::string generator_;  // --generator: "" (G_ema where there is one), ema or raw
    bool fixedNoise_ = false;
    uint64_t seed_ = 0;
    int64_t count_ = 64;
    int nrow_ = 8, padding_ = 4;
};

}  // namespace streetgan
