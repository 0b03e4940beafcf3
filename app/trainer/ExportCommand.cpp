#include "trainer/ExportCommand.h"

#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>
#include <iostream>

#include "base/util/AtomicFile.h"
#include "ml/checkpoint/Checkpoint.h"

namespace streetgan {
namespace {

c10::impl::GenericDict toDict(const StateDict& s) {
    c10::impl::GenericDict d(c10::StringType::get(), c10::TensorType::get());
    for (const auto& [k, t] : s) d.insert(k, t.contiguous());
    return d;
}

}  // namespace

CLI::App* ExportCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("export", "Export a checkpoint's weights for PyTorch Python");
    a->add_option("--checkpoint", checkpoint_, "StreetGAN or reference checkpoint")->required();
    a->add_option("--format", format_,
                  "state-dict: {G_state_dict, D_state_dict, noise, epoch} for torch.load; slim: the reference's G-only checkpoint "
                  "(epoch, G_state_dict, every other key None)")
        ->check(CLI::IsMember({"state-dict", "slim"}));
    a->add_option("--out", out_, "Output file (.pt)")->required();
    return a;
}

int ExportCommand::execute() {
    const CheckpointData ck = Checkpoint::load(checkpoint_);
    if (format_ == "slim") {
        Checkpoint::saveSlim(ck, out_);
        std::cout << out_ << "\n";
        return 0;
    }
    c10::impl::GenericDict root(c10::StringType::get(), c10::AnyType::get());
    root.insert("G_state_dict", toDict(ck.generator));
    root.insert("D_state_dict", toDict(ck.discriminator));
    if (ck.fixedNoise.defined()) root.insert("noise", ck.fixedNoise.contiguous());
    root.insert("epoch", ck.epoch);
    const std::vector<char> bytes = torch::pickle_save(c10::IValue(root));
    AtomicFile::write(out_, bytes.data(), bytes.size());
    std::cout << out_ << "\n";
    return 0;
}

}  // namespace streetgan
