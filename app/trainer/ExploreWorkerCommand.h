#pragma once

#include <string>

#include "trainer/Command.h"

namespace streetgan {

/// explore-worker [--device auto|cpu|cuda] [--threads N] [--precision auto|bf16|fp32]: the app's rendering child process
/// (docs/explore-worker.md). Requests on stdin, replies (JSON headers and binary image payloads) on
/// stdout, nothing else on stdout; diagnostics on stderr. Exits 0 on EOF or `quit`.
class ExploreWorkerCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string device_ = "auto";
    std::string generator_;           // --generator: "" (G_ema where there is one), ema or raw
    std::string precision_ = "auto";  // --precision: of preview frames (RenderPrecision)
    int threads_ = 0;
};

}  // namespace streetgan
