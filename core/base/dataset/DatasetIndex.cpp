#include "base/dataset/DatasetIndex.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <utility>

#include "base/dataset/DatasetNames.h"
#include "base/dataset/DatasetSelection.h"
#include "base/dataset/DatasetStatsTable.h"
#include "base/dataset/FolderLister.h"
#include "base/dataset/SequenceCsv.h"
#include "base/util/Errors.h"
#include "base/util/SeedHash.h"

// The folder walk (FolderLister), the sequence CSVs (SequenceCsv), the selection steps
// (DatasetSelection) and the stats table (DatasetStatsTable) live in files of their own; this
// one classifies a listing into cities and sequences and reports on the result.

namespace streetgan {

namespace {

namespace fs = std::filesystem;
using namespace dataset_names;

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
        throw ConfigError("validation percent " + nlohmann::json(o.validationPercent).dump() + " is outside [0, 100]: give a share such as 5");
    if (o.maxPerSequence < 0)
        throw ConfigError("max images per sequence " + std::to_string(o.maxPerSequence) + " is negative: use 0 for no cap or a positive count");
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
        case IndexOptions::Split::Train:
            return "train";
        case IndexOptions::Split::Validation:
            return "validation";
        case IndexOptions::Split::All:
            break;
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
    return fromListing(listFolder(root), options);
}

DatasetIndex DatasetIndex::fromListing(const Listing& listing, const IndexOptions& options) {
    DatasetIndex index = fromListing(listing.rootPath, listing.files, listing.readText, listing.skipped, options, listing.skippedFiles);
    if (!listing.root.empty()) index.root_ = listing.root;
    return index;
}

DatasetIndex::Listing DatasetIndex::listFolder(const std::string& root) {
    if (root.empty()) throw IoError("data folder is an empty path: give the folder of images with --data");
    std::error_code ec;
    const fs::path given(root);
    const fs::file_status st = fs::status(given, ec);
    if (ec || !fs::exists(st)) throw IoError("data folder '" + root + "' does not exist: check the --data path");
    if (!fs::is_directory(st)) throw IoError("data source '" + root + "' is not a folder: give a folder of images (or a supported archive)");
    fs::path absRoot = fs::absolute(given, ec);
    if (ec) absRoot = given;
    absRoot = absRoot.lexically_normal();
    std::string absText = absRoot.generic_string();
    while (absText.size() > 1 && absText.back() == '/') absText.pop_back();
    absRoot = fs::path(absText);

    Listing listing;
    listing.rootPath = absText;
    listing.root = root;
    FolderLister::list(absRoot, root, listing.files, listing.skipped, &listing.skippedFiles);
    listing.readText = FolderLister::textReader(absRoot);
    return listing;
}

// ------------------------------------------------------------------------------ indexing

DatasetIndex DatasetIndex::fromListing(const std::string& rootPath, std::vector<ListedFile> files, const TextReader& readText,
                                       const std::map<std::string, int64_t>& listingSkipped, const IndexOptions& options,
                                       const SkippedFiles& listingSkippedFiles) {
    validateOptions(options);
    DatasetIndex idx;
    idx.root_ = rootPath;
    idx.options_ = options;
    for (const auto& [reason, count] : listingSkipped)
        if (count > 0) idx.skipped_[reason] += count;
    for (const auto& [reason, paths] : listingSkippedFiles) {
        auto& names = idx.skippedFiles_[reason];
        names.insert(names.end(), paths.begin(), paths.end());
    }
    auto skip = [&idx](const char* reason, const std::string& path) {
        ++idx.skipped_[reason];
        idx.skippedFiles_[reason].push_back(path);
    };

    // 1. Classify by name: image candidates and sequence CSVs.
    std::map<std::string, std::string> csvByLowerPath;  // "dir/lowercase name" -> listed path
    std::vector<ListedFile> images;
    images.reserve(files.size());
    for (ListedFile& f : files) {
        std::vector<std::string> comps = splitPath(f.path);
        if (comps.empty()) continue;
        // An archive's entries come as paths (a folder lister never gives these): one climbing out
        // of the root is counted whatever its name; an image inside a hidden folder (__MACOSX,
        // .thumbnails) as a lister counts that folder.
        const std::string& name = comps.back();
        const std::string norm = joinPath(comps, 0, comps.size());
        if (std::find(comps.begin(), comps.end(), "..") != comps.end()) {
            skip(kOutsideRoot, norm);
            continue;
        }
        if (std::any_of(comps.begin(), comps.end() - 1, [](const std::string& c) { return isHiddenFolderName(c); })) {
            if (isImageExtension(extensionOf(name))) skip(kHiddenFolder, norm);
            continue;
        }
        if (isSequenceCsvName(name)) {
            const std::string dir = joinPath(comps, 0, comps.size() - 1);
            csvByLowerPath.emplace(dir.empty() ? toLower(name) : dir + "/" + toLower(name), norm);
            continue;
        }
        const std::string ext = extensionOf(name);
        if (isImageExtension(ext)) {
            if (name.front() == '.')
                skip(kHiddenFile, norm);
            else if (f.size == 0)
                skip(kEmptyFile, norm);
            else
                images.push_back({norm, f.size, f.mtimeNs});
        } else if (isUnsupportedImageExtension(ext)) {
            skip(kUnsupported, norm);
        }
    }
    files.clear();
    files.shrink_to_fit();
    for (auto& [reason, names] : idx.skippedFiles_) {
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
    }
    // Sorting by path makes every database/query folder's images contiguous (one CSV load each)
    // and removes duplicates a listing may hold.
    std::sort(images.begin(), images.end(), [](const ListedFile& a, const ListedFile& b) { return a.path < b.path; });
    images.erase(std::unique(images.begin(), images.end(), [](const ListedFile& a, const ListedFile& b) { return a.path == b.path; }), images.end());

    // 2. City and sequence of each image.
    const std::vector<std::string> rootComps = splitPath(rootPath);
    const size_t R = rootComps.size();
    std::string currentSubset;
    bool haveSubset = false;
    bool subsetUsable = false;
    SequenceCsv::Table table;
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
            SequenceCsv::Table rows;
            const bool ok = SequenceCsv::parse(*text, rows, malformed);
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
        const size_t F = R + D;             // folders from the top of rootPath
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
        e.mtimeNs = f.mtimeNs;
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

    // 3-5. City filter, deterministic order, split by key hash, cap training images per sequence, select.
    DatasetSelection::Result selected = DatasetSelection::select(std::move(all), idx.foundCities_, options);
    idx.entries_ = std::move(selected.entries);
    idx.dropped_ = std::move(selected.dropped);
    idx.unmatched_ = std::move(selected.unmatched);
    idx.train_ = selected.train;
    idx.validation_ = selected.validation;

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
    j["skipped_files"] = nlohmann::json::object();
    for (const auto& [reason, paths] : skippedFiles_)
        if (!paths.empty()) j["skipped_files"][reason] = paths;
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
std::string DatasetIndex::formatStatsTable(const nlohmann::json& stats) { return DatasetStatsTable::format(stats); }

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
        throw DataError(head + " has no image in the selected cities: found " + std::to_string(found_) + " images in " + std::to_string(foundCities_.size()) +
                        " cities (" + names + ")" + (unmatched.empty() ? std::string() : "; no city is named " + unmatched) +
                        "; check the city include/exclude lists");
    }
    const std::string pct = DatasetStatsTable::percentOptionText(options_.validationPercent);
    if (options_.split == IndexOptions::Split::Validation)
        throw DataError(head + " has no validation image: " + std::to_string(afterCities) + " images selected, validation percent " + pct +
                        "; raise the validation percent");
    throw DataError(head + " has no training image: " + std::to_string(afterCities) + " images selected, all in validation (validation percent " + pct +
                    "); lower the validation percent");
}

}  // namespace streetgan
