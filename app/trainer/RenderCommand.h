#pragma once

#include <string>

#include "trainer/Command.h"

namespace streetgan {

/// render --session FILE [--checkpoint CK] --out FILE.gif|FILE.png|FILE.mp4|DIR [--device D]:
/// renders a latent-walk session (latent/LatentSession.h) with FrameRenderer, the frames the app
/// shows, and writes a GIF (GifWriter: the session's delay, loop count, palette, dithering, speed), a PNG
/// grid of all frames (ImageGrid::makeGrid without normalisation, the session's nrow and padding),
/// an MP4 (Mp4Writer) or, for any other path without one of those extensions, a PNG sequence
/// folder (PngSequenceWriter). The output's folder is checked before anything is rendered; a
/// checkpoint_sha256 mismatch is a warning on stderr. Prints "wrote PATH: N frames, B bytes, S s".
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
