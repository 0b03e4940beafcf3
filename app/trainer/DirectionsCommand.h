// directions --checkpoint CK --data DIR --labels night,view_direction[,season,city=berlin]
// [--samples N] [--seed S] [--orthogonal-to city] --out FILE [--json]: named directions learnt
// from labels (issue 44 item 2; ml/latent/DirectionFitter, InterFaceGAN for a DCGAN). DIR is
// `synthetic` (the scenes' own parameters, ImageLabels::synthetic) or an MSLS folder
// (MslsLabelReader). FILE is one JSON document (docs/cli.md, "directions"): per direction its
// name, label, unit z, the classifier's and the boundary's held-out accuracies and sample counts,
// with the checkpoint's SHA-256. Everything that can be refused is refused before the work, one
// line each (labels absent or with one class, a bad --labels entry, a checkpoint that is not one,
// too few labelled images); FILE is written atomically at the end, or not at all. Progress on
// stderr; Ctrl+C stops it (exit 130, nothing written).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ml/directions/DirectionFitter.h"
#include "trainer/CheckpointModels.h"
#include "trainer/Command.h"

namespace streetgan {

class DirectionsCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    CheckpointModels models_;
    std::string checkpoint_, data_, out_;
    std::vector<std::string> labels_;
    DirectionFitter::Options options_;
    int64_t images_ = 2000;
    uint64_t dataSeed_ = 0;
    bool json_ = false;
};

}  // namespace streetgan
