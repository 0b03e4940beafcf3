// invert --checkpoint CK --image PHOTO: projects a photo (or --crop of it) into the checkpoint's
// generator (ml/invert/LatentInverter) and reports how close the best reconstruction is. Progress
// on stderr (a line every tenth of the steps, then one per restart), a summary line on stdout (or
// with --json one document: z, psnr, ssim, seconds, ...), --out a PNG of [target | reconstruction],
// --session-out a session file (docs/cli.md) holding z as its keyframe. Every input is checked
// before the optimisation and every output written atomically at its end: a refused input or a
// failed run leaves no file.
//
// Thread contract: execute() runs on the main thread.
#pragma once

#include <cstdint>
#include <string>

#include "ml/invert/LatentInverter.h"
#include "trainer/CheckpointModels.h"
#include "trainer/Command.h"

namespace streetgan {

class InvertCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    CheckpointModels models_;
    std::string checkpoint_, image_, out_, sessionOut_, crop_, pixel_ = "l2";
    bool json_ = false, plain_ = false;
    LatentInverter::Options options_;  // the options bind to its fields: its defaults are the CLI's
};

}  // namespace streetgan
