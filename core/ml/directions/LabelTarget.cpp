#include "ml/directions/LabelTarget.h"

#include <algorithm>
#include <map>
#include <vector>

#include "base/util/Errors.h"

namespace streetgan {
namespace {

// The class a label's direction points to when the spec names none (the "night",
// "sideways view", "winter"). A true/false label always points to "true".
std::optional<std::string> usualPositive(const std::string& label, const std::map<std::string, int64_t>& classes) {
    static const std::map<std::string, std::string> kUsual = {{"view_direction", "sideways"}, {"season", "winter"}, {"time_of_day", "night"}};
    if (classes.count("true") && classes.count("false") && classes.size() == 2) return std::string("true");
    if (const auto it = kUsual.find(label); it != kUsual.end() && classes.count(it->second)) return it->second;
    return std::nullopt;
}

std::string classList(const std::map<std::string, int64_t>& classes) {
    std::string out;
    for (const auto& [c, n] : classes) out += (out.empty() ? "" : ", ") + c + " (" + std::to_string(n) + ")";
    return out;
}

}  // namespace

LabelTarget LabelTarget::parse(const std::string& spec, const ImageLabels& labels, const std::string& dataName) {
    LabelTarget t;
    t.spec = spec;
    const size_t eq = spec.find('=');
    t.label = spec.substr(0, eq);
    if (t.label.empty() || (eq != std::string::npos && eq + 1 == spec.size()))
        throw ConfigError("--labels entry '" + spec + "' is malformed; use LABEL or LABEL=CLASS (e.g. night, city=berlin)");
    if (const auto errors = labels.requireLabels({t.label}, dataName); !errors.empty()) throw DataError(errors.front());
    if (labels.kind(t.label) == ImageLabels::Kind::Number) {
        if (eq != std::string::npos)
            throw ConfigError("--labels entry '" + spec + "': " + t.label + " is a number label; give it without '=' (split at its median)");
        std::vector<double> values;
        for (const auto& key : labels.keys())
            if (const auto v = labels.numberOf(key, t.label)) values.push_back(*v);
        std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
        t.threshold = values[values.size() / 2];
        for (const double v : values) (v > *t.threshold ? t.positives : t.negatives) += 1;
        t.name = t.label;
        t.positive = "> " + std::to_string(*t.threshold) + " (median)";
    } else {
        const auto classes = labels.classes(t.label);
        if (eq != std::string::npos) {
            t.positiveClass = spec.substr(eq + 1);
            if (!classes.count(*t.positiveClass))
                throw DataError(dataName + ": no image has " + t.label + " '" + *t.positiveClass + "'; its classes are " + classList(classes));
        } else {
            t.positiveClass = usualPositive(t.label, classes);
            if (!t.positiveClass)
                throw ConfigError("--labels entry '" + spec + "': say which class the direction points to, e.g. " + t.label + "=" + classes.begin()->first +
                                  " (classes: " + classList(classes) + ")");
        }
        for (const auto& [c, n] : classes) (c == *t.positiveClass ? t.positives : t.negatives) += n;
        t.name = *t.positiveClass == "true" ? t.label : *t.positiveClass;
        t.positive = *t.positiveClass;
    }
    if (t.positives == 0 || t.negatives == 0)
        throw DataError(t.label + ": every image of " + dataName + " is on one side of " + t.positive + ": a direction needs both");
    return t;
}

std::optional<bool> LabelTarget::of(const ImageLabels& labels, const std::string& key) const {
    if (threshold) {
        const auto v = labels.numberOf(key, label);
        return v ? std::optional<bool>(*v > *threshold) : std::nullopt;
    }
    const auto c = labels.classOf(key, label);
    return c ? std::optional<bool>(*c == *positiveClass) : std::nullopt;
}

}  // namespace streetgan
