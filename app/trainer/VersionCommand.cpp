#include "trainer/VersionCommand.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include <torch/cuda.h>
#include <torch/version.h>
#include <nlohmann/json.hpp>

#include "base/util/BuildFeatures.h"
#include "base/util/Version.h"

namespace streetgan {

CLI::App* VersionCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("version", "Print the version, the app protocol, the LibTorch version and the device");
    a->add_flag("--json", json_, "One JSON line: {\"version\",\"protocol\",\"libtorch\",\"device\",\"features\"}");
    return a;
}

int VersionCommand::execute() {
    const std::string device = torch::cuda::is_available() ? "CUDA" : "CPU";
    if (json_) {
        const nlohmann::json j{{"version", Version::text()},
                               {"protocol", Version::kProtocol},
                               {"libtorch", TORCH_VERSION},
                               {"device", device},
                               {"features", BuildFeatures::summary()}};
        std::cout << j.dump() << std::endl;
        return 0;
    }
    std::cout << "streetgan-trainer " << Version::text() << " (protocol " << Version::kProtocol << ", LibTorch " << TORCH_VERSION << ", " << device << "; "
              << BuildFeatures::summary() << ")\n";
    return 0;
}

}  // namespace streetgan
