#pragma once

#include <string>

#include "trainer/Command.h"

namespace streetgan {

/// render --session FILE [--checkpoint CK] --out PATH [--device D]: renders a latent-walk session
/// (latent/LatentSession.h) with FrameRenderer, the frames the app shows, and writes it in the
/// format of PATH's extension (ExportFormat's table: GIF, PNG grid, MP4..., a folder for a PNG
/// sequence) through SessionExporter. The output's folder is checked before anything is rendered;
/// a checkpoint_sha256 mismatch is a warning on stderr. Prints "wrote PATH: N frames, B bytes, S s".
class RenderCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string session_, checkpoint_, out_, device_ = "cpu";
    std::string generator_;  // --generator: "" (G_ema where there is one), ema or raw
    int threads_ = 0;
};

}  // namespace streetgan
