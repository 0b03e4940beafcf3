#include "base/dataset/DatasetStatsTable.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace streetgan {

namespace {

std::string groupDigits(int64_t v) {
    std::string digits = std::to_string(v < 0 ? -v : v);
    std::string out;
    const size_t n = digits.size();
    for (size_t i = 0; i < n; ++i) {
        if (i > 0 && (n - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return v < 0 ? "-" + out : out;
}

/// count/total as a percentage with one decimal, computed in integers (locale-independent).
std::string percentText(int64_t count, int64_t total) {
    if (total <= 0) return "0.0%";
    const int64_t tenths = (count * 1000 + total / 2) / total;
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
}

std::string padLeft(const std::string& s, size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }
std::string padRight(const std::string& s, size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }

int64_t jsonInt(const nlohmann::json& j, const char* key) {
    if (!j.is_object()) return 0;
    auto it = j.find(key);
    return (it != j.end() && it->is_number()) ? it->get<int64_t>() : 0;
}

/// "a 3, b 1" from a {name: count} object.
std::string reasonList(const nlohmann::json& reasons) {
    std::string out;
    if (!reasons.is_object()) return out;
    for (auto it = reasons.begin(); it != reasons.end(); ++it) {
        if (!it->is_number()) continue;
        if (!out.empty()) out += ", ";
        out += it.key() + " " + groupDigits(it->get<int64_t>());
    }
    return out;
}

}  // namespace

std::string DatasetStatsTable::percentOptionText(double p) {
    if (p == static_cast<double>(static_cast<int64_t>(p))) return std::to_string(static_cast<int64_t>(p));
    return nlohmann::json(p).dump();
}

std::string DatasetStatsTable::format(const nlohmann::json& stats) {
    if (!stats.is_object()) return {};
    std::vector<std::pair<std::string, int64_t>> rows;
    if (auto it = stats.find("cities"); it != stats.end() && it->is_object())
        for (auto c = it->begin(); c != it->end(); ++c)
            if (c->is_number()) rows.emplace_back(c.key(), c->get<int64_t>());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    int64_t total = jsonInt(stats, "images");
    if (total <= 0)
        for (const auto& r : rows) total += r.second;

    size_t wCity = 4, wCount = 6, wShare = 6;
    for (const auto& r : rows) {
        wCity = std::max(wCity, r.first.size());
        wCount = std::max(wCount, groupDigits(r.second).size());
    }
    wCity = std::max(wCity, std::string("total").size());
    wCount = std::max(wCount, groupDigits(total).size());

    std::string out;
    auto line = [&](const std::string& a, const std::string& b, const std::string& c) {
        out += padRight(a, wCity) + "  " + padLeft(b, wCount) + "  " + padLeft(c, wShare) + "\n";
    };
    line("City", "Images", "Share");
    line(std::string(wCity, '-'), std::string(wCount, '-'), std::string(wShare, '-'));
    for (const auto& r : rows) line(r.first, groupDigits(r.second), percentText(r.second, total));
    line(std::string(wCity, '-'), std::string(wCount, '-'), std::string(wShare, '-'));
    line("total", groupDigits(total), total > 0 ? "100.0%" : "0.0%");
    out += "\n";

    out += "sequences: " + groupDigits(jsonInt(stats, "sequences"));
    if (const int64_t u = jsonInt(stats, "unsequenced"); u > 0) out += " (" + groupDigits(u) + " images without a sequence)";
    out += "\n";
    if (auto sp = stats.find("split"); sp != stats.end() && sp->is_object()) {
        const double pct = sp->value("validation_percent", 0.0);
        out += "split: train " + groupDigits(jsonInt(*sp, "train")) + ", validation " + groupDigits(jsonInt(*sp, "validation")) + " (" +
               percentOptionText(pct) + "% by image key); listed: " + sp->value("returned", std::string("all")) + "\n";
        if (const int64_t cap = jsonInt(*sp, "max_per_sequence"); cap > 0) {
            out += "cap: " + groupDigits(cap) + " training images per sequence";
            if (auto d = stats.find("dropped"); d != stats.end()) out += " (" + groupDigits(jsonInt(*d, "sequence cap")) + " dropped)";
            out += "\n";
        }
    }
    if (auto d = stats.find("dropped"); d != stats.end())
        if (const int64_t c = jsonInt(*d, "excluded city"); c > 0) out += "excluded by city filter: " + groupDigits(c) + "\n";
    out += "skipped: " + groupDigits(jsonInt(stats, "skipped"));
    if (auto r = stats.find("skipped_reasons"); r != stats.end()) {
        const std::string list = reasonList(*r);
        if (!list.empty()) out += " (" + list + ")";
    }
    out += "\n";
    // The first few files of each reason (--json lists them all).
    if (auto f = stats.find("skipped_files"); f != stats.end() && f->is_object())
        for (auto it = f->begin(); it != f->end(); ++it) {
            if (!it->is_array() || it->empty()) continue;
            constexpr size_t kShown = 5;
            std::string names;
            size_t shown = 0;
            for (const auto& name : *it) {
                if (!name.is_string()) continue;
                if (shown == kShown) break;
                names += (shown++ ? ", " : "") + name.get<std::string>();
            }
            if (it->size() > shown) names += " and " + groupDigits(static_cast<int64_t>(it->size() - shown)) + " more";
            out += "  " + it.key() + ": " + names + "\n";
        }
    if (auto c = stats.find("check"); c != stats.end() && c->is_object()) {
        if (c->value("decode", false))
            out += "checked: every image decoded (" + groupDigits(jsonInt(*c, "decoded")) + " now, " + groupDigits(jsonInt(*c, "cached")) +
                   " known from the verdict cache)\n";
        else
            out += "checked: listing only (--no-decode): " + groupDigits(jsonInt(*c, "cached")) + " images known from the verdict cache, " +
                   groupDigits(jsonInt(*c, "unchecked")) + " not decoded\n";
    }
    if (auto w = stats.find("warnings"); w != stats.end()) {
        const std::string list = reasonList(*w);
        if (!list.empty()) out += "csv warnings: " + list + "\n";
    }
    return out;
}

}  // namespace streetgan
