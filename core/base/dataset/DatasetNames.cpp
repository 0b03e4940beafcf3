#include "base/dataset/DatasetNames.h"

#include <set>

namespace streetgan::dataset_names {

std::string toLower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

std::vector<std::string> splitPath(std::string_view p) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i <= p.size()) {
        size_t e = p.find('/', i);
        if (e == std::string_view::npos) e = p.size();
        std::string_view c = p.substr(i, e - i);
        if (!c.empty() && c != ".") out.emplace_back(c);
        i = e + 1;
    }
    return out;
}

std::string joinPath(const std::vector<std::string>& comps, size_t begin, size_t end) {
    std::string out;
    for (size_t i = begin; i < end; ++i) {
        if (!out.empty()) out += '/';
        out += comps[i];
    }
    return out;
}

std::string extensionOf(std::string_view name) {
    const size_t dot = name.rfind('.');
    if (dot == std::string_view::npos || dot + 1 == name.size()) return {};
    return toLower(name.substr(dot + 1));
}

std::string stemOf(std::string_view name) {
    const size_t dot = name.rfind('.');
    if (dot == std::string_view::npos || dot == 0) return std::string(name);
    return std::string(name.substr(0, dot));
}

bool isImageExtension(const std::string& ext) { return ext == "jpg" || ext == "jpeg" || ext == "png" || ext == "webp"; }

bool isUnsupportedImageExtension(const std::string& ext) {
    static const std::set<std::string> kExts = {"gif", "bmp", "tif", "tiff", "heic", "heif", "avif", "jxl", "jp2", "ppm", "pgm", "pnm"};
    return kExts.count(ext) != 0;
}

bool isSequenceCsvName(std::string_view name) {
    const std::string lower = toLower(name);
    for (const char* n : kCsvNames)
        if (lower == n) return true;
    return false;
}

bool isHiddenFolderName(std::string_view name) { return (!name.empty() && name.front() == '.') || name == "__MACOSX"; }

}  // namespace streetgan::dataset_names
