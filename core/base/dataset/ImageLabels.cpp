#include "base/dataset/ImageLabels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "base/synthetic/SyntheticStreets.h"

namespace streetgan {

bool ImageLabels::setClass(const std::string& key, const std::string& label, const std::string& value) {
    auto [it, fresh] = columns_.try_emplace(label);
    if (fresh) it->second.kind = Kind::Class;
    if (it->second.kind != Kind::Class) return false;
    it->second.classes[key] = value;
    keys_.insert(key);
    return true;
}

bool ImageLabels::setNumber(const std::string& key, const std::string& label, double value) {
    auto [it, fresh] = columns_.try_emplace(label);
    if (fresh) it->second.kind = Kind::Number;
    if (it->second.kind != Kind::Number) return false;
    it->second.numbers[key] = value;
    keys_.insert(key);
    return true;
}

void ImageLabels::merge(const ImageLabels& other) {
    for (const auto& [label, col] : other.columns_) {
        for (const auto& [key, v] : col.classes) setClass(key, label, v);
        for (const auto& [key, v] : col.numbers) setNumber(key, label, v);
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
    if (it == columns_.end()) return std::nullopt;
    const auto v = it->second.classes.find(key);
    if (v == it->second.classes.end()) return std::nullopt;
    return v->second;
}

std::optional<double> ImageLabels::numberOf(const std::string& key, const std::string& label) const {
    const auto it = columns_.find(label);
    if (it == columns_.end()) return std::nullopt;
    const auto v = it->second.numbers.find(key);
    if (v == it->second.numbers.end()) return std::nullopt;
    return v->second;
}

std::map<std::string, int64_t> ImageLabels::classes(const std::string& label) const {
    std::map<std::string, int64_t> out;
    const auto it = columns_.find(label);
    if (it == columns_.end()) return out;
    for (const auto& [key, v] : it->second.classes) ++out[v];
    return out;
}

int64_t ImageLabels::count(const std::string& label) const {
    const auto it = columns_.find(label);
    if (it == columns_.end()) return 0;
    return static_cast<int64_t>(it->second.kind == Kind::Class ? it->second.classes.size() : it->second.numbers.size());
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

std::pair<double, double> rangeOf(const ImageLabels& l, const std::string& label) {
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& key : l.keys())
        if (const auto v = l.numberOf(key, label)) {
            lo = std::min(lo, *v);
            hi = std::max(hi, *v);
        }
    return {lo, hi};
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
            const auto [lo, hi] = rangeOf(*this, label);
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
            const auto [lo, hi] = rangeOf(*this, label);
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
