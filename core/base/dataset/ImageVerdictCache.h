// The verdict of every image file of a data source ("ok", or why it is unusable: "truncated",
// "not-an-image", ...), kept on disk with the source so that its images are decoded to check
// them once: a second `data stats` decodes nothing, and a training run never decodes a file
// already known to be bad (PhotoListing drops such files from the listing, counted by reason).
//
// Key: a verdict holds for one path at one size and modification time (ns); a file whose size
// or mtime changed has no verdict and is checked again. Archive entries have no mtime of their
// own: the cache of an archive is keyed by the archive's size and mtime as a whole (a rewritten
// archive starts a fresh cache) and an entry by its name and size. The whole file is also keyed
// by a `checker` text naming the checks that made the verdicts (PhotoListing::kChecker): new
// checks ignore old verdicts instead of trusting them.
//
// Where: like the archive index (ArchiveReader's .sgindex), next to the data first, else in the
// user's cache folder:
//   folder:  <root>/.sgverdicts, else Paths::cacheDir("verdicts")/<FNV-1a of the root>.sgverdicts
//   archive: <archive>.sgverdicts, else Paths::cacheDir("verdicts")/<FNV-1a of the path>.sgverdicts
// (the folder's file is hidden and not image-named, so the lister ignores it). Paths inside are
// relative to the root (normalised, as ImageEntry::path), so a moved folder keeps its verdicts.
//
// Format, versioned by its magic: "SGVERDC1", the key, the record count, then per record the path,
// size, mtime and verdict (native little-endian u64s, u64-length-prefixed strings). A file with
// another magic (an older or newer version), another key, or any inconsistency (short, trailing
// bytes, counts out of range) is ignored whole and rewritten on the next save: never misread.
// Writes are atomic (AtomicFile); two processes saving at once lose at most the verdicts of one,
// which are then checked again. Failing to write is not an error (the checks just run again).
//
// Thread contract: load() and lookup() are reentrant; record(), pending() and save() may be called
// from any thread at once (one mutex; save() does its I/O under it).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace streetgan {

class ImageVerdictCache {
public:
    /// The verdict a file had at a size and mtime.
    struct Verdict {
        uint64_t size = 0;
        int64_t mtimeNs = 0;
        std::string verdict;  ///< kOk or a reason name
    };
    using Map = std::unordered_map<std::string, Verdict>;  ///< normalised relative path -> verdict
    static constexpr const char* kOk = "ok";
    static constexpr char kMagic[9] = "SGVERDC1";

    /// The cache of the folder `absRoot` (absolute, normalised) for verdicts made by `checker`.
    static std::shared_ptr<ImageVerdictCache> forFolder(const std::string& absRoot, const std::string& checker);
    /// The cache of the archive file `path`, keyed by its size and mtime too (0 when it cannot be
    /// read: such a cache never matches a readable archive).
    static std::shared_ptr<ImageVerdictCache> forArchive(const std::string& path, const std::string& checker);

    /// A cache read from the first of `candidates` holding `key`, saved to the first writable one.
    ImageVerdictCache(std::vector<std::string> candidates, std::string key);

    /// The stored verdicts; empty when no candidate holds a valid file with this key.
    Map load() const;
    /// The stored verdict of `path` when it is for this size and mtime, else nullptr.
    static const std::string* lookup(const Map& map, const std::string& path, uint64_t size, int64_t mtimeNs);

    /// Adds or replaces the verdict of `path`, kept in memory until save().
    void record(const std::string& path, uint64_t size, int64_t mtimeNs, const std::string& verdict);
    /// Verdicts recorded since the last successful save.
    int64_t pending() const;
    /// Merges the recorded verdicts into the stored ones and writes the file atomically. With
    /// `live`, stored verdicts of paths not in it (deleted files) are dropped. Returns the file
    /// written, or "" when there was nothing to write or no candidate was writable.
    std::string save(const std::unordered_set<std::string>* live = nullptr);

    /// The file last read or written ("" when none).
    std::string path() const;
    const std::string& key() const { return key_; }

private:
    bool readFile(const std::string& file, Map& out) const;

    std::vector<std::string> candidates_;
    std::string key_;
    mutable std::mutex mutex_;
    Map pending_;
    mutable std::string path_;
};

}  // namespace streetgan
