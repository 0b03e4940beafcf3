#include "trainer/RenderCommand.h"

#include <torch/torch.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <iomanip>
#include <iostream>

#include "base/latent/ExportFormat.h"
#include "base/latent/LatentSession.h"
#include "base/util/ContentHash.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/SessionExporter.h"
#include "ml/util/DeviceChoice.h"
#include "trainer/GeneratorOption.h"

namespace streetgan {

CLI::App* RenderCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("render", "Render a latent-walk session to a " + ExportFormat::names());
    a->add_option("--session", session_, "Session JSON file (docs/cli.md, \"Session file\")")->required();
    a->add_option("--checkpoint", checkpoint_, "Checkpoint to use instead of the session's");
    a->add_option("--out", out_, ExportFormat::choices() + ": the format follows the extension (FILE.png: a grid of every frame)")->required();
    a->add_option("--device", device_, "cpu | cuda | auto");
    a->add_option("--threads", threads_, "Torch intra-op threads (0: default)")->check(CLI::Range(0, 1024));
    addGeneratorOption(a, generator_);
    return a;
}

int RenderCommand::execute() {
    const auto t0 = std::chrono::steady_clock::now();
    if (threads_ > 0) torch::set_num_threads(threads_);
    const LatentSession session = LatentSession::read(session_);
    SessionExporter::checkOutput(session, out_);  // refuse unusable outputs before loading anything

    const std::string ckPath = session.resolveCheckpoint(session_, checkpoint_);
    const CheckpointData ck = Checkpoint::load(ckPath);
    const std::string sha = ContentHash::sha256File(ckPath);
    if (const std::string w = session.hashWarning(ckPath, sha); !w.empty()) std::cerr << "streetgan-trainer: warning: " << w << "\n";
    const Generator g = ModelLoader::generator(ck, ckPath, "", DeviceChoice::select(device_), ModelLoader::parseChoice(generator_));

    const SessionExporter::Result r = SessionExporter::exportSession(session, g, sha, out_);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "wrote " << out_ << ": " << r.what << ", " << r.frames << " frames " << r.size << "x" << r.size << ", " << r.bytes << " bytes, " << std::fixed
              << std::setprecision(2) << secs << " s\n";
    return 0;
}

}  // namespace streetgan
