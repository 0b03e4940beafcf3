#include "base/dataset/MslsLabelReader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <vector>

#include "base/dataset/ArchiveReader.h"
#include "base/dataset/DatasetNames.h"
#include "base/dataset/SequenceCsv.h"
#include "base/util/BuildFeatures.h"
#include "base/util/Errors.h"
#include "base/util/FloatChars.h"

namespace streetgan {

namespace fs = std::filesystem;
using dataset_names::toLower;
using dataset_names::trim;

namespace {

// How many malformed rows of a file its problem line names by line number.
constexpr size_t kNamedBadRows = 3;

// One CSV file being read: its path for messages, its malformed rows.
struct CsvFile {
    CsvFile(const std::string& p, ImageLabels& o) : path(p), out(o) {}
    const std::string& path;
    ImageLabels& out;
    int64_t bad = 0;
    std::string named;

    void badRow(size_t line, const std::string& why) {
        if (static_cast<size_t>(bad) < kNamedBadRows) named += (named.empty() ? "" : "; ") + ("line " + std::to_string(line) + ": " + why);
        ++bad;
    }
    void report() const {
        if (bad == 0) return;
        out.addProblem(path + ": " + std::to_string(bad) + (bad == 1 ? " malformed row" : " malformed rows") + " (" + named +
                       (static_cast<size_t>(bad) > kNamedBadRows ? "; ..." : "") + "): fix or remove them to label those images");
    }
};

// The column of `header` whose normalised name is one of `names`, or -1.
long findColumn(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
    for (const char* n : names)
        for (size_t c = 0; c < header.size(); ++c)
            if (MslsLabelReader::normalizeColumn(header[c]) == n) return static_cast<long>(c);
    return -1;
}

// Calls `header` with the header's fields (false: nothing more to read) and `row` with each data
// row's line number and fields (its return: "" or why the row is malformed). Rows whose field
// count differs from the header's, or that do not parse, are malformed without reaching `row`.
void forEachRow(std::string_view text, CsvFile& file, const std::function<bool(const std::vector<std::string>&)>& header,
                const std::function<std::string(size_t, const std::vector<std::string>&)>& row) {
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    std::vector<std::string> fields;
    size_t columns = 0, pos = 0, lineNo = 0;
    bool haveHeader = false;
    while (pos < text.size()) {
        size_t e = text.find('\n', pos);
        if (e == std::string_view::npos) e = text.size();
        std::string_view line = text.substr(pos, e - pos);
        pos = e + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (trim(line).empty()) continue;
        const bool parsed = SequenceCsv::parseLine(line, fields);
        if (!haveHeader) {
            if (!parsed) {
                file.out.addProblem(file.path + ": line " + std::to_string(lineNo) +
                                    ": the header does not parse (a stray quote): no labels read from this file");
                return;
            }
            haveHeader = true;
            columns = fields.size();
            if (!header(fields)) return;
            continue;
        }
        if (!parsed) {
            file.badRow(lineNo, "a quote is not closed or text follows a closing quote");
        } else if (fields.size() != columns) {
            file.badRow(lineNo, std::to_string(fields.size()) + " fields where the header has " + std::to_string(columns));
        } else if (const std::string why = row(lineNo, fields); !why.empty()) {
            file.badRow(lineNo, why);
        }
    }
    if (!haveHeader) file.out.addProblem(file.path + ": empty: no labels read from this file");
}

void missingColumn(CsvFile& file, const std::string& column, const std::string& label) {
    file.out.addProblem(file.path + ": no '" + column + "' column: no " + label + " label from this file");
}

std::optional<double> parseNumber(std::string_view s) {
    s = trim(s);
    double v = 0;
    const auto [p, ec] = parseDouble(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

// The whole file in one string (read straight into it: a train_val CSV is tens of MB).
std::optional<std::string> readText(const fs::path& p) {
    std::ifstream in(p, std::ios::binary | std::ios::ate);
    if (!in) return std::nullopt;
    const std::streamoff size = in.tellg();
    if (size < 0) return std::nullopt;
    std::string text(static_cast<size_t>(size), '\0');
    in.seekg(0);
    if (!in.read(text.data(), size)) return std::nullopt;
    return text;
}

// The file of `dir` named `name`, any case; empty when none.
fs::path fileNamed(const fs::path& dir, const std::string& name) {
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        if (toLower(it->path().filename().string()) == name && it->is_regular_file(ec)) return it->path();
    return {};
}

// One database/ or query/ folder of `city`.
void readSplitFolder(const fs::path& dir, const std::string& city, ImageLabels& out) {
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir / "images", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() || name[0] == '.' || !dataset_names::isImageExtension(dataset_names::extensionOf(name))) continue;
        out.setClass(dataset_names::stemOf(name), "city", city);
    }
    bool anyCsv = false;
    for (const char* name : {"postprocessed.csv", "raw.csv"}) {
        const fs::path p = fileNamed(dir, name);
        if (p.empty()) continue;
        anyCsv = true;
        const auto text = readText(p);
        if (!text) {
            out.addProblem(p.string() + ": cannot be read: no labels from it");
            continue;
        }
        if (std::string(name) == "raw.csv")
            MslsLabelReader::readRaw(*text, p.string(), city, out);
        else
            MslsLabelReader::readPostprocessed(*text, p.string(), city, out);
    }
    if (!anyCsv) out.addProblem(dir.string() + ": no postprocessed.csv or raw.csv: its images have only the city label");
}

bool isSplitName(const std::string& name) {
    const std::string n = toLower(name);
    return n == "database" || n == "query";
}

}  // namespace

std::string MslsLabelReader::normalizeColumn(std::string_view name) {
    std::string out;
    for (char c : toLower(trim(name)))
        if (c != ' ' && c != '_' && c != '-') out += c;
    return out;
}

std::optional<bool> MslsLabelReader::parseBool(std::string_view text) {
    const std::string s = toLower(trim(text));
    if (s == "true" || s == "1" || s == "1.0" || s == "yes" || s == "t") return true;
    if (s == "false" || s == "0" || s == "0.0" || s == "no" || s == "f") return false;
    return std::nullopt;
}

std::optional<std::string> MslsLabelReader::parseViewDirection(std::string_view text) {
    const std::string s = toLower(trim(text));
    if (s == "forward" || s == "forwards" || s == "front") return std::string("forward");
    if (s == "backward" || s == "backwards" || s == "back") return std::string("backward");
    if (s == "sideways" || s == "sidewards" || s == "side") return std::string("sideways");
    return std::nullopt;
}

std::string MslsLabelReader::season(int month, double latitude) {
    static constexpr const char* kNorth[] = {"winter", "winter", "spring", "spring", "spring", "summer",
                                             "summer", "summer", "autumn", "autumn", "autumn", "winter"};
    static constexpr const char* kSouth[] = {"summer", "summer", "autumn", "autumn", "autumn", "winter",
                                             "winter", "winter", "spring", "spring", "spring", "summer"};
    const auto i = static_cast<size_t>(month - 1);
    return latitude < 0 ? kSouth[i] : kNorth[i];
}

std::optional<int> MslsLabelReader::captureMonth(std::string_view text) {
    const std::string_view s = trim(text);
    if (s.size() >= 7 && s[4] == '-') {  // ISO date
        int year = 0, month = 0;
        if (std::from_chars(s.data(), s.data() + 4, year).ptr != s.data() + 4) return std::nullopt;
        if (std::from_chars(s.data() + 5, s.data() + 7, month).ptr != s.data() + 7 || month < 1 || month > 12) return std::nullopt;
        return month;
    }
    const auto v = parseNumber(s);
    if (!v || *v < 0) return std::nullopt;
    const double seconds = *v < 1e11 ? *v : *v / 1000.0;
    // Days since 1970-01-01 to a civil month (Howard Hinnant's days_from_civil, inverted).
    const int64_t z = static_cast<int64_t>(std::floor(seconds / 86400.0)) + 719468;
    const int64_t era = z / 146097;
    const int64_t doe = z - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    return static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
}

void MslsLabelReader::readPostprocessed(std::string_view text, const std::string& path, const std::string& city, ImageLabels& out) {
    CsvFile file{path, out};
    long key = -1, night = -1, view = -1, panel = -1;
    auto header = [&](const std::vector<std::string>& h) {
        key = findColumn(h, {"key"});
        if (key < 0) {
            out.addProblem(path + ": no 'key' column: no labels read from this file");
            return false;
        }
        night = findColumn(h, {"night", "day/night", "daynight"});
        view = findColumn(h, {"viewdirection", "qualitativeviewdirection"});
        panel = findColumn(h, {"controlpanel"});
        if (night < 0) missingColumn(file, "night", "night");
        if (view < 0) missingColumn(file, "view_direction", "view_direction");
        if (panel < 0) missingColumn(file, "control_panel", "control_panel");
        return true;
    };
    auto row = [&](size_t, const std::vector<std::string>& f) -> std::string {
        const std::string& k = f[static_cast<size_t>(key)];
        if (k.empty()) return "empty key";
        out.setClass(k, "city", city);
        std::string why;
        if (night >= 0) {
            const std::string& v = f[static_cast<size_t>(night)];
            const std::string lower = toLower(trim(v));
            const auto b = lower == "night" ? std::optional<bool>(true) : lower == "day" ? std::optional<bool>(false) : parseBool(v);
            if (b)
                out.setClass(k, "night", *b ? "true" : "false");
            else
                why = "night '" + v + "' is not a boolean";
        }
        if (view >= 0) {
            const std::string& v = f[static_cast<size_t>(view)];
            if (const auto d = parseViewDirection(v))
                out.setClass(k, "view_direction", *d);
            else if (why.empty())
                why = "view_direction '" + v + "' is none of Forward, Sideways, Backward";
        }
        if (panel >= 0) {
            const std::string& v = f[static_cast<size_t>(panel)];
            if (const auto b = parseBool(v))
                out.setClass(k, "control_panel", *b ? "true" : "false");
            else if (why.empty())
                why = "control_panel '" + v + "' is not a boolean";
        }
        return why;
    };
    forEachRow(text, file, header, row);
    file.report();
}

void MslsLabelReader::readRaw(std::string_view text, const std::string& path, const std::string& city, ImageLabels& out) {
    CsvFile file{path, out};
    long key = -1, lat = -1, captured = -1;
    auto header = [&](const std::vector<std::string>& h) {
        key = findColumn(h, {"key"});
        if (key < 0) {
            out.addProblem(path + ": no 'key' column: no labels read from this file");
            return false;
        }
        lat = findColumn(h, {"lat", "latitude"});
        captured = findColumn(h, {"capturedat"});
        if (captured < 0) missingColumn(file, "captured_at", "season");
        if (captured >= 0 && lat < 0) missingColumn(file, "lat", "season (the hemisphere decides it)");
        return true;
    };
    auto row = [&](size_t, const std::vector<std::string>& f) -> std::string {
        const std::string& k = f[static_cast<size_t>(key)];
        if (k.empty()) return "empty key";
        out.setClass(k, "city", city);
        if (captured < 0 || lat < 0) return "";
        const std::string& c = f[static_cast<size_t>(captured)];
        const std::string& l = f[static_cast<size_t>(lat)];
        const auto month = captureMonth(c);
        if (!month) return "captured_at '" + c + "' is not a time (milliseconds since 1970)";
        const auto latitude = parseNumber(l);
        if (!latitude || std::fabs(*latitude) > 90) return "lat '" + l + "' is not a latitude";
        out.setClass(k, "season", season(*month, *latitude));
        return "";
    };
    forEachRow(text, file, header, row);
    file.report();
}

ImageLabels MslsLabelReader::readFolder(const std::string& root) {
    std::error_code ec;
    fs::path r = fs::absolute(fs::path(root), ec).lexically_normal();
    if (!r.has_filename()) r = r.parent_path();
    if (ec || !fs::is_directory(r, ec)) throw IoError("data set '" + root + "' is not a folder: give an MSLS folder (train_val, a city) or 'synthetic'");
    ImageLabels out;
    if (toLower(r.filename().string()) == "images" && isSplitName(r.parent_path().filename().string())) r = r.parent_path();
    if (isSplitName(r.filename().string())) {
        readSplitFolder(r, r.parent_path().filename().string(), out);
        return out;
    }
    auto it = fs::recursive_directory_iterator(r, fs::directory_options::skip_permission_denied, ec);
    if (ec) throw IoError("cannot list '" + root + "': " + ec.message());
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
        const std::string name = it->path().filename().string();
        if (dataset_names::isHiddenFolderName(name) || toLower(name) == "images") {
            it.disable_recursion_pending();  // images/ holds thousands of files and no CSV
            continue;
        }
        if (!isSplitName(name)) continue;
        it.disable_recursion_pending();
        readSplitFolder(it->path(), it->path().parent_path().filename().string(), out);
    }
    if (ec) out.addProblem(root + ": the walk stopped early: " + ec.message());
    return out;
}

ImageLabels MslsLabelReader::readArchive(const ArchiveReader& archive) {
#if !STREETGAN_WITH_PHOTOS
    (void)archive;
    BuildFeatures::missing("the labels of an MSLS batch (.zip, .tar)", BuildFeatures::Feature::Photos);
#else
    ImageLabels out;
    bool anyCsv = false;
    for (size_t i = 0; i < archive.size(); ++i) {
        const std::string& name = archive.entry(i).name;
        // .../<city>/<database|query>/<file> or .../<city>/<database|query>/images/<file>
        std::vector<std::string> parts;
        for (const auto& part : fs::path(name)) parts.push_back(part.string());
        const size_t n = parts.size();
        // As in a folder: nothing under a hidden folder or __MACOSX.
        if (std::any_of(parts.begin(), parts.end() - (n > 0 ? 1 : 0), [](const std::string& p) { return dataset_names::isHiddenFolderName(p); })) continue;
        const bool image = n >= 4 && toLower(parts[n - 2]) == "images" && isSplitName(parts[n - 3]);
        if (image) {
            if (dataset_names::isImageExtension(dataset_names::extensionOf(parts[n - 1])))
                out.setClass(dataset_names::stemOf(parts[n - 1]), "city", parts[n - 4]);
            continue;
        }
        if (n < 3 || !isSplitName(parts[n - 2])) continue;
        const std::string file = toLower(parts[n - 1]);
        if (file != "postprocessed.csv" && file != "raw.csv") continue;
        anyCsv = true;
        const std::string where = archive.path() + ": " + name;
        if (!archive.intact(i)) {
            out.addProblem(where + ": damaged in the archive: no labels from it");
            continue;
        }
        const std::string text = archive.readText(name);
        if (file == "raw.csv")
            readRaw(text, where, parts[n - 3], out);
        else
            readPostprocessed(text, where, parts[n - 3], out);
    }
    if (!anyCsv) out.addProblem(archive.path() + ": no postprocessed.csv or raw.csv in it: its images have only the city label");
    return out;
#endif
}

ImageLabels MslsLabelReader::read(const std::string& data) {
    std::error_code ec;
    if (!fs::is_regular_file(data, ec)) return readFolder(data);
#if !STREETGAN_WITH_PHOTOS
    BuildFeatures::missing("the labels of an MSLS batch (.zip, .tar)", BuildFeatures::Feature::Photos);
#else
    return readArchive(ArchiveReader(data));
#endif
}

}  // namespace streetgan
