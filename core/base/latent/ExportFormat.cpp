#include "base/latent/ExportFormat.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "base/util/Errors.h"

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
    std::string out;
    const auto& formats = all();
    for (size_t i = 0; i < formats.size(); ++i) out += (i == 0 ? "" : i + 1 == formats.size() ? " or " : ", ") + std::string(formats[i].name);
    return out;
}

void ExportFormat::missing(Kind kind, const std::string& out, const std::vector<Kind>& available) {
    const Spec& s = of(kind);
    std::string instead;
    for (size_t i = 0; i < available.size(); ++i) instead += (i == 0 ? "" : i + 1 == available.size() ? " or " : ", ") + std::string(of(available[i]).name);
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
