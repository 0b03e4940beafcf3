#include "base/run/CheckpointName.h"

#include <limits>

namespace streetgan {
namespace {

// A whole number of 1 to 18 digits (below 2^63: no overflow) that is all of `text`.
std::optional<int64_t> number(std::string_view text) {
    if (text.empty() || text.size() > 18) return std::nullopt;
    int64_t v = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + (c - '0');
    }
    return v;
}

}  // namespace

std::optional<CheckpointName> CheckpointName::parse(std::string_view name) {
    constexpr std::string_view prefix = "checkpoint_", suffix = ".pt", stepMark = "_step";
    if (name.size() <= prefix.size() + suffix.size() || name.substr(0, prefix.size()) != prefix || name.substr(name.size() - suffix.size()) != suffix)
        return std::nullopt;
    const std::string_view stem = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    const size_t mark = stem.find(stepMark);
    CheckpointName out;
    const auto epoch = number(stem.substr(0, mark));
    if (!epoch) return std::nullopt;
    out.epoch = *epoch;
    if (mark != std::string_view::npos) {
        out.step = number(stem.substr(mark + stepMark.size()));
        if (!out.step) return std::nullopt;
    }
    return out;
}

std::string CheckpointName::ofEpoch(int64_t epoch) { return "checkpoint_" + std::to_string(epoch) + ".pt"; }

std::string CheckpointName::ofStep(int64_t epoch, int64_t step) { return "checkpoint_" + std::to_string(epoch) + "_step" + std::to_string(step) + ".pt"; }

std::string CheckpointName::fileName() const { return step ? ofStep(epoch, *step) : ofEpoch(epoch); }

bool CheckpointName::operator<(const CheckpointName& o) const {
    if (epoch != o.epoch) return epoch < o.epoch;
    // the epoch's own file (no step) after every step file of its epoch
    const int64_t a = step.value_or(std::numeric_limits<int64_t>::max()), b = o.step.value_or(std::numeric_limits<int64_t>::max());
    return a < b;
}

}  // namespace streetgan
