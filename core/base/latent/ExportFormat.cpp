#include "base/latent/ExportFormat.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "base/util/Errors.h"
#include "base/util/TextList.h"

namespace streetgan {

const ExportFormat::Spec& ExportFormat::of(Kind kind) {
    for (const Spec& s : all())
        if (s.kind == kind) return s;
    return all().front();  // unreachable: every Kind has its row
}

std::optional<ExportFormat::Kind> ExportFormat::forPath(const std::string& out) {
    namespace fs = std::filesystem;
    if (out.empty()) return std::nullopt;
    std::string ext = fs::path(out).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const Spec& s : all())
        if (*s.extension && ext == s.extension) return s.kind;
    std::error_code ec;
    if (ext.empty() || out.back() == '/' || fs::is_directory(out, ec)) return Kind::PngSequence;
    return std::nullopt;
}

std::string ExportFormat::choices() {
    std::string files, folder;
    for (const Spec& s : all()) {
        if (!*s.extension) {
            folder = "a folder (" + std::string(s.name) + ")";
            continue;
        }
        files += (files.empty() ? "" : ", ") + std::string("FILE") + s.extension;
    }
    return files + " or " + folder;
}

std::string ExportFormat::names() {
    std::vector<std::string> names;
    for (const Spec& s : all()) names.emplace_back(s.name);
    return TextList::oneOf(names);
}

void ExportFormat::missing(Kind kind, const std::string& out, const std::vector<Kind>& available) {
    const Spec& s = of(kind);
    std::vector<std::string> names;
    for (Kind k : available) names.emplace_back(of(k).name);
    const std::string instead = TextList::oneOf(names);
    throw ConfigError(std::string(s.name) + " export to '" + out + "' needs " + s.needs + ", which this streetgan-trainer was built without (" + s.option +
                      "=OFF, as in the GPU bundle): write " + (instead.empty() ? std::string("another format") : instead) +
                      " instead, or render on a full build");
}

std::string ExportFormat::fileFilters() {
    std::string out;
    for (const Spec& s : all())
        if (*s.filter) out += (out.empty() ? "" : ";;") + std::string(s.filter);
    return out;
}

}  // namespace streetgan
