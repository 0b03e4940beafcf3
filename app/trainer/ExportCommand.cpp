#include "trainer/ExportCommand.h"

#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>
#include <iostream>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/ImageGrid.h"
#include "trainer/GeneratorOption.h"

namespace streetgan {
namespace {

c10::impl::GenericDict toDict(const StateDict& s) {
    c10::impl::GenericDict d(c10::StringType::get(), c10::TensorType::get());
    for (const auto& [k, t] : s) d.insert(k, t.contiguous());
    return d;
}

// The reference's img_list: one make_grid(G(noise), normalize=True) per saved epoch, floats in
// [0, 1]. Each becomes OUT/img_list_<k>.png; OUT/img_list.json is written last, so a reader that
// finds it finds every grid (the app extracts into a cache folder and reuses a complete one).
void writeImgList(const CheckpointData& ck, const std::string& checkpoint, const std::string& out) {
    if (ck.imgList.empty())
        throw CheckpointError(checkpoint +
                              " holds no img_list grids (a StreetGAN run keeps its grids in its samples/ folder; "
                              "the reference's checkpoints hold them)");
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) throw IoError("cannot create the folder '" + out + "': " + ec.message() + "; choose a folder you can write to");
    nlohmann::json files = nlohmann::json::array();
    for (size_t k = 0; k < ck.imgList.size(); ++k) {
        char name[48];
        std::snprintf(name, sizeof name, "img_list_%03zu.png", k);
        ImageGrid::writePng(ck.imgList[k].clamp(0, 1), out + "/" + name);
        files.push_back(name);
    }
    const nlohmann::json index{{"checkpoint", checkpoint}, {"epoch", ck.epoch}, {"count", ck.imgList.size()}, {"files", files}};
    AtomicFile::write(out + "/img_list.json", index.dump() + "\n");
}

}  // namespace

CLI::App* ExportCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("export", "Export a checkpoint's weights for PyTorch Python");
    a->add_option("--checkpoint", checkpoint_, "StreetGAN or reference checkpoint")->required();
    a->add_option("--format", format_,
                  "state-dict: {G_state_dict, D_state_dict, noise, epoch} for torch.load; slim: the reference's G-only checkpoint "
                  "(epoch, G_state_dict, every other key None); img-list: the checkpoint's img_list grids as PNGs in the folder --out "
                  "(img_list_000.png, ..., and img_list.json)")
        ->check(CLI::IsMember({"state-dict", "slim", "img-list"}));
    a->add_option("--out", out_, "Output file (.pt), or folder for img-list")->required();
    addGeneratorOption(a, generator_)
        ->description(
            "slim: which generator becomes its G_state_dict: ema (G_ema, the default where the checkpoint has one) or raw (the trained G); "
            "the file's G_source says which");
    return a;
}

int ExportCommand::execute() {
    const CheckpointData ck = Checkpoint::load(checkpoint_);
    if (format_ == "img-list") {
        writeImgList(ck, checkpoint_, out_);
        std::cout << out_ << "\n";
        return 0;
    }
    if (format_ == "slim") {
        Checkpoint::saveSlim(ModelLoader::select(ck, ModelLoader::parseChoice(generator_), checkpoint_), out_);
        std::cout << out_ << "\n";
        return 0;
    }
    c10::impl::GenericDict root(c10::StringType::get(), c10::AnyType::get());
    root.insert("G_state_dict", toDict(ck.generator));
    root.insert("D_state_dict", toDict(ck.discriminator));
    if (!ck.generatorEma.empty()) root.insert("G_ema_state_dict", toDict(ck.generatorEma));
    if (ck.fixedNoise.defined()) root.insert("noise", ck.fixedNoise.contiguous());
    root.insert("epoch", ck.epoch);
    const std::vector<char> bytes = torch::pickle_save(c10::IValue(root));
    AtomicFile::write(out_, bytes.data(), bytes.size());
    std::cout << out_ << "\n";
    return 0;
}

}  // namespace streetgan
