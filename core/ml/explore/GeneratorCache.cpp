#include "ml/explore/GeneratorCache.h"

#include <filesystem>

#include "base/model/Presets.h"
#include "base/util/ContentHash.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/RenderPrecision.h"
#include "ml/model/WeightInit.h"

namespace streetgan {
namespace fs = std::filesystem;

namespace {

// Checkpoints carry "custom" when their architecture was inferred; name the preset whose generator
// has that shape (the discriminator does not matter to the explorer, and G-only files have none).
std::string presetOf(const ModelConfig& m) {
    if (m.preset != "custom" && !m.preset.empty()) return m.preset;
    for (const std::string& name : Presets::names()) {
        const ModelConfig p = Presets::get(name);
        if (p.nz == m.nz && p.ngf == m.ngf && p.nc == m.nc && p.imgSize == m.imgSize) return name;
    }
    return "custom";
}

}  // namespace

GeneratorCache::GeneratorCache(c10::Device device, size_t capacity, GeneratorChoice choice, std::string precision)
    : device_(device), capacity_(capacity < 1 ? 1 : capacity), choice_(choice), precision_(std::move(precision)) {
    RenderPrecision::check(precision_);
    if (precision_ == "bf16") RenderPrecision::choose(precision_, ModelConfig{}, device_);  // refuses CUDA now, not at the first open
}

std::shared_ptr<const LoadedGenerator> GeneratorCache::get(const std::string& path) {
    std::error_code ec;
    const auto stamp = fs::last_write_time(path, ec);
    if (ec || !fs::is_regular_file(path, ec))
        throw IoError("checkpoint '" + path + "' does not exist or is not a file; give the absolute path of a .pt checkpoint");
    const int64_t mtime = static_cast<int64_t>(stamp.time_since_epoch().count());
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->path != path) continue;
        if (it->mtime == mtime) {
            entries_.splice(entries_.begin(), entries_, it);
            return entries_.front().loaded;
        }
        entries_.erase(it);  // rewritten since it was loaded
        break;
    }
    const CheckpointData ck = Checkpoint::load(path);
    auto lg = std::make_shared<LoadedGenerator>();
    lg->path = path;
    lg->g = ModelLoader::generator(ck, path, "", device_, choice_);
    lg->preset = presetOf(ck.model);
    lg->nz = ck.model.nz;
    lg->imgSize = ck.model.imgSize;
    lg->sha256 = ContentHash::sha256File(path);
    lg->epoch = ck.epoch;
    lg->reference = ck.format == "reference";
    lg->step = lg->reference ? -1 : ck.step;
    lg->gParams = WeightInit::trainableParameters(*lg->g);
    if (ck.fixedNoise.defined()) lg->fixedNoise = ck.fixedNoise.to(at::kCPU, at::kFloat).reshape({ck.fixedNoise.size(0), ck.model.nz, 1, 1});
    lg->precision = RenderPrecision::choose(precision_, ck.model, device_);
    if (lg->precision == FrozenGenerator::Precision::BFloat16) {
        try {
            lg->frozen = std::make_shared<const FrozenGenerator>(lg->g, lg->precision);
        } catch (const ConfigError&) {
            if (precision_ != "auto") throw;
            lg->precision = FrozenGenerator::Precision::Float32;  // auto: what this build can run
        }
    }
    entries_.push_front({path, mtime, lg});
    while (entries_.size() > capacity_) entries_.pop_back();
    return lg;
}

}  // namespace streetgan
