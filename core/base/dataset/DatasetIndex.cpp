#include "base/dataset/DatasetIndex.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "base/util/Errors.h"
#include "base/util/SeedHash.h"

namespace streetgan {

namespace {

namespace fs = std::filesystem;

constexpr const char* kEmptyFile = "empty file";
constexpr const char* kHiddenFile = "hidden file";
constexpr const char* kUnsupported = "unsupported image format";
constexpr const char* kUnreadableFile = "unreadable file";
constexpr const char* kNotRegular = "not a regular file";
constexpr const char* kUnreadableFolder = "unreadable folder";
constexpr const char* kHiddenFolder = "hidden folder";
constexpr const char* kDirSymlink = "directory symlink";

constexpr const char* kMalformedCsv = "malformed csv line";
constexpr const char* kUnreadableCsv = "unreadable csv";
constexpr const char* kCsvNoColumns = "csv missing key or sequence_key column";
constexpr const char* kNoSequenceCsv = "no sequence csv";
constexpr const char* kNotInCsv = "image not in sequence csv";

constexpr const char* kDroppedCity = "excluded city";
constexpr const char* kDroppedCap = "sequence cap";
constexpr const char* kDroppedSplit = "other split";

constexpr const char* kRootName = "(root)";
/// CSV files larger than this are not read (MSLS's largest is a few tens of MB).
constexpr uintmax_t kMaxCsvBytes = uintmax_t{512} << 20;
/// The sequence CSVs, in order of preference.
constexpr const char* kCsvNames[] = {"seq_info.csv", "postprocessed.csv", "raw.csv"};

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

/// Splits a '/'-separated path into components, dropping empty and "." ones.
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

/// Lower-case extension after the last '.', "" when none.
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
    static const std::set<std::string> kExts = {"gif", "bmp",  "tif", "tiff", "heic", "heif", "avif",
                                                "jxl", "jp2", "ppm", "pgm",  "pnm"};
    return kExts.count(ext) != 0;
}

bool isSequenceCsvName(std::string_view name) {
    const std::string lower = toLower(name);
    for (const char* n : kCsvNames)
        if (lower == n) return true;
    return false;
}

bool isHiddenFolderName(std::string_view name) { return (!name.empty() && name.front() == '.') || name == "__MACOSX"; }

/// Parses one CSV record (RFC 4180 quoting within a line; fields trimmed of blanks).
/// Returns false for an unterminated quote or text after a closing quote.
bool parseCsvLine(std::string_view s, std::vector<std::string>& out) {
    out.clear();
    size_t i = 0;
    const size_t n = s.size();
    for (;;) {
        std::string field;
        size_t j = i;
        while (j < n && (s[j] == ' ' || s[j] == '\t')) ++j;
        if (j < n && s[j] == '"') {
            ++j;
            bool closed = false;
            while (j < n) {
                if (s[j] == '"') {
                    if (j + 1 < n && s[j + 1] == '"') {
                        field += '"';
                        j += 2;
                    } else {
                        closed = true;
                        ++j;
                        break;
                    }
                } else {
                    field += s[j++];
                }
            }
            if (!closed) return false;
            while (j < n && (s[j] == ' ' || s[j] == '\t')) ++j;
            if (j < n && s[j] != ',') return false;
        } else {
            size_t e = s.find(',', i);
            if (e == std::string_view::npos) e = n;
            field = std::string(trim(s.substr(i, e - i)));
            j = e;
        }
        out.push_back(std::move(field));
        if (j >= n) break;
        i = j + 1;
    }
    return true;
}

/// "12", "12.0", " 7 " -> the integer; anything else -> -1.
int64_t parseFrame(std::string_view s) {
    s = trim(s);
    int64_t v = -1;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p == b) return -1;
    if (p != e) {
        if (*p != '.') return -1;
        for (++p; p != e; ++p)
            if (*p != '0') return -1;
    }
    return v < 0 ? -1 : v;
}

struct SequenceRow {
    std::string sequence;
    int64_t frame = -1;
};
using SequenceTable = std::unordered_map<std::string, SequenceRow>;

/// Reads a sequence CSV into `rows` (first row of a key wins). Returns false when the header
/// lacks a key or sequence_key column (then `rows` is untouched).
bool parseSequenceCsv(std::string_view text, SequenceTable& rows, int64_t& malformed) {
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    std::vector<std::string> fields;
    long keyCol = -1, seqCol = -1, frameCol = -1;
    bool haveHeader = false;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t e = text.find('\n', pos);
        if (e == std::string_view::npos) e = text.size();
        std::string_view line = text.substr(pos, e - pos);
        pos = e + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (trim(line).empty()) continue;
        if (!haveHeader) {
            if (!parseCsvLine(line, fields)) return false;
            for (size_t c = 0; c < fields.size(); ++c) {
                const std::string name = toLower(trim(fields[c]));
                if (name == "key" && keyCol < 0) keyCol = static_cast<long>(c);
                if (name == "sequence_key" && seqCol < 0) seqCol = static_cast<long>(c);
                if (name == "frame_number" && frameCol < 0) frameCol = static_cast<long>(c);
            }
            if (keyCol < 0 || seqCol < 0) return false;
            haveHeader = true;
            continue;
        }
        if (!parseCsvLine(line, fields) || static_cast<long>(fields.size()) <= std::max(keyCol, seqCol)) {
            ++malformed;
            continue;
        }
        const std::string& key = fields[static_cast<size_t>(keyCol)];
        const std::string& seq = fields[static_cast<size_t>(seqCol)];
        if (key.empty() || seq.empty()) {
            ++malformed;
            continue;
        }
        SequenceRow row{seq, -1};
        if (frameCol >= 0 && static_cast<size_t>(frameCol) < fields.size())
            row.frame = parseFrame(fields[static_cast<size_t>(frameCol)]);
        rows.emplace(key, std::move(row));
    }
    return haveHeader;
}

uint64_t fnv1a64(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

void validateOptions(const IndexOptions& o) {
    if (!(o.validationPercent >= 0.0 && o.validationPercent <= 100.0))
        throw ConfigError("validation percent " + nlohmann::json(o.validationPercent).dump() +
                          " is outside [0, 100]: give a share such as 5");
    if (o.maxPerSequence < 0)
        throw ConfigError("max images per sequence " + std::to_string(o.maxPerSequence) +
                          " is negative: use 0 for no cap or a positive count");
}

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

std::string percentOptionText(double p) {
    if (p == static_cast<double>(static_cast<int64_t>(p))) return std::to_string(static_cast<int64_t>(p));
    return nlohmann::json(p).dump();
}

}  // namespace

// ------------------------------------------------------------------------------ split

uint64_t DatasetIndex::keyHash(const std::string& key) { return SeedHash::mix(fnv1a64(key)); }

bool DatasetIndex::isValidationKey(const std::string& key, double percent) {
    if (!(percent > 0.0)) return false;
    if (percent >= 100.0) return true;
    // 53 high bits as a fraction in [0, 1): exact in double, the same everywhere.
    const double u = static_cast<double>(keyHash(key) >> 11) * (1.0 / 9007199254740992.0);
    return u * 100.0 < percent;
}

const char* DatasetIndex::splitName(IndexOptions::Split split) {
    switch (split) {
        case IndexOptions::Split::Train: return "train";
        case IndexOptions::Split::Validation: return "validation";
        case IndexOptions::Split::All: break;
    }
    return "all";
}

IndexOptions::Split DatasetIndex::parseSplit(const std::string& name) {
    const std::string n = toLower(name);
    if (n == "all") return IndexOptions::Split::All;
    if (n == "train") return IndexOptions::Split::Train;
    if (n == "validation" || n == "val") return IndexOptions::Split::Validation;
    throw ConfigError("unknown data split '" + name + "': use all, train or validation");
}

// ------------------------------------------------------------------------------ folder walk

DatasetIndex DatasetIndex::scanFolder(const std::string& root, const IndexOptions& options) {
    validateOptions(options);
    if (root.empty()) throw IoError("data folder is an empty path: give the folder of images with --data");
    std::error_code ec;
    const fs::path given(root);
    const fs::file_status st = fs::status(given, ec);
    if (ec || !fs::exists(st)) throw IoError("data folder '" + root + "' does not exist: check the --data path");
    if (!fs::is_directory(st))
        throw IoError("data source '" + root + "' is not a folder: give a folder of images (or a supported archive)");
    fs::path absRoot = fs::absolute(given, ec);
    if (ec) absRoot = given;
    absRoot = absRoot.lexically_normal();
    std::string absText = absRoot.generic_string();
    while (absText.size() > 1 && absText.back() == '/') absText.pop_back();
    absRoot = fs::path(absText);

    std::vector<ListedFile> files;
    std::map<std::string, int64_t> skipped;
    struct Pending {
        fs::path abs;
        std::string rel;
    };
    std::vector<Pending> stack;
    stack.push_back({absRoot, std::string()});
    while (!stack.empty()) {
        Pending dir = std::move(stack.back());
        stack.pop_back();
        std::error_code dirEc;
        fs::directory_iterator it(dir.abs, dirEc);
        if (dirEc) {
            if (dir.rel.empty())
                throw IoError("cannot list data folder '" + root + "' (" + dirEc.message() + "): check its permissions");
            ++skipped[kUnreadableFolder];
            continue;
        }
        const fs::directory_iterator end;
        while (it != end) {
            const fs::directory_entry& de = *it;
            const std::string name = de.path().filename().string();
            const std::string rel = dir.rel.empty() ? name : dir.rel + "/" + name;
            const std::string ext = extensionOf(name);
            const bool imageNamed = isImageExtension(ext) || isUnsupportedImageExtension(ext);
            const bool relevant = imageNamed || isSequenceCsvName(name);
            std::error_code e2;
            fs::file_status ts = de.symlink_status(e2);
            bool usable = !e2;
            if (usable && fs::is_symlink(ts)) {
                ts = de.status(e2);  // follows the link
                usable = !e2 && fs::exists(ts);
                if (usable && fs::is_directory(ts)) {
                    ++skipped[kDirSymlink];
                    usable = false;
                    ts = fs::file_status(fs::file_type::none);
                } else if (!usable && imageNamed) {
                    ++skipped[kUnreadableFile];
                }
            } else if (!usable && imageNamed) {
                ++skipped[kUnreadableFile];
            }
            if (usable) {
                if (fs::is_directory(ts)) {
                    if (isHiddenFolderName(name))
                        ++skipped[kHiddenFolder];
                    else
                        stack.push_back({de.path(), rel});
                } else if (relevant) {
                    if (!fs::is_regular_file(ts)) {
                        if (imageNamed) ++skipped[kNotRegular];
                    } else {
                        const uintmax_t size = de.file_size(e2);
                        if (e2) {
                            if (imageNamed) ++skipped[kUnreadableFile];
                        } else {
                            files.push_back({rel, static_cast<uint64_t>(size)});
                        }
                    }
                }
            }
            it.increment(dirEc);
            if (dirEc) {
                ++skipped[kUnreadableFolder];
                break;
            }
        }
    }

    const TextReader reader = [absRoot](const std::string& rel) -> std::optional<std::string> {
        const fs::path p = (absRoot / fs::path(rel)).lexically_normal();
        std::error_code e;
        const fs::file_status s = fs::status(p, e);
        if (e || !fs::is_regular_file(s)) return std::nullopt;
        const uintmax_t size = fs::file_size(p, e);
        if (e || size > kMaxCsvBytes) return std::nullopt;
        std::ifstream in(p, std::ios::binary);
        if (!in) return std::nullopt;
        std::string text(static_cast<size_t>(size), '\0');
        in.read(text.data(), static_cast<std::streamsize>(size));
        if (in.bad()) return std::nullopt;
        text.resize(static_cast<size_t>(in.gcount()));
        return text;
    };
    DatasetIndex index = fromListing(absText, std::move(files), reader, skipped, options);
    index.root_ = root;
    return index;
}

// ------------------------------------------------------------------------------ indexing

DatasetIndex DatasetIndex::fromListing(const std::string& rootPath, std::vector<ListedFile> files,
                                       const TextReader& readText,
                                       const std::map<std::string, int64_t>& listingSkipped,
                                       const IndexOptions& options) {
    validateOptions(options);
    DatasetIndex idx;
    idx.root_ = rootPath;
    idx.options_ = options;
    for (const auto& [reason, count] : listingSkipped)
        if (count > 0) idx.skipped_[reason] += count;

    // 1. Classify by name: image candidates and sequence CSVs.
    std::map<std::string, std::string> csvByLowerPath;  // "dir/lowercase name" -> listed path
    std::vector<ListedFile> images;
    images.reserve(files.size());
    for (ListedFile& f : files) {
        std::vector<std::string> comps = splitPath(f.path);
        if (comps.empty()) continue;
        bool drop = false;
        for (size_t i = 0; i < comps.size(); ++i) {
            if (comps[i] == ".." || (i + 1 < comps.size() && isHiddenFolderName(comps[i]))) drop = true;
        }
        if (drop) continue;
        const std::string& name = comps.back();
        const std::string norm = joinPath(comps, 0, comps.size());
        if (isSequenceCsvName(name)) {
            const std::string dir = joinPath(comps, 0, comps.size() - 1);
            csvByLowerPath.emplace(dir.empty() ? toLower(name) : dir + "/" + toLower(name), norm);
            continue;
        }
        const std::string ext = extensionOf(name);
        if (isImageExtension(ext)) {
            if (name.front() == '.')
                ++idx.skipped_[kHiddenFile];
            else if (f.size == 0)
                ++idx.skipped_[kEmptyFile];
            else
                images.push_back({norm, f.size});
        } else if (isUnsupportedImageExtension(ext)) {
            ++idx.skipped_[kUnsupported];
        }
    }
    files.clear();
    files.shrink_to_fit();
    // Sorting by path makes every database/query folder's images contiguous (one CSV load each)
    // and removes duplicates a listing may hold.
    std::sort(images.begin(), images.end(), [](const ListedFile& a, const ListedFile& b) { return a.path < b.path; });
    images.erase(std::unique(images.begin(), images.end(),
                             [](const ListedFile& a, const ListedFile& b) { return a.path == b.path; }),
                 images.end());

    // 2. City and sequence of each image.
    const std::vector<std::string> rootComps = splitPath(rootPath);
    const size_t R = rootComps.size();
    std::string currentSubset;
    bool haveSubset = false;
    bool subsetUsable = false;
    SequenceTable table;
    auto loadSubset = [&](const std::string& subsetRel) {
        table.clear();
        subsetUsable = false;
        const bool outside = subsetRel.rfind("..", 0) == 0;
        for (const char* csvName : kCsvNames) {
            const std::string lowerRel = subsetRel.empty() ? std::string(csvName) : subsetRel + "/" + csvName;
            std::string rel = lowerRel;
            if (!outside) {
                auto it = csvByLowerPath.find(lowerRel);
                if (it == csvByLowerPath.end()) continue;
                rel = it->second;
            }
            std::optional<std::string> text = readText ? readText(rel) : std::nullopt;
            if (!text) {
                if (!outside) ++idx.warnings_[kUnreadableCsv];
                continue;
            }
            int64_t malformed = 0;
            SequenceTable rows;
            const bool ok = parseSequenceCsv(*text, rows, malformed);
            if (!ok) {
                if (std::string_view(csvName) == "seq_info.csv") ++idx.warnings_[kCsvNoColumns];
                continue;
            }
            if (malformed > 0) idx.warnings_[kMalformedCsv] += malformed;
            table = std::move(rows);
            subsetUsable = true;
            break;
        }
        if (!subsetUsable) ++idx.warnings_[kNoSequenceCsv];
    };

    std::vector<ImageEntry> all;
    all.reserve(images.size());
    for (ListedFile& f : images) {
        const std::vector<std::string> comps = splitPath(f.path);
        const size_t D = comps.size() - 1;  // folders below the root
        const size_t F = R + D;              // folders from the top of rootPath
        auto full = [&](size_t k) -> const std::string& { return k < R ? rootComps[k] : comps[k - R]; };
        long cityAt = -1;
        for (size_t i = F >= 3 ? F - 3 + 1 : 0; i-- > 0;) {
            const std::string sub = toLower(full(i + 1));
            if ((sub == "database" || sub == "query") && toLower(full(i + 2)) == "images") {
                cityAt = static_cast<long>(i);
                break;
            }
        }
        ImageEntry e;
        e.key = stemOf(comps.back());
        e.size = f.size;
        if (cityAt >= 0) {
            const size_t i = static_cast<size_t>(cityAt);
            e.city = full(i);
            std::string subsetRel;
            if (i + 1 >= R) {
                subsetRel = joinPath(comps, 0, i + 2 - R);
            } else {
                for (size_t up = (R - 1) - (i + 1); up > 0; --up) subsetRel += subsetRel.empty() ? ".." : "/..";
            }
            if (!haveSubset || subsetRel != currentSubset) {
                currentSubset = subsetRel;
                haveSubset = true;
                loadSubset(subsetRel);
            }
            auto row = table.find(e.key);
            if (row != table.end()) {
                e.sequence = row->second.sequence;
                e.frame = row->second.frame;
            } else if (subsetUsable) {
                ++idx.warnings_[kNotInCsv];
            }
            ++idx.mslsImages_;
        } else {
            e.city = D >= 1 ? comps[0] : kRootName;
            e.sequence = D >= 1 ? joinPath(comps, 0, D) : kRootName;
            ++idx.folderImages_;
        }
        e.path = std::move(f.path);
        all.push_back(std::move(e));
    }
    images.clear();
    images.shrink_to_fit();
    table.clear();

    idx.found_ = static_cast<int64_t>(all.size());
    for (const ImageEntry& e : all) ++idx.foundCities_[e.city];

    // 3. City filter.
    std::set<std::string> include, exclude;
    for (const std::string& c : options.includeCities) include.insert(toLower(c));
    for (const std::string& c : options.excludeCities) exclude.insert(toLower(c));
    {
        std::set<std::string> foundLower;
        for (const auto& [city, count] : idx.foundCities_) foundLower.insert(toLower(city));
        for (const std::string& c : options.includeCities)
            if (!foundLower.count(toLower(c))) idx.unmatched_.push_back(c);
    }
    idx.dropped_[kDroppedCity] = 0;
    idx.dropped_[kDroppedCap] = 0;
    idx.dropped_[kDroppedSplit] = 0;
    if (!include.empty() || !exclude.empty()) {
        const size_t before = all.size();
        all.erase(std::remove_if(all.begin(), all.end(),
                                 [&](const ImageEntry& e) {
                                     const std::string c = toLower(e.city);
                                     return (!include.empty() && !include.count(c)) || exclude.count(c);
                                 }),
                  all.end());
        idx.dropped_[kDroppedCity] = static_cast<int64_t>(before - all.size());
    }

    // 4. Deterministic order.
    std::sort(all.begin(), all.end(), [](const ImageEntry& a, const ImageEntry& b) {
        return std::tie(a.city, a.sequence, a.frame, a.key, a.path) < std::tie(b.city, b.sequence, b.frame, b.key, b.path);
    });

    // 5. Split by key hash, cap training images per sequence, select.
    const size_t n = all.size();
    std::vector<char> isVal(n), keep(n, 1);
    for (size_t i = 0; i < n; ++i) isVal[i] = isValidationKey(all[i].key, options.validationPercent) ? 1 : 0;
    if (options.maxPerSequence > 0) {
        const size_t cap = static_cast<size_t>(options.maxPerSequence);
        std::vector<size_t> train;
        size_t g = 0;
        while (g < n) {
            size_t h = g + 1;
            while (h < n && all[h].city == all[g].city && all[h].sequence == all[g].sequence) ++h;
            if (!all[g].sequence.empty()) {
                train.clear();
                for (size_t i = g; i < h; ++i)
                    if (!isVal[i]) train.push_back(i);
                const size_t m = train.size();
                if (m > cap) {
                    for (size_t i : train) keep[i] = 0;
                    // Centres of cap equal parts of the sequence: evenly spread, distinct, deterministic.
                    for (size_t j = 0; j < cap; ++j) keep[train[(2 * j + 1) * m / (2 * cap)]] = 1;
                    idx.dropped_[kDroppedCap] += static_cast<int64_t>(m - cap);
                }
            }
            g = h;
        }
    }
    idx.entries_.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        if (!keep[i]) continue;
        (isVal[i] ? idx.validation_ : idx.train_) += 1;
        const bool wanted = options.split == IndexOptions::Split::All ||
                            (options.split == IndexOptions::Split::Validation) == (isVal[i] != 0);
        if (wanted)
            idx.entries_.push_back(std::move(all[i]));
        else
            ++idx.dropped_[kDroppedSplit];
    }
    all.clear();
    all.shrink_to_fit();

    // 6. Summary of the selection.
    const ImageEntry* prev = nullptr;
    for (const ImageEntry& e : idx.entries_) {
        ++idx.cities_[e.city];
        if (e.sequence.empty())
            ++idx.unsequenced_;
        else if (!prev || prev->city != e.city || prev->sequence != e.sequence)
            ++idx.sequences_;
        prev = &e;
    }
    return idx;
}

// ------------------------------------------------------------------------------ reporting

int64_t DatasetIndex::skippedTotal() const {
    int64_t total = 0;
    for (const auto& [reason, count] : skipped_) total += count;
    return total;
}

std::string DatasetIndex::layout() const {
    if (mslsImages_ > 0 && folderImages_ > 0) return "mixed";
    if (mslsImages_ > 0) return "msls";
    if (folderImages_ > 0) return "folder";
    return "empty";
}

nlohmann::json DatasetIndex::stats() const {
    nlohmann::json j;
    j["images"] = size();
    j["skipped"] = skippedTotal();
    j["skipped_reasons"] = nlohmann::json::object();
    for (const auto& [reason, count] : skipped_) j["skipped_reasons"][reason] = count;
    j["cities"] = nlohmann::json::object();
    j["shares"] = nlohmann::json::object();
    for (const auto& [city, count] : cities_) {
        j["cities"][city] = count;
        j["shares"][city] = static_cast<double>(count) / static_cast<double>(size());
    }
    j["sequences"] = sequences_;
    j["unsequenced"] = unsequenced_;
    j["found"] = found_;
    j["layout"] = layout();
    j["root"] = root_;
    j["warnings"] = nlohmann::json::object();
    for (const auto& [kind, count] : warnings_) j["warnings"][kind] = count;
    j["dropped"] = nlohmann::json::object();
    for (const auto& [step, count] : dropped_) j["dropped"][step] = count;
    j["unmatched_cities"] = unmatched_;
    j["split"] = {{"returned", splitName(options_.split)},
                  {"validation_percent", options_.validationPercent},
                  {"train", train_},
                  {"validation", validation_},
                  {"max_per_sequence", options_.maxPerSequence}};
    return j;
}

std::string DatasetIndex::formatStatsTable(const nlohmann::json& stats) {
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
    if (const int64_t u = jsonInt(stats, "unsequenced"); u > 0)
        out += " (" + groupDigits(u) + " images without a sequence)";
    out += "\n";
    if (auto sp = stats.find("split"); sp != stats.end() && sp->is_object()) {
        const double pct = sp->value("validation_percent", 0.0);
        out += "split: train " + groupDigits(jsonInt(*sp, "train")) + ", validation " +
               groupDigits(jsonInt(*sp, "validation")) + " (" + percentOptionText(pct) +
               "% by image key); listed: " + sp->value("returned", std::string("all")) + "\n";
        if (const int64_t cap = jsonInt(*sp, "max_per_sequence"); cap > 0) {
            out += "cap: " + groupDigits(cap) + " training images per sequence";
            if (auto d = stats.find("dropped"); d != stats.end())
                out += " (" + groupDigits(jsonInt(*d, "sequence cap")) + " dropped)";
            out += "\n";
        }
    }
    if (auto d = stats.find("dropped"); d != stats.end())
        if (const int64_t c = jsonInt(*d, "excluded city"); c > 0)
            out += "excluded by city filter: " + groupDigits(c) + "\n";
    out += "skipped: " + groupDigits(jsonInt(stats, "skipped"));
    if (auto r = stats.find("skipped_reasons"); r != stats.end()) {
        const std::string list = reasonList(*r);
        if (!list.empty()) out += " (" + list + ")";
    }
    out += "\n";
    if (auto w = stats.find("warnings"); w != stats.end()) {
        const std::string list = reasonList(*w);
        if (!list.empty()) out += "csv warnings: " + list + "\n";
    }
    return out;
}

std::string DatasetIndex::normalizePath(const std::string& path) {
    const auto comps = splitPath(path);
    return joinPath(comps, 0, comps.size());
}

void DatasetIndex::requireNonEmpty(const std::string& specForMessages) const {
    if (!entries_.empty()) return;
    const std::string head = "data source '" + specForMessages + "'";
    std::string skippedText;
    if (const int64_t s = skippedTotal(); s > 0) {
        std::string list;
        for (const auto& [reason, count] : skipped_) list += (list.empty() ? "" : ", ") + reason + " " + std::to_string(count);
        skippedText = "; skipped " + std::to_string(s) + " (" + list + ")";
    }
    if (found_ == 0)
        throw DataError(head + " has no usable image: found no non-empty .jpg, .jpeg, .png or .webp file" + skippedText +
                        "; point --data at a folder of images or an MSLS train_val folder");
    const int64_t afterCities = found_ - (dropped_.count(kDroppedCity) ? dropped_.at(kDroppedCity) : 0);
    if (afterCities == 0) {
        std::string names;
        int shown = 0;
        for (const auto& [city, count] : foundCities_) {
            if (shown == 12) {
                names += ", ...";
                break;
            }
            names += (names.empty() ? "" : ", ") + city;
            ++shown;
        }
        std::string unmatched;
        for (const std::string& u : unmatched_) unmatched += (unmatched.empty() ? "" : ", ") + u;
        throw DataError(head + " has no image in the selected cities: found " + std::to_string(found_) + " images in " +
                        std::to_string(foundCities_.size()) + " cities (" + names + ")" +
                        (unmatched.empty() ? std::string() : "; no city is named " + unmatched) +
                        "; check the city include/exclude lists");
    }
    const std::string pct = percentOptionText(options_.validationPercent);
    if (options_.split == IndexOptions::Split::Validation)
        throw DataError(head + " has no validation image: " + std::to_string(afterCities) +
                        " images selected, validation percent " + pct + "; raise the validation percent");
    throw DataError(head + " has no training image: " + std::to_string(afterCities) +
                    " images selected, all in validation (validation percent " + pct + "); lower the validation percent");
}

}  // namespace streetgan
