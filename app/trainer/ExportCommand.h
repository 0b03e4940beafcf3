#pragma once

#include <string>

#include "trainer/Command.h"

namespace streetgan {

/// export --checkpoint CK --format state-dict|slim|img-list --out FILE, files Python's torch.load reads:
///   state-dict  G and D state dicts (reference key names) plus fixed noise and epoch
///   slim        the reference's slim checkpoint: every key of its checkpoint dict, all None but
///               epoch and G_state_dict (what its API's get_checkpoint/restore_G_for_inference load)
///   img-list    not for Python: the reference checkpoint's img_list grids as PNGs in the folder
///               FILE (img_list_000.png, ...) and img_list.json {checkpoint, epoch, count, files}
class ExportCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string checkpoint_, format_ = "state-dict", out_;
    std::string generator_;  // --generator: "" (G_ema where there is one), ema or raw
};

}  // namespace streetgan
