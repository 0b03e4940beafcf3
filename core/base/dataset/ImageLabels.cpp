#include "base/dataset/ImageLabels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "base/synthetic/SyntheticStreets.h"

namespace streetgan {

uint32_t ImageLabels::keyNumber(const std::string& key) {
    const auto [it, fresh] = keyIndex_.try_emplace(key, static_cast<uint32_t>(keyNames_.size()));
    if (fresh) keyNames_.push_back(key);
    return it->second;
}

std::optional<uint32_t> ImageLabels::findKey(const std::string& key) const {
    const auto it = keyIndex_.find(key);
    if (it == keyIndex_.end()) return std::nullopt;
    return it->second;
}

ImageLabels::Column* ImageLabels::column(const std::string& label, Kind kind) {
    auto [it, fresh] = columns_.try_emplace(label);
    if (fresh) it->second.kind = kind;
    return it->second.kind == kind ? &it->second : nullptr;
}

bool ImageLabels::setClass(const std::string& key, const std::string& label, const std::string& value) {
    Column* col = column(label, Kind::Class);
    if (!col) return false;
    const uint32_t k = keyNumber(key);
    if (col->classOf.size() <= k) col->classOf.resize(keyNames_.size(), -1);
    const auto [name, fresh] = col->nameIndex.try_emplace(value, static_cast<int32_t>(col->names.size()));
    if (fresh) col->names.push_back(value);
    if (col->classOf[k] < 0) ++col->count;
    col->classOf[k] = name->second;
    return true;
}

bool ImageLabels::setNumber(const std::string& key, const std::string& label, double value) {
    Column* col = column(label, Kind::Number);
    if (!col) return false;
    const uint32_t k = keyNumber(key);
    if (col->numbers.size() <= k) col->numbers.resize(keyNames_.size(), std::nan(""));
    if (std::isnan(col->numbers[k])) ++col->count;
    // A NaN value would read as unset: a label's numbers come from parsed, finite values.
    col->numbers[k] = value;
    return true;
}

void ImageLabels::merge(const ImageLabels& other) {
    for (const auto& [label, col] : other.columns_) {
        for (size_t k = 0; k < col.classOf.size(); ++k)
            if (col.classOf[k] >= 0) setClass(other.keyNames_[k], label, col.names[static_cast<size_t>(col.classOf[k])]);
        for (size_t k = 0; k < col.numbers.size(); ++k)
            if (!std::isnan(col.numbers[k])) setNumber(other.keyNames_[k], label, col.numbers[k]);
    }
    problems_.insert(problems_.end(), other.problems_.begin(), other.problems_.end());
}

std::vector<std::string> ImageLabels::labels() const {
    std::vector<std::string> out;
    for (const auto& [name, col] : columns_) out.push_back(name);
    return out;
}

ImageLabels::Kind ImageLabels::kind(const std::string& label) const {
    const auto it = columns_.find(label);
    return it == columns_.end() ? Kind::Class : it->second.kind;
}

std::optional<std::string> ImageLabels::classOf(const std::string& key, const std::string& label) const {
    const auto it = columns_.find(label);
    const auto k = findKey(key);
    if (it == columns_.end() || !k || *k >= it->second.classOf.size() || it->second.classOf[*k] < 0) return std::nullopt;
    return it->second.names[static_cast<size_t>(it->second.classOf[*k])];
}

std::optional<double> ImageLabels::numberOf(const std::string& key, const std::string& label) const {
    const auto it = columns_.find(label);
    const auto k = findKey(key);
    if (it == columns_.end() || !k || *k >= it->second.numbers.size() || std::isnan(it->second.numbers[*k])) return std::nullopt;
    return it->second.numbers[*k];
}

std::map<std::string, int64_t> ImageLabels::classes(const std::string& label) const {
    std::map<std::string, int64_t> out;
    const auto it = columns_.find(label);
    if (it == columns_.end() || it->second.kind != Kind::Class) return out;
    std::vector<int64_t> counts(it->second.names.size(), 0);
    for (const int32_t c : it->second.classOf)
        if (c >= 0) ++counts[static_cast<size_t>(c)];
    for (size_t c = 0; c < counts.size(); ++c)
        if (counts[c] > 0) out[it->second.names[c]] = counts[c];
    return out;
}

std::pair<double, double> ImageLabels::range(const std::string& label) const {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    const auto it = columns_.find(label);
    if (it == columns_.end()) return {lo, hi};
    for (const double v : it->second.numbers)
        if (!std::isnan(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    return {lo, hi};
}

int64_t ImageLabels::count(const std::string& label) const {
    const auto it = columns_.find(label);
    return it == columns_.end() ? 0 : it->second.count;
}

std::vector<std::string> ImageLabels::requireLabels(const std::vector<std::string>& wanted, const std::string& dataName) const {
    std::vector<std::string> errors;
    std::string have;
    for (const auto& name : labels()) have += (have.empty() ? "" : ", ") + name;
    for (const auto& label : wanted) {
        if (!has(label)) {
            errors.push_back(
                dataName + " has no label '" + label + "': " +
                (have.empty() ? std::string("it has no labels at all (MSLS postprocessed.csv / raw.csv files, or 'synthetic')") : "its labels are " + have));
            continue;
        }
        if (kind(label) != Kind::Class) continue;
        const auto cls = classes(label);
        if (cls.size() == 1) errors.push_back(label + ": every image of " + dataName + " is '" + cls.begin()->first + "': a direction needs both classes");
    }
    return errors;
}

namespace {

std::vector<std::string> chosen(const std::vector<std::string>& wanted, const std::vector<std::string>& all, const ImageLabels& l) {
    if (wanted.empty()) return all;
    std::vector<std::string> out;
    for (const auto& w : wanted)
        if (l.has(w) && std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
    return out;
}

// Classes by count, most images first (ties by name): the order the text and the GUI show.
std::vector<std::pair<std::string, int64_t>> byCount(const std::map<std::string, int64_t>& m) {
    std::vector<std::pair<std::string, int64_t>> v(m.begin(), m.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return v;
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);  // the C locale: the trainer never calls setlocale
    return buf;
}

}  // namespace

nlohmann::json ImageLabels::summary(const std::vector<std::string>& wanted) const {
    nlohmann::json labelsJson = nlohmann::json::object();
    for (const auto& label : chosen(wanted, labels(), *this)) {
        nlohmann::json j = {{"images", count(label)}};
        if (kind(label) == Kind::Class) {
            j["kind"] = "class";
            j["classes"] = classes(label);
        } else {
            const auto [lo, hi] = range(label);
            j["kind"] = "number";
            j["min"] = lo;
            j["max"] = hi;
        }
        labelsJson[label] = std::move(j);
    }
    return {{"images", imageCount()}, {"labels", std::move(labelsJson)}, {"problems", problems_}};
}

std::string ImageLabels::summaryText(const std::vector<std::string>& wanted) const {
    std::string out = "images with labels: " + std::to_string(imageCount()) + "\n";
    for (const auto& label : chosen(wanted, labels(), *this)) {
        const int64_t n = count(label);
        if (kind(label) == Kind::Number) {
            const auto [lo, hi] = range(label);
            out += label + ": a number, " + std::to_string(n) + " images, " + fixed(lo, 3) + " to " + fixed(hi, 3) + "\n";
            continue;
        }
        const auto cls = byCount(classes(label));
        out += label + ": " + std::to_string(cls.size()) + (cls.size() == 1 ? " class, " : " classes, ") + std::to_string(n) + " images\n";
        size_t w = 0, wk = 0;
        for (const auto& [c, k] : cls) {
            w = std::max(w, c.size());
            wk = std::max(wk, std::to_string(k).size());
        }
        for (const auto& [c, k] : cls) {
            const std::string ks = std::to_string(k);
            out += "  " + c + std::string(w - c.size(), ' ') + "  " + std::string(wk - ks.size(), ' ') + ks + "  " +
                   fixed(100.0 * static_cast<double>(k) / static_cast<double>(n), 1) + "%\n";
        }
    }
    if (!problems_.empty()) {
        out += "problems:\n";
        for (const auto& p : problems_) out += "  " + p + "\n";
    }
    return out;
}

ImageLabels ImageLabels::synthetic(uint64_t seed, int64_t count) {
    static constexpr const char* kTime[] = {"day", "dusk", "night"};
    static constexpr const char* kWeather[] = {"clear", "overcast", "fog", "rain"};
    static constexpr const char* kSeason[] = {"summer", "spring", "autumn", "winter"};
    static constexpr const char* kLayout[] = {"urban", "suburban", "open"};
    const SyntheticStreets streets(seed);
    ImageLabels l;
    for (int64_t i = 0; i < count; ++i) {
        const auto s = streets.describe(static_cast<uint64_t>(i));
        const std::string key = std::to_string(i);
        l.setClass(key, "night", s.timeOfDay == SyntheticStreets::TimeOfDay::Night ? "true" : "false");
        l.setClass(key, "time_of_day", kTime[static_cast<int>(s.timeOfDay)]);
        l.setClass(key, "weather", kWeather[static_cast<int>(s.weather)]);
        l.setClass(key, "season", kSeason[static_cast<int>(s.season)]);
        l.setClass(key, "layout", kLayout[static_cast<int>(s.layout)]);
        l.setClass(key, "snow", s.snow ? "true" : "false");
        l.setNumber(key, "camera_height", s.cameraHeight);
        l.setNumber(key, "vanishing_x", s.vanishingX);
        l.setNumber(key, "horizon_y", s.horizonY);
    }
    return l;
}

}  // namespace streetgan
