#include "trainer/VersionCommand.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include <torch/cuda.h>
#include <torch/version.h>
#include <nlohmann/json.hpp>

#include "base/util/BuildFeatures.h"
#include "base/util/Version.h"
#include "ml/util/TorchRuntime.h"

namespace streetgan {

CLI::App* VersionCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("version", "Print the version, the app protocol, the LibTorch version and the device");
    a->add_flag("--json", json_,
                "One JSON line: {\"version\",\"protocol\",\"libtorch\" (built against),\"torch\" (runs against: "
                "{\"version\",\"cuda\",\"library\"}),\"device\",\"features\"}");
    return a;
}

int VersionCommand::execute() {
    const std::string device = torch::cuda::is_available() ? "CUDA" : "CPU";
    const TorchRuntime& runtime = TorchRuntime::current();
    if (json_) {
        // "torch": what the dynamic loader picked (a bundle runs against the host's torch);
        // version and cuda stay empty outside a Python torch (Debian's LibTorch, a LibTorch zip).
        const nlohmann::json j{{"version", Version::text()}, {"protocol", Version::kProtocol},
                               {"libtorch", TORCH_VERSION},  {"torch", {{"version", runtime.version}, {"cuda", runtime.cuda}, {"library", runtime.library}}},
                               {"device", device},           {"features", BuildFeatures::summary()}};
        std::cout << j.dump() << std::endl;
        return 0;
    }
    std::cout << "streetgan-trainer " << Version::text() << " (protocol " << Version::kProtocol << ", LibTorch " << TORCH_VERSION << ", " << device << "; "
              << BuildFeatures::summary() << ")\n";
    std::cout << "runs against " << (runtime.version.empty() ? std::string("LibTorch") : "torch " + runtime.version) << " ("
              << (runtime.library.empty() ? std::string("library not found") : runtime.library) << ")\n";
    return 0;
}

}  // namespace streetgan
