#include "base/run/TrainConfig.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/model/Presets.h"
#include "base/run/BestMetric.h"
#include "base/run/TrainOption.h"
#include "base/util/Errors.h"
#include "base/util/TextList.h"

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

double TrainConfig::emaDecay(int64_t imagesPerStep) const {
    if (ema <= 0) return 0.0;
    if (emaKimg <= 0) return ema;
    return std::pow(0.5, static_cast<double>(imagesPerStep) / (emaKimg * 1000.0));
}

std::string TrainConfig::summary(int worldSize) const {
    std::string s = model.preset + ", batch " + std::to_string(batch) + ", lr " + format(lr) + (lrD > 0 ? " (D " + format(lrD) + ")" : std::string()) +
                    ", amp " + amp + ", instance noise " + format(instanceNoise);
    const double decay = emaDecay(batch * std::max(worldSize, 1));
    if (decay <= 0)
        s += ", G_ema off";
    else if (emaKimg > 0)
        s += ", G_ema " + format(emaKimg) + " kimg (" + format(decay) + " per step)";
    else
        s += ", G_ema " + format(decay) + " per step";
    s += diffAugment.empty() ? std::string(", DiffAugment off") : ", DiffAugment " + diffAugment;
    s += r1Gamma > 0 ? ", R1 " + format(r1Gamma) + " every " + std::to_string(r1Every) : std::string(", R1 off");
    return s;
}

namespace {

void checkRange(const TrainOption::Spec& o, double v) {
    if (o.lo <= o.hi && !(v >= o.lo && v <= o.hi))
        throw ConfigError(std::string(o.key) + " " + format(v) + " is out of range: use " + format(o.lo) + ".." + format(o.hi));
}

void checkChoice(const TrainOption::Spec& o, const std::string& v) {
    const auto choices = TrainOption::choices(o);
    if (choices.empty()) return;
    for (const auto& c : choices)
        if (v == c) return;
    throw ConfigError(std::string(o.key) + " '" + v + "' is unknown: use " + TextList::oneOf(choices));
}

// The table's range or choices of one option's value.
struct CheckValue {
    const TrainOption::Spec& o;
    template <class T>
    void operator()(const T& v) const {
        if constexpr (std::is_same_v<T, std::string>)
            checkChoice(o, v);
        else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            if (v.empty() && !TrainOption::choices(o).empty())
                throw ConfigError(std::string(o.key) + " is empty: use a subset of " + TextList::oneOf(TrainOption::choices(o)));
            for (const auto& x : v) checkChoice(o, x);
        } else if constexpr (std::is_same_v<T, std::array<double, 2>>) {
            for (const double x : v) checkRange(o, x);
        } else if constexpr (!std::is_same_v<T, bool>)
            checkRange(o, static_cast<double>(v));
    }
};

}  // namespace

void TrainConfig::validate() const {
    model.validate();
    auto& self = const_cast<TrainConfig&>(*this);  // the table's members are read here, never written
    for (const TrainOption::Spec& o : TrainOption::all()) std::visit([&](auto ref) { CheckValue{o}(ref(self)); }, o.member);
    // what a row cannot say: rules between options, and the form of a few strings
    if (steps == 0 && epochs == 0) throw ConfigError("steps and epochs are both 0: give --steps N or --epochs N");
    for (const auto& op : diffAugmentOps(diffAugment))
        if (op != "color" && op != "translation" && op != "cutout")
            throw ConfigError("diffaugment policy '" + diffAugment + "' has the unknown part '" + op +
                              "': use a comma-separated subset of color, translation, cutout");
    // A captured step replays the same kernels on the same tensors: DiffAugment draws new
    // parameters and R1 runs on some steps only.
    if (cudaGraph && (!diffAugment.empty() || r1Gamma > 0))
        throw ConfigError(
            "cuda_graph (--cuda-graph) does not combine with DiffAugment or R1 (their steps differ from step to step): leave out --cuda-graph, or "
            "--diffaugment and --r1");
    if (device != "auto" && device != "cpu" && device.rfind("cuda", 0) != 0)
        throw ConfigError("device '" + device + "' is unknown: use auto, cpu, cuda or cuda:N");
    if (data.empty()) throw ConfigError("data source is empty: use --data synthetic or a folder/archive path");
    BestMetric::check(bestMetric, metrics, metricFeatures);
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

std::string TrainConfig::resumeRefusal(const std::string& key) {
    const TrainOption::Spec* o = TrainOption::find(key);
    return o && o->keptOnResume ? o->keptOnResume : "";
}

void TrainConfig::checkResume(const nlohmann::json& before, const std::string& where) const {
    const nlohmann::json changed = changes(before, toJson());
    for (const TrainOption::Spec& o : TrainOption::all()) {  // the preset first: it implies the sizes after it
        const auto it = changed.find(o.key);
        if (!o.keptOnResume || it == changed.end()) continue;
        throw ConfigError(std::string("a resumed run cannot change ") + o.key + " from " + (*it)["from"].dump() + " (" + where + ") to " + (*it)["to"].dump() +
                          ": " + o.keptOnResume + "; resume without it, or start a new run");
    }
}

nlohmann::json TrainConfig::toJson() const {
    nlohmann::json j = nlohmann::json::object();
    auto& self = const_cast<TrainConfig&>(*this);  // read only
    for (const TrainOption::Spec& o : TrainOption::all()) std::visit([&](auto ref) { j[o.key] = ref(self); }, o.member);
    return j;
}

namespace {

// One run.json value into its member, by the member's type.
struct Assign {
    const nlohmann::json& v;
    const std::string& key;
    template <class T>
    void operator()(T& m) const {
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, int> || std::is_same_v<T, uint64_t>)
            m = whole<T>(v, key);
        else if constexpr (std::is_same_v<T, std::array<double, 2>>) {
            if (!v.is_array() || v.size() != 2) throw ConfigError("config key '" + key + "' must be a list of two numbers, e.g. [0.5, 0.999]");
            m = {v[0].get<double>(), v[1].get<double>()};
        } else
            m = v.get<T>();  // a value of another type throws nlohmann's type_error: "has the wrong type"
    }
};

}  // namespace

void TrainConfig::merge(const nlohmann::json& j) {
    if (!j.is_object()) throw ConfigError("config must be a JSON object");
    // A preset sets the whole architecture first; explicit nz/ngf/... then override it.
    if (j.contains("preset")) {
        if (!j.at("preset").is_string())
            throw ConfigError("config key 'preset' has the wrong type (" + j.at("preset").dump() + "): use a preset name, e.g. \"naive-64\"");
        const std::string name = j.at("preset").get<std::string>();
        if (name != "custom") model = Presets::get(name);
    }
    for (const auto& item : j.items()) {
        // named references, not a structured binding: C++17 lambdas cannot capture one (clang refuses)
        const std::string& key = item.key();
        const nlohmann::json& v = item.value();
        if (key == "preset") continue;
        const TrainOption::Spec* o = TrainOption::find(key);
        if (!o) throw ConfigError("unknown config key '" + key + "': see run.json of any run for the valid keys");
        try {
            std::visit([&](auto ref) { Assign{v, key}(ref(*this)); }, o->member);
        } catch (const nlohmann::json::exception& e) {
            throw ConfigError("config key '" + key + "' has the wrong type (" + v.dump() + ")");
        }
    }
    // `ema` without `ema_kimg` is the per-step rule: a run.json from before ema_kimg existed (or a
    // checkpoint's config) keeps the decay it trained with, and `--ema D` alone means D per step
    // whatever ema_kimg's default is. Given both, ema_kimg > 0 rules (emaDecay).
    if (j.contains("ema") && !j.contains("ema_kimg")) emaKimg = 0;
    // Keep the preset label honest if the architecture no longer matches it.
    if (model.preset != "custom" && Presets::exists(model.preset) && !Presets::get(model.preset).sameArchitecture(model)) model.preset = "custom";
}

}  // namespace streetgan
