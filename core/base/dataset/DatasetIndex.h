// The index of an image data set: which images a folder tree (or an archive's listing) holds,
// how they group into cities and sequences, and which of them a run uses.
//
// Layouts:
// - MSLS (Mapillary Street-Level Sequences): any `<city>/{database,query}/images/<key>.jpg`
//   below the root, so the root may be the MSLS top folder, `train_val` (or `test`) itself, a
//   single city folder or even one `images` folder. The city is the folder above
//   database/query. Each database/ and query/ folder's CSV files give an image's sequence: the
//   first of seq_info.csv, postprocessed.csv, raw.csv that has both a `key` and a
//   `sequence_key` column is used (`frame_number`, when present, gives the frame). CSV reading
//   is tolerant: columns are found by name, quoted fields, CRLF and a UTF-8 BOM are accepted,
//   malformed lines are counted (warnings()) and skipped. An image with no CSV row gets the
//   sequence "" (unsequenced: grouped with nothing, never capped).
// - Any other image: city = first-level subfolder of the root, or "(root)" for files directly
//   in it; sequence = the image's own folder relative to the root ("(root)" at the root).
//
// Images: .jpg .jpeg .png .webp, extensions case-insensitive; nothing is decoded here (the ml
// layer's PhotoListing decodes, and drops files with a bad verdict from the listing before it
// reaches fromListing, counting them under the decoder's reason names: "truncated",
// "not-an-image", ...). Bad input is skipped and counted by reason (skipped()), and named
// (skippedFiles()), never thrown mid-walk:
//   "empty file"               zero-byte image file
//   "hidden file"              image-named file starting with '.' (e.g. macOS "._x.jpg")
//   "unsupported image format" .gif .bmp .tif .tiff .heic .heif .avif .jxl .jp2 .ppm .pgm .pnm
//   "unreadable file"          image-named entry whose size cannot be read (e.g. broken link)
//   "not a regular file"       image-named FIFO, socket or device (never opened: no hang)
//   "unreadable folder"        a folder that cannot be listed
//   "hidden folder"            a subfolder starting with '.' or named __MACOSX (not entered)
//   "directory symlink"        a symlink to a folder (not followed: no loops)
// Other files (CSV, text, ...) are ignored and not counted.
//
// Selection, in this order: the city include/exclude lists (case-insensitive; exclude wins);
// the train/validation split, a pure function of the image key (isValidationKey), so growing
// the data set never moves an image between splits and raising the percent only moves images
// from train to validation; the per-sequence cap, applied to training images only (validation
// membership then never depends on the other images), keeping frames spread evenly along the
// sequence; then the split the options ask for.
//
// Order: entries() is sorted by (city, sequence, frame, key, path): the same tree gives the
// same order on every run and platform.
//
// Thread contract: scanFolder() and fromListing() are reentrant (no shared state) and do not
// call back into the caller except through fromListing's reader, on the calling thread.
// A DatasetIndex is immutable after construction: any number of threads may call its const
// members at once. It owns its entries; accessors return references valid while it lives.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/dataset/ImageEntry.h"

namespace streetgan {

/// What part of a data set an index keeps.
struct IndexOptions {
    enum class Split { All, Train, Validation };

    /// Cities to keep (case-insensitive); empty keeps every city.
    std::vector<std::string> includeCities;
    /// Cities to drop (case-insensitive); wins over includeCities.
    std::vector<std::string> excludeCities;
    /// Most training images kept per sequence (0: no cap). Unsequenced images are not capped.
    int64_t maxPerSequence = 0;
    /// Share of images (by key hash) held out for validation, in percent, [0, 100].
    double validationPercent = 0.0;
    /// Which images entries() holds: train + validation, train only, or validation only.
    Split split = Split::All;
};

class DatasetIndex {
public:
    /// One file of a listing (a folder walk or an archive's table of contents).
    struct ListedFile {
        std::string path;  ///< relative to the root, '/'-separated
        uint64_t size = 0;
        int64_t mtimeNs = 0;  ///< modification time (folders), 0 when unknown (archive entries)
    };
    /// Returns the text of the file at `path` (relative to the root; may start with "../" when
    /// the root lies inside an MSLS city folder), or nullopt when it cannot be read.
    using TextReader = std::function<std::optional<std::string>(const std::string& path)>;
    /// Skipped paths by reason (relative to the root, as listed).
    using SkippedFiles = std::map<std::string, std::vector<std::string>>;
    /// A listing and what its lister skipped: the input of fromListing.
    struct Listing {
        std::string rootPath;  ///< what fromListing classifies against (absolute for folders)
        std::string root;      ///< the root as given (root()); rootPath when empty
        std::vector<ListedFile> files;
        TextReader readText;
        std::map<std::string, int64_t> skipped;
        SkippedFiles skippedFiles;
    };

    /// An empty index (no entries, no counts).
    DatasetIndex() = default;

    /// Walks the folder `root` (directory symlinks below it are not followed; the root itself
    /// may be one) and indexes it with `options`. Throws IoError when `root` does not exist, is
    /// not a folder or cannot be listed; ConfigError for invalid options. Problems below the
    /// root are counted in skipped(), never thrown. May take long on big trees (one stat per
    /// image file); call it off the GUI thread.
    static DatasetIndex scanFolder(const std::string& root, const IndexOptions& options);
    /// The folder walk of scanFolder alone (same errors): files with size and mtime, skip counts
    /// and names, and a reader for the CSVs. scanFolder = fromListing(listFolder(root), options).
    static Listing listFolder(const std::string& root);
    /// fromListing on a Listing (a copy of its files).
    static DatasetIndex fromListing(const Listing& listing, const IndexOptions& options);

    /// Indexes a listing made elsewhere (e.g. an archive): `rootPath` names the root (its last
    /// components matter when the root is an MSLS city or images folder); `files` holds the
    /// image files and the CSV files (others are ignored); `listingSkipped` are counts the
    /// lister already made (merged into skipped()). `readText` is asked for CSV files: for
    /// listed ones nullopt counts as "unreadable csv"; for ones outside the root (path starting
    /// with "../") nullopt means absent. Files below hidden folders are dropped silently (the
    /// lister counts those folders). Throws ConfigError for invalid options.
    /// `listingSkippedFiles` names what `listingSkipped` counts (merged into skippedFiles()).
    static DatasetIndex fromListing(const std::string& rootPath, std::vector<ListedFile> files, const TextReader& readText,
                                    const std::map<std::string, int64_t>& listingSkipped, const IndexOptions& options,
                                    const SkippedFiles& listingSkippedFiles = {});

    /// A listing path as entries() hold it: '/'-separated, no empty or "." components ("./a//b" -> "a/b").
    static std::string normalizePath(const std::string& path);

    /// Throws DataError when entries() is empty, with one line naming `specForMessages` (the
    /// --data value), what was found and skipped, and what to change.
    void requireNonEmpty(const std::string& specForMessages) const;

    /// The selected images, sorted by (city, sequence, frame, key, path).
    const std::vector<ImageEntry>& entries() const { return entries_; }
    int64_t size() const { return static_cast<int64_t>(entries_.size()); }
    bool empty() const { return entries_.empty(); }

    /// The root as given to scanFolder / fromListing.
    const std::string& root() const { return root_; }
    const IndexOptions& options() const { return options_; }

    /// Files and folders skipped as bad input, by reason (see the list above).
    const std::map<std::string, int64_t>& skipped() const { return skipped_; }
    int64_t skippedTotal() const;
    /// The skipped files and folders by reason, paths relative to the root, sorted (what a lister
    /// only counted is absent).
    const SkippedFiles& skippedFiles() const { return skippedFiles_; }
    /// CSV problems by kind: "malformed csv line", "unreadable csv", "csv missing key or
    /// sequence_key column", "no sequence csv" (database/query folders without a usable CSV),
    /// "image not in sequence csv".
    const std::map<std::string, int64_t>& warnings() const { return warnings_; }
    /// Images dropped by the selection, by step: "excluded city", "sequence cap", "other split".
    const std::map<std::string, int64_t>& dropped() const { return dropped_; }

    /// Usable images found before any selection, and their cities.
    int64_t foundImages() const { return found_; }
    const std::map<std::string, int64_t>& foundCities() const { return foundCities_; }
    /// Selected images per city (the cities of entries()).
    const std::map<std::string, int64_t>& cities() const { return cities_; }
    /// Distinct (city, sequence) pairs among entries(), unsequenced images not counted.
    int64_t sequenceCount() const { return sequences_; }
    /// Entries without a sequence (MSLS images with no CSV row).
    int64_t unsequencedCount() const { return unsequenced_; }
    /// Training and validation images after the city filter and the cap (whatever split
    /// entries() holds).
    int64_t trainCount() const { return train_; }
    int64_t validationCount() const { return validation_; }
    /// include-list names that matched no city found.
    const std::vector<std::string>& unmatchedCities() const { return unmatched_; }
    /// "msls", "folder", "mixed" or "empty", from the images found.
    std::string layout() const;

    /// `data stats --json`: {"images","skipped","skipped_reasons":{..},"skipped_files":{reason:[path..]},"cities":{name:count},
    /// "sequences"} plus "shares":{name:fraction}, "unsequenced", "found", "layout", "root",
    /// "warnings":{..}, "dropped":{..}, "unmatched_cities":[..] and
    /// "split":{"returned":"all|train|validation","validation_percent","train","validation",
    /// "max_per_sequence"}.
    nlohmann::json stats() const;

    /// A human-readable table of a stats() document: one row per city (most images first) with
    /// its image count and share, then totals, sequences, split and skipped lines. Tolerates
    /// missing fields. Locale-independent.
    static std::string formatStatsTable(const nlohmann::json& stats);

    /// True when `key` belongs to the validation split at `percent` (stable for ever: a hash of
    /// the key's bytes; monotone in percent).
    static bool isValidationKey(const std::string& key, double percent);
    /// The stable 64-bit hash of a key behind the split (FNV-1a, then splitmix64 finalised).
    static uint64_t keyHash(const std::string& key);

    /// "all", "train", "validation"; parseSplit throws ConfigError for other names.
    static const char* splitName(IndexOptions::Split split);
    static IndexOptions::Split parseSplit(const std::string& name);

private:
    std::string root_;
    IndexOptions options_;
    std::vector<ImageEntry> entries_;
    std::map<std::string, int64_t> skipped_;
    SkippedFiles skippedFiles_;
    std::map<std::string, int64_t> warnings_;
    std::map<std::string, int64_t> dropped_;
    std::map<std::string, int64_t> foundCities_;
    std::map<std::string, int64_t> cities_;
    std::vector<std::string> unmatched_;
    int64_t found_ = 0;
    int64_t sequences_ = 0;
    int64_t unsequenced_ = 0;
    int64_t train_ = 0;
    int64_t validation_ = 0;
    int64_t mslsImages_ = 0;
    int64_t folderImages_ = 0;
};

}  // namespace streetgan
