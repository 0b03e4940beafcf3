#include "base/latent/ExportFormat.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace streetgan {

const std::vector<ExportFormat::Spec>& ExportFormat::all() {
    static const std::vector<Spec> formats = {
        {Kind::Gif, ".gif", "GIF", "GIF animation", "GIF (*.gif)", false},
        {Kind::PngGrid, ".png", "PNG grid", "PNG grid of every frame", "PNG grid (*.png)", false},
        {Kind::Mp4, ".mp4", "MP4", "MP4 video (H.264)", "MP4 video (*.mp4)", true},
        {Kind::PngSequence, "", "PNG sequence", "PNG sequence (one file per frame in the folder)", "", false},
    };
    return formats;
}

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

std::string ExportFormat::fileFilters() {
    std::string out;
    for (const Spec& s : all())
        if (*s.filter) out += (out.empty() ? "" : ";;") + std::string(s.filter);
    return out;
}

}  // namespace streetgan
