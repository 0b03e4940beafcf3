#include "base/run/TrainConfig.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/model/Presets.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {
std::string format(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

/// An integer config value as T. nlohmann's get<T>() converts a float or an integer out of T's
/// range with a plain cast, which is undefined behaviour (found by fuzzing: "steps": 3e63); out of
/// range is a ConfigError here. In range, a float is still truncated as get<T>() did.
template <class T>
T whole(const nlohmann::json& v, const std::string& key) {
    using L = std::numeric_limits<T>;
    bool ok = true;
    if (v.is_number_unsigned()) {
        ok = v.template get<uint64_t>() <= static_cast<uint64_t>(L::max());
    } else if (v.is_number_integer()) {
        // A negative integer into an unsigned setting (seed) wraps, as before: defined behaviour.
        const int64_t i = v.template get<int64_t>();
        ok = !L::is_signed || (i >= static_cast<int64_t>(L::min()) && i <= static_cast<int64_t>(L::max()));
    } else if (v.is_number_float()) {
        // L::max() + 1 is a power of two, exact as a double; the truncated value must lie below it.
        const double d = v.template get<double>();
        ok = std::isfinite(d) && d > static_cast<double>(L::min()) - 1.0 && d < static_cast<double>(L::max()) + 1.0;
    }
    if (!ok) throw ConfigError("config key '" + key + "' is " + v.dump() + ", out of range for a whole number of this setting");
    return v.template get<T>();  // a non-number throws nlohmann's type_error: "has the wrong type"
}
}  // namespace

std::vector<std::string> TrainConfig::diffAugmentOps(const std::string& policy) {
    std::vector<std::string> ops;
    std::string part;
    std::istringstream in(policy);
    while (std::getline(in, part, ','))
        if (!part.empty()) ops.push_back(part);
    return ops;
}

std::string TrainConfig::summary() const {
    std::string s = model.preset + ", batch " + std::to_string(batch) + ", lr " + format(lr) + ", amp " + amp + ", instance noise " + format(instanceNoise);
    s += ema > 0 ? ", G_ema " + format(ema) : std::string(", G_ema off");
    s += diffAugment.empty() ? std::string(", DiffAugment off") : ", DiffAugment " + diffAugment;
    s += r1Gamma > 0 ? ", R1 " + format(r1Gamma) + " every " + std::to_string(r1Every) : std::string(", R1 off");
    return s;
}

void TrainConfig::validate() const {
    model.validate();
    auto range = [](const char* name, double v, double lo, double hi) {
        if (!(v >= lo && v <= hi)) throw ConfigError(std::string(name) + " " + format(v) + " is out of range: use " + format(lo) + ".." + format(hi));
    };
    range("batch", static_cast<double>(batch), 1, 65536);
    range("steps", static_cast<double>(steps), 0, 1e12);
    range("epochs", static_cast<double>(epochs), 0, 1e9);
    if (steps == 0 && epochs == 0) throw ConfigError("steps and epochs are both 0: give --steps N or --epochs N");
    range("lr", lr, kLrMin, kLrMax);
    range("beta1", beta1, 0, 0.999999);
    range("beta2", beta2, 0, 0.999999);
    range("weight_decay", weightDecay, 0, 10);
    range("eps", eps, 0, 1);
    range("real_label", realLabel, 0, 1);
    range("fake_label", fakeLabel, 0, 1);
    range("instance_noise", instanceNoise, 0, 10);
    range("instance_noise_steps", static_cast<double>(instanceNoiseSteps), 0, 1e12);
    range("log_every", static_cast<double>(logEvery), 1, 1e9);
    range("sample_every", static_cast<double>(sampleEvery), 0, 1e12);
    range("checkpoint_every", static_cast<double>(checkpointEvery), 0, 1e12);
    range("loader_threads", loaderThreads, 1, 256);
    range("prefetch", prefetch, 1, 1024);
    range("threads", threads, 0, 1024);
    range("fixed_noise", static_cast<double>(fixedNoiseCount), 1, 1024);
    range("max_shift", maxShift, 0, 1);
    range("crop_factor", cropFactor, 0.01, 64);
    range("aug_noise", augNoise, 0, 10);
    range("max_per_sequence", static_cast<double>(maxPerSequence), 0, 1e12);
    range("validation_percent", validationPercent, 0, 99);
    range("synthetic_images", static_cast<double>(syntheticImages), 1, 1e10);
    range("ema", ema, 0, 0.999999);  // 1 would freeze G_ema at G's initial weights
    for (const auto& op : diffAugmentOps(diffAugment))
        if (op != "color" && op != "translation" && op != "cutout")
            throw ConfigError("diffaugment policy '" + diffAugment + "' has the unknown part '" + op +
                              "': use a comma-separated subset of color, translation, cutout");
    range("r1_gamma", r1Gamma, 0, 1e6);
    range("r1_every", static_cast<double>(r1Every), 1, 1e6);
    if (amp != "off" && amp != "bf16" && amp != "fp16") throw ConfigError("amp '" + amp + "' is unknown: use off, bf16 or fp16");
    // A captured step replays the same kernels on the same tensors: DiffAugment draws new
    // parameters and R1 runs on some steps only.
    if (cudaGraph && (!diffAugment.empty() || r1Gamma > 0))
        throw ConfigError(
            "cuda_graph (--cuda-graph) does not combine with DiffAugment or R1 (their steps differ from step to step): leave out --cuda-graph, or "
            "--diffaugment and --r1");
    if (device != "auto" && device != "cpu" && device.rfind("cuda", 0) != 0)
        throw ConfigError("device '" + device + "' is unknown: use auto, cpu, cuda or cuda:N");
    if (data.empty()) throw ConfigError("data source is empty: use --data synthetic or a folder/archive path");
    range("metric_every_checkpoints", static_cast<double>(metricEveryCheckpoints), 0, 1e9);
    range("metric_samples", static_cast<double>(metricSamples), 2, 1e7);
    range("metric_swd_samples", static_cast<double>(metricSwdSamples), 2, 1e6);
    if (metrics.empty()) throw ConfigError("metrics is empty: use a subset of fid, kid, pr, swd");
    for (const auto& m : metrics)
        if (m != "fid" && m != "kid" && m != "pr" && m != "swd") throw ConfigError("metric '" + m + "' is unknown: use fid, kid, pr or swd");
}

nlohmann::json TrainConfig::changes(const nlohmann::json& before, const nlohmann::json& after) {
    nlohmann::json out = nlohmann::json::object();
    if (!before.is_object() || !after.is_object()) return out;
    for (const auto& [key, value] : after.items()) {
        const auto it = before.find(key);
        if (it == before.end() || *it == value) continue;
        // Numbers compare by value (run.json's 0.0002 and 2e-4 are one rate; 64 and 64.0 one width).
        if (it->is_number() && value.is_number() && it->get<double>() == value.get<double>()) continue;
        out[key] = {{"from", *it}, {"to", value}};
    }
    return out;
}

namespace {

// The one list of what a resume keeps, the preset first (it implies the sizes after it). Issue 42:
// the options table will carry this per option.
const std::vector<std::pair<std::string, std::string>>& keptOnResume() {
    static const std::vector<std::pair<std::string, std::string>> kept = {
        {"preset", "the checkpoint holds the model of its preset"},          {"nz", "the checkpoint holds a generator of this latent size"},
        {"ngf", "the checkpoint holds a generator of this width"},           {"ndf", "the checkpoint holds a discriminator of this width"},
        {"nc", "the checkpoint's models have this many channels"},           {"img_size", "the checkpoint's models make and judge images of this size"},
        {"seed", "the random stream continues from the checkpoint's state"}, {"fixed_noise", "the sample grids keep the checkpoint's fixed noise"},
    };
    return kept;
}

}  // namespace

std::string TrainConfig::resumeRefusal(const std::string& key) {
    for (const auto& [k, why] : keptOnResume())
        if (k == key) return why;
    return {};
}

void TrainConfig::checkResume(const nlohmann::json& before, const std::string& where) const {
    const nlohmann::json changed = changes(before, toJson());
    for (const auto& [key, why] : keptOnResume()) {
        const auto it = changed.find(key);
        if (it == changed.end()) continue;
        throw ConfigError("a resumed run cannot change " + key + " from " + (*it)["from"].dump() + " (" + where + ") to " + (*it)["to"].dump() + ": " + why +
                          "; resume without it, or start a new run");
    }
}

nlohmann::json TrainConfig::toJson() const {
    return nlohmann::json{{"preset", model.preset},
                          {"nz", model.nz},
                          {"ngf", model.ngf},
                          {"ndf", model.ndf},
                          {"nc", model.nc},
                          {"img_size", model.imgSize},
                          {"data", data},
                          {"synthetic_images", syntheticImages},
                          {"max_shift", maxShift},
                          {"crop_factor", cropFactor},
                          {"aug_noise", augNoise},
                          {"flip", flip},
                          {"cities", cities},
                          {"exclude_cities", excludeCities},
                          {"max_per_sequence", maxPerSequence},
                          {"validation_percent", validationPercent},
                          {"seed", seed},
                          {"device", device},
                          {"batch", batch},
                          {"steps", steps},
                          {"epochs", epochs},
                          {"lr", lr},
                          {"betas", {beta1, beta2}},
                          {"weight_decay", weightDecay},
                          {"eps", eps},
                          {"real_label", realLabel},
                          {"fake_label", fakeLabel},
                          {"instance_noise", instanceNoise},
                          {"instance_noise_steps", instanceNoiseSteps},
                          {"amp", amp},
                          {"ema", ema},
                          {"diffaugment", diffAugment},
                          {"r1_gamma", r1Gamma},
                          {"r1_every", r1Every},
                          {"log_every", logEvery},
                          {"sample_every", sampleEvery},
                          {"checkpoint_every", checkpointEvery},
                          {"loader_threads", loaderThreads},
                          {"prefetch", prefetch},
                          {"threads", threads},
                          {"channels_last", channelsLast},
                          {"cuda_graph", cudaGraph},
                          {"fixed_noise", fixedNoiseCount},
                          {"metric_every_checkpoints", metricEveryCheckpoints},
                          {"metric_features", metricFeatures},
                          {"metric_samples", metricSamples},
                          {"metrics", metrics},
                          {"metric_cache_dir", metricCacheDir},
                          {"metric_swd_samples", metricSwdSamples}};
}

void TrainConfig::merge(const nlohmann::json& j) {
    if (!j.is_object()) throw ConfigError("config must be a JSON object");
    // A preset sets the whole architecture first; explicit nz/ngf/... then override it.
    if (j.contains("preset")) {
        if (!j.at("preset").is_string())
            throw ConfigError("config key 'preset' has the wrong type (" + j.at("preset").dump() + "): use a preset name, e.g. \"naive-64\"");
        const std::string name = j.at("preset").get<std::string>();
        if (name != "custom") model = Presets::get(name);
    }
    for (const auto& [key, v] : j.items()) {
        try {
            if (key == "preset")
                continue;
            else if (key == "nz")
                model.nz = whole<int64_t>(v, key);
            else if (key == "ngf")
                model.ngf = whole<int64_t>(v, key);
            else if (key == "ndf")
                model.ndf = whole<int64_t>(v, key);
            else if (key == "nc")
                model.nc = whole<int64_t>(v, key);
            else if (key == "img_size")
                model.imgSize = whole<int64_t>(v, key);
            else if (key == "data")
                data = v.get<std::string>();
            else if (key == "synthetic_images")
                syntheticImages = whole<int64_t>(v, key);
            else if (key == "max_shift")
                maxShift = v.get<double>();
            else if (key == "crop_factor")
                cropFactor = v.get<double>();
            else if (key == "aug_noise")
                augNoise = v.get<double>();
            else if (key == "flip")
                flip = v.get<bool>();
            else if (key == "cities")
                cities = v.get<std::vector<std::string>>();
            else if (key == "exclude_cities")
                excludeCities = v.get<std::vector<std::string>>();
            else if (key == "max_per_sequence")
                maxPerSequence = whole<int64_t>(v, key);
            else if (key == "validation_percent")
                validationPercent = v.get<double>();
            else if (key == "seed")
                seed = whole<uint64_t>(v, key);
            else if (key == "device")
                device = v.get<std::string>();
            else if (key == "batch")
                batch = whole<int64_t>(v, key);
            else if (key == "steps")
                steps = whole<int64_t>(v, key);
            else if (key == "epochs")
                epochs = whole<int64_t>(v, key);
            else if (key == "lr")
                lr = v.get<double>();
            else if (key == "betas") {
                if (!v.is_array() || v.size() != 2) throw ConfigError("betas must be a list of two numbers, e.g. [0.5, 0.999]");
                beta1 = v[0].get<double>();
                beta2 = v[1].get<double>();
            } else if (key == "weight_decay")
                weightDecay = v.get<double>();
            else if (key == "eps")
                eps = v.get<double>();
            else if (key == "real_label")
                realLabel = v.get<double>();
            else if (key == "fake_label")
                fakeLabel = v.get<double>();
            else if (key == "instance_noise")
                instanceNoise = v.get<double>();
            else if (key == "instance_noise_steps")
                instanceNoiseSteps = whole<int64_t>(v, key);
            else if (key == "amp")
                amp = v.get<std::string>();
            else if (key == "ema")
                ema = v.get<double>();
            else if (key == "diffaugment")
                diffAugment = v.get<std::string>();
            else if (key == "r1_gamma")
                r1Gamma = v.get<double>();
            else if (key == "r1_every")
                r1Every = whole<int64_t>(v, key);
            else if (key == "log_every")
                logEvery = whole<int64_t>(v, key);
            else if (key == "sample_every")
                sampleEvery = whole<int64_t>(v, key);
            else if (key == "checkpoint_every")
                checkpointEvery = whole<int64_t>(v, key);
            else if (key == "loader_threads")
                loaderThreads = whole<int>(v, key);
            else if (key == "prefetch")
                prefetch = whole<int>(v, key);
            else if (key == "threads")
                threads = whole<int>(v, key);
            else if (key == "fixed_noise")
                fixedNoiseCount = whole<int64_t>(v, key);
            else if (key == "channels_last")
                channelsLast = v.get<bool>();
            else if (key == "cuda_graph")
                cudaGraph = v.get<bool>();
            else if (key == "metric_every_checkpoints")
                metricEveryCheckpoints = whole<int64_t>(v, key);
            else if (key == "metric_features")
                metricFeatures = v.get<std::string>();
            else if (key == "metric_samples")
                metricSamples = whole<int64_t>(v, key);
            else if (key == "metrics")
                metrics = v.get<std::vector<std::string>>();
            else if (key == "metric_cache_dir")
                metricCacheDir = v.get<std::string>();
            else if (key == "metric_swd_samples")
                metricSwdSamples = whole<int64_t>(v, key);
            else
                throw ConfigError("unknown config key '" + key + "': see run.json of any run for the valid keys");
        } catch (const nlohmann::json::exception& e) {
            throw ConfigError("config key '" + key + "' has the wrong type (" + v.dump() + ")");
        }
    }
    // Keep the preset label honest if the architecture no longer matches it.
    if (model.preset != "custom" && Presets::exists(model.preset) && !Presets::get(model.preset).sameArchitecture(model)) model.preset = "custom";
}

}  // namespace streetgan
