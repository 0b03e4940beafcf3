// Random access, by entry index, to the regular files of a zip / tar / tar.gz archive read in
// place (the file is memory-mapped read-only; nothing is extracted to disk).
//
// The constructor lists the archive once (format detected from the content, not the extension)
// with the parsers S3ArchiveReader shares (ZipFormat, TarFormat), no libarchive:
//   - zip: the central directory (ZIP64 too; a zip without a usable one is walked by its local
//     headers); read(i) copies a stored entry or inflates a deflated one (libdeflate) from the
//     mapped bytes and checks its CRC-32. Encrypted entries and other methods: DataError.
//   - plain tar: a walk over the headers (ustar, GNU long names, pax); read(i) copies the data.
//   - tar.gz: the gzip stream is inflated once, feeding the same tar walk, and an access point is
//     saved every kSpan bytes of output (compressed bit offset + the 32 KiB window before it, the
//     zran technique); read(i) inflates from the nearest access point before the entry's data.
//     Concatenated gzip members work.
//   - other compressed tars (bzip2, xz, zstd, ...): only in a build with libarchive
//     (STREETGAN_WITH_LIBARCHIVE, ArchiveReaderLibarchive.cpp), whose read(i) decompresses from
//     the start (slow; convert such archives to tar.gz or zip for training). Without it the
//     constructor refuses them in one line saying how to convert them.
// A truncated or corrupt archive lists without hanging: the listing stops at the damage,
// truncated() is set, entries complete before it stay readable and read() of a damaged entry
// throws DataError naming the archive and the entry.
//
// Index cache: the listing (and the tar.gz access points) is saved to "<archive>.sgindex" next to
// the archive, or, where that folder is not writable, to
// $XDG_CACHE_HOME/streetgan/archive-index/<hash of the path>.sgindex (~/.cache when unset). It is
// keyed by the absolute path, size and modification time of the archive and ignored when any of
// them differs or the file is unreadable; failing to write it is not an error.
//
// Thread-safe: read() / readText() may be called from many threads at once (each call uses its
// own zlib / libdeflate / libarchive state; the object is immutable after construction).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

struct archive;

namespace streetgan {

struct ArchiveIndex;

class ArchiveReader {
public:
    /// One regular file of the archive.
    struct Entry {
        std::string name;   ///< path inside the archive, e.g. "train_val/city/database/images/k.jpg"
        uint64_t size = 0;  ///< uncompressed size in bytes
    };

    enum class Format { Zip, Tar, TarGzip, CompressedTar };

    /// Uncompressed bytes between two tar.gz access points.
    static constexpr uint64_t kSpan = uint64_t(4) << 20;

    enum class IndexCache { Off, ReadWrite };

    /// Maps and lists `path` (or loads its cached index). Throws IoError when it cannot be opened
    /// or mapped, DataError when it is empty or not a zip / tar / compressed tar archive.
    explicit ArchiveReader(const std::string& path, IndexCache cache = IndexCache::ReadWrite);
    ~ArchiveReader();
    ArchiveReader(const ArchiveReader&) = delete;
    ArchiveReader& operator=(const ArchiveReader&) = delete;

    const std::string& path() const { return path_; }
    Format format() const { return format_; }
    /// "zip", "tar", "tar.gz" or "compressed tar".
    std::string formatName() const;

    /// Number of regular-file entries found (including a damaged last one of a truncated archive).
    size_t size() const { return entries_.size(); }
    std::vector<Entry> entries() const { return entries_; }
    const Entry& entry(size_t i) const;
    /// Index of the entry named `name`, or npos.
    size_t find(const std::string& name) const;
    static constexpr size_t npos = static_cast<size_t>(-1);

    /// True when the listing stopped at damage (truncated or corrupt data) instead of a clean end.
    bool truncated() const { return truncated_; }
    /// False for an entry whose data was cut or corrupt while listing (read() throws DataError).
    bool intact(size_t i) const;
    /// True when the index came from a cache file instead of a listing pass.
    bool fromCache() const { return fromCache_; }
    /// The cache file read or written; empty when none.
    const std::string& indexPath() const { return indexPath_; }
    /// The entries that are neither folders nor regular files, as (name, reason): symbolic and hard
    /// links (dataset_names::kArchiveLink) and devices, FIFOs, sockets (kNotRegular). Not readable.
    const std::vector<std::pair<std::string, std::string>>& skippedEntries() const { return skipped_; }
    /// Number of tar.gz access points (0 for the other formats).
    size_t accessPoints() const { return checkpoints_.size(); }

    /// The uncompressed bytes of entry i. Throws DataError for an index out of range or a damaged
    /// entry (naming the archive and the entry). Thread-safe.
    std::vector<uint8_t> read(size_t i) const;
    /// The entry named `name` as text (for the small CSVs). Throws DataError when absent.
    std::string readText(const std::string& name) const;

private:
    struct Location {
        uint64_t begin = 0;           ///< zip: local header; tar: data (file offset); tar.gz: data (uncompressed offset)
        uint64_t end = 0;             ///< tar / tar.gz: end of the data
        uint64_t ordinal = 0;         ///< compressed tar: index among all headers
        uint64_t compressedSize = 0;  ///< zip: stored bytes
        uint64_t headerHint = 0;      ///< zip: local header + name + extra as the listing saw them
        uint32_t crc = 0;             ///< zip CRC-32
        uint16_t method = 0;          ///< zip compression method
        uint16_t flags = 0;           ///< zip general purpose flags; tar: 1 for a sparse entry
        bool intact = true;
    };
    struct Checkpoint {
        uint64_t out = 0;             ///< uncompressed offset
        uint64_t in = 0;              ///< compressed byte offset (bits of in-1 still pending)
        int bits = 0;                 ///< pending bits of byte in-1
        bool memberStart = false;     ///< start of a gzip member: no window, gzip header follows
        std::vector<uint8_t> window;  ///< the 32 KiB of output before `out`
    };
    struct GzipPass;

    void list();
    void listZip();
    void listTar();
    void listGzip();
    void takeIndex(ArchiveIndex&& index);
    /// bzip2, xz, ...: listed by libarchive where the build has it, refused otherwise.
    void listCompressed(const std::string& filter, const std::string& tool);
    void listEntries(::archive* a);
    std::vector<uint8_t> readCurrent(::archive* a, size_t i) const;
    std::vector<uint8_t> readTar(size_t i) const;
    std::vector<uint8_t> inflateRange(uint64_t begin, uint64_t end) const;
    std::vector<uint8_t> readSequential(size_t i) const;
    std::string cacheKey() const;
    std::vector<std::string> cacheCandidates() const;
    bool loadIndex(const std::string& file);
    void saveIndex();
    [[noreturn]] void damaged(size_t i, const std::string& why) const;

    std::string path_;
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
    Format format_ = Format::Zip;
    bool truncated_ = false;
    bool fromCache_ = false;
    std::string indexPath_;
    uint64_t mtimeNs_ = 0;
    uint64_t streamEnd_ = 0;  ///< tar.gz: uncompressed bytes available
    std::vector<Entry> entries_;
    std::vector<std::pair<std::string, std::string>> skipped_;
    std::vector<Location> locations_;
    std::vector<Checkpoint> checkpoints_;
    std::unordered_map<std::string, size_t> byName_;
};

}  // namespace streetgan
