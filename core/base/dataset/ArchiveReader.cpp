#include "base/dataset/ArchiveReader.h"

#include <archive.h>
#include <libdeflate.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "base/util/AtomicFile.h"
#include "base/util/Paths.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {

constexpr size_t kWindow = 32768;               // deflate history
constexpr size_t kMaxChunk = size_t(1) << 30;   // zlib's avail_in / avail_out are 32-bit

struct ArchiveFree {
    void operator()(archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveFree>;

std::string errorOf(archive* a) {
    const char* e = archive_error_string(a);
    return e ? e : "unknown libarchive error";
}

bool isRegular(archive_entry* e) {
    return archive_entry_filetype(e) == AE_IFREG && archive_entry_hardlink(e) == nullptr;
}

bool headerOk(int r) { return r == ARCHIVE_OK || r == ARCHIVE_WARN; }

/// Refills z_stream input from the mapped file when it ran dry.
void feed(z_stream& s, const uint8_t* data, size_t size) {
    if (s.avail_in != 0) return;
    const size_t pos = static_cast<size_t>(s.next_in - data);
    s.avail_in = static_cast<uInt>(std::min(size - pos, kMaxChunk));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// tar.gz listing pass: inflates the whole gzip stream once (feeding the output to libarchive's tar
// reader through a read callback) and saves an access point every kSpan bytes of output.

struct ArchiveReader::GzipPass {
    const uint8_t* data = nullptr;
    size_t size = 0;
    std::vector<Checkpoint>* checkpoints = nullptr;
    z_stream s{};
    bool finished = false;  // no more output will come
    bool complete = false;  // the last gzip member ended cleanly
    std::string problem;    // why the stream ended early
    std::vector<uint8_t> window = std::vector<uint8_t>(kWindow);
    size_t wpos = 0;
    uint64_t totOut = 0;
    uint64_t last = 0;

    GzipPass(const uint8_t* d, size_t n, std::vector<Checkpoint>* cps) : data(d), size(n), checkpoints(cps) {
        s.next_in = const_cast<Bytef*>(data);
        s.avail_in = 0;
        if (inflateInit2(&s, 47) != Z_OK) throw std::bad_alloc();  // 15 + 32: gzip or zlib header
    }
    ~GzipPass() { inflateEnd(&s); }
    GzipPass(const GzipPass&) = delete;
    GzipPass& operator=(const GzipPass&) = delete;

    size_t inPos() const { return static_cast<size_t>(s.next_in - data); }

    void addCheckpoint(bool memberStart) {
        Checkpoint cp;
        cp.out = totOut;
        cp.in = inPos();
        cp.memberStart = memberStart;
        if (!memberStart) {
            cp.bits = s.data_type & 7;
            cp.window.resize(kWindow);
            // window[wpos..) is the oldest output, window[..wpos) the newest.
            std::memcpy(cp.window.data(), window.data() + wpos, kWindow - wpos);
            std::memcpy(cp.window.data() + (kWindow - wpos), window.data(), wpos);
        }
        checkpoints->push_back(std::move(cp));
        last = totOut;
    }

    /// Next chunk of uncompressed output; 0 at the end (clean or not).
    size_t next(const void** buf) {
        while (!finished) {
            if (wpos == kWindow) wpos = 0;
            feed(s, data, size);
            const uInt inBefore = s.avail_in;
            s.next_out = window.data() + wpos;
            s.avail_out = static_cast<uInt>(kWindow - wpos);
            const int ret = inflate(&s, Z_BLOCK);
            const size_t produced = (kWindow - wpos) - s.avail_out;
            const bool progress = produced != 0 || s.avail_in != inBefore;
            wpos += produced;
            totOut += produced;
            if (ret == Z_OK) {
                if ((s.data_type & 128) && !(s.data_type & 64) &&
                    (checkpoints->empty() || totOut - last >= kSpan))
                    addCheckpoint(false);
                if (!progress) {
                    finished = true;
                    problem = "gzip stream stops early";
                }
            } else if (ret == Z_STREAM_END) {
                feed(s, data, size);
                const size_t pos = inPos();
                if (pos + 2 <= size && data[pos] == 0x1f && data[pos + 1] == 0x8b) {
                    inflateReset(&s);  // another gzip member follows
                    addCheckpoint(true);
                } else {
                    finished = true;
                    complete = true;
                }
            } else if (ret == Z_BUF_ERROR) {
                finished = true;
                problem = "gzip stream is truncated";
            } else {
                finished = true;
                problem = std::string("gzip data is corrupt (") + (s.msg ? s.msg : "inflate error") + ")";
            }
            if (produced) {
                *buf = window.data() + wpos - produced;
                return produced;
            }
        }
        return 0;
    }

    static la_ssize_t readCallback(archive*, void* self, const void** buf) {
        return static_cast<la_ssize_t>(static_cast<GzipPass*>(self)->next(buf));
    }
};

// ---------------------------------------------------------------------------------------------

ArchiveReader::ArchiveReader(const std::string& path, IndexCache cache) : path_(path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw IoError(path + ": cannot open archive (" + std::strerror(errno) + "); check the path and its permissions");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw IoError(path + ": not a regular file; point the data source at an archive file");
    }
    if (st.st_size == 0) {
        ::close(fd);
        throw DataError(path + ": archive is empty; re-download it");
    }
    size_ = static_cast<size_t>(st.st_size);
    mtimeNs_ = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull + static_cast<uint64_t>(st.st_mtim.tv_nsec);
    void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int mapErrno = errno;
    ::close(fd);
    if (m == MAP_FAILED) {
        size_ = 0;
        throw IoError(path + ": cannot map archive (" + std::strerror(mapErrno) + "); check free address space and the file");
    }
    data_ = static_cast<const uint8_t*>(m);
    try {
        if (cache == IndexCache::ReadWrite)
            for (const std::string& file : cacheCandidates())
                if (loadIndex(file)) {
                    fromCache_ = true;
                    indexPath_ = file;
                    break;
                }
        if (!fromCache_) {
            if (size_ >= 2 && data_[0] == 0x1f && data_[1] == 0x8b)
                listGzip();
            else
                listLibarchive();
            if (cache == IndexCache::ReadWrite) saveIndex();
        }
    } catch (...) {
        ::munmap(const_cast<uint8_t*>(data_), size_);
        throw;
    }
    for (size_t i = 0; i < entries_.size(); ++i) byName_.emplace(entries_[i].name, i);
}

ArchiveReader::~ArchiveReader() {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

std::string ArchiveReader::formatName() const {
    switch (format_) {
        case Format::Zip: return "zip";
        case Format::Tar: return "tar";
        case Format::TarGzip: return "tar.gz";
        case Format::CompressedTar: return "compressed tar";
    }
    return "?";
}

const ArchiveReader::Entry& ArchiveReader::entry(size_t i) const {
    if (i >= entries_.size())
        throw DataError(path_ + ": entry index " + std::to_string(i) + " out of range (" + std::to_string(entries_.size()) +
                        " entries); rebuild the dataset index");
    return entries_[i];
}

size_t ArchiveReader::find(const std::string& name) const {
    const auto it = byName_.find(name);
    return it == byName_.end() ? npos : it->second;
}

bool ArchiveReader::intact(size_t i) const {
    entry(i);
    return locations_[i].intact;
}

void ArchiveReader::damaged(size_t i, const std::string& why) const {
    throw DataError(path_ + ": entry '" + entries_[i].name + "' is damaged (" + why +
                    "); the archive is truncated or corrupt, re-download it");
}

// ---------------------------------------------------------------------------------------------
// Listing

void ArchiveReader::listEntries(archive* a, bool detectFormat) {
    uint64_t ordinal = 0;
    size_t pending = npos;  // entry whose end is the next header's position
    for (bool first = true;; first = false) {
        archive_entry* e = nullptr;
        const int r = archive_read_next_header(a, &e);
        if (headerOk(r) && pending != npos) {
            locations_[pending].end = static_cast<uint64_t>(archive_read_header_position(a));
            pending = npos;
        }
        if (r == ARCHIVE_EOF) break;
        if (!headerOk(r)) {
            if (first)
                throw DataError(path_ + ": not a zip or tar archive (" + errorOf(a) +
                                "); point the data source at an MSLS batch (.zip, .tar or .tar.gz)");
            truncated_ = true;
            break;
        }
        if (first && detectFormat) {
            const int fmt = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
            if (fmt == ARCHIVE_FORMAT_ZIP)
                format_ = Format::Zip;
            else if (fmt == ARCHIVE_FORMAT_TAR)
                format_ = archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE ? Format::Tar : Format::CompressedTar;
            else
                throw DataError(path_ + ": unsupported archive format '" + archive_format_name(a) +
                                "'; use a .zip, .tar or .tar.gz batch");
        }
        const uint64_t headerOrdinal = ordinal++;
        if (!isRegular(e)) continue;

        Location loc;
        loc.begin = static_cast<uint64_t>(archive_read_header_position(a));
        loc.ordinal = headerOrdinal;
        Entry en;
        const char* name = archive_entry_pathname(e);
        if (!name) name = archive_entry_pathname_utf8(e);
        en.name = name ? name : "";
        if (archive_entry_size_is_set(e)) {
            en.size = static_cast<uint64_t>(archive_entry_size(e));
            loc.intact = archive_read_data_skip(a) == ARCHIVE_OK;
        } else {  // zip entry with its sizes after the data: count the bytes
            static thread_local std::vector<char> scratch(1 << 16);
            la_ssize_t n;
            while ((n = archive_read_data(a, scratch.data(), scratch.size())) > 0) en.size += static_cast<uint64_t>(n);
            loc.intact = n == 0;
        }
        entries_.push_back(std::move(en));
        locations_.push_back(loc);
        pending = locations_.size() - 1;
        if (!loc.intact) {
            truncated_ = true;
            pending = npos;
            break;
        }
    }
    if (pending != npos) locations_[pending].end = format_ == Format::TarGzip ? UINT64_MAX : size_;
}

void ArchiveReader::listLibarchive() {
    ArchivePtr a(archive_read_new());
    if (!a) throw std::bad_alloc();
    archive_read_support_format_zip_streamable(a.get());
    archive_read_support_format_tar(a.get());
    archive_read_support_filter_all(a.get());
    if (archive_read_open_memory(a.get(), data_, size_) != ARCHIVE_OK)
        throw DataError(path_ + ": not a zip or tar archive (" + errorOf(a.get()) +
                        "); point the data source at an MSLS batch (.zip, .tar or .tar.gz)");
    listEntries(a.get(), true);
    if (truncated_) return;
    if (format_ == Format::Zip) {
        // A complete zip ends with the end-of-central-directory record (22 bytes + a comment of
        // at most 65535 bytes); a zip cut at an entry boundary lists cleanly but lacks it.
        bool found = false;
        if (size_ >= 22) {
            const size_t from = size_ - 22 > 65535 ? size_ - 22 - 65535 : 0;
            for (size_t p = size_ - 22 + 1; p-- > from;)
                if (std::memcmp(data_ + p, "PK\5\6", 4) == 0) {
                    found = true;
                    break;
                }
        }
        truncated_ = !found;
    } else if (format_ == Format::Tar) {
        truncated_ = size_ % 512 != 0;
    }
}

void ArchiveReader::listGzip() {
    format_ = Format::TarGzip;
    GzipPass pass(data_, size_, &checkpoints_);
    ArchivePtr a(archive_read_new());
    if (!a) throw std::bad_alloc();
    archive_read_support_format_tar(a.get());
    if (archive_read_open(a.get(), &pass, nullptr, &GzipPass::readCallback, nullptr) != ARCHIVE_OK)
        throw DataError(path_ + ": not a tar.gz archive (" + errorOf(a.get()) + "); use a .zip, .tar or .tar.gz batch");
    listEntries(a.get(), false);
    a.reset();
    const void* buf = nullptr;
    while (pass.next(&buf) != 0) {
    }  // drain the padding after the tar end to learn whether the gzip stream is complete
    streamEnd_ = pass.totOut;
    if (!pass.complete) truncated_ = true;
    for (auto& loc : locations_) {
        loc.end = std::min(loc.end, streamEnd_);
        if (loc.end <= loc.begin) loc.intact = false;
    }
}

// ---------------------------------------------------------------------------------------------
// Index cache: little-endian-native binary, "SGARCIX1", the key, then the listing.

namespace {

constexpr char kIndexMagic[8] = {'S', 'G', 'A', 'R', 'C', 'I', 'X', '1'};

struct IndexWriter {
    std::string s;
    void u64(uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void str(const std::string& x) {
        u64(x.size());
        s += x;
    }
};

struct IndexReader {
    const std::string& s;
    size_t p = 0;
    bool ok = true;
    uint64_t u64() {
        uint64_t v = 0;
        if (!ok || s.size() - p < sizeof v) {
            ok = false;
            return 0;
        }
        std::memcpy(&v, s.data() + p, sizeof v);
        p += sizeof v;
        return v;
    }
    std::string str() {
        const uint64_t n = u64();
        if (!ok || n > s.size() - p) {
            ok = false;
            return {};
        }
        std::string r = s.substr(p, static_cast<size_t>(n));
        p += static_cast<size_t>(n);
        return r;
    }
};

std::string absolutePath(const std::string& path) {
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(path, ec);
    return ec ? path : abs.lexically_normal().string();
}

}  // namespace

std::string ArchiveReader::cacheKey() const {
    return absolutePath(path_) + "\n" + std::to_string(size_) + "\n" + std::to_string(mtimeNs_);
}

std::vector<std::string> ArchiveReader::cacheCandidates() const {
    std::vector<std::string> out{path_ + ".sgindex"};
    uint64_t h = 1469598103934665603ull;  // FNV-1a of the absolute path
    for (unsigned char c : absolutePath(path_)) h = (h ^ c) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    out.push_back(Paths::cacheDir("archive-index") + "/" + hex + ".sgindex");
    return out;
}

bool ArchiveReader::loadIndex(const std::string& file) {
    std::string blob;
    {
        std::ifstream f(file, std::ios::binary);
        if (!f) return false;
        std::ostringstream ss;
        ss << f.rdbuf();
        blob = ss.str();
    }
    if (blob.size() < sizeof kIndexMagic || std::memcmp(blob.data(), kIndexMagic, sizeof kIndexMagic) != 0) return false;
    IndexReader r{blob, sizeof kIndexMagic};
    if (r.str() != cacheKey() || !r.ok) return false;
    const uint64_t format = r.u64();
    if (format > static_cast<uint64_t>(Format::CompressedTar)) return false;
    const bool truncated = r.u64() != 0;
    const uint64_t streamEnd = r.u64();
    const uint64_t n = r.u64();
    if (!r.ok || n > blob.size()) return false;
    std::vector<Entry> entries;
    std::vector<Location> locations;
    for (uint64_t i = 0; i < n && r.ok; ++i) {
        Entry e;
        e.name = r.str();
        e.size = r.u64();
        Location l;
        l.begin = r.u64();
        l.end = r.u64();
        l.ordinal = r.u64();
        l.intact = r.u64() != 0;
        entries.push_back(std::move(e));
        locations.push_back(l);
    }
    const uint64_t m = r.u64();
    if (!r.ok || m > blob.size()) return false;
    std::vector<Checkpoint> checkpoints;
    for (uint64_t i = 0; i < m && r.ok; ++i) {
        Checkpoint c;
        c.out = r.u64();
        c.in = r.u64();
        c.bits = static_cast<int>(r.u64());
        c.memberStart = r.u64() != 0;
        const std::string w = r.str();
        c.window.assign(w.begin(), w.end());
        if (c.in > size_ || c.bits < 0 || c.bits > 7 || (c.bits && c.in == 0) || (!c.memberStart && c.window.size() != kWindow))
            r.ok = false;
        checkpoints.push_back(std::move(c));
    }
    if (!r.ok || r.p != blob.size()) return false;
    format_ = static_cast<Format>(format);
    truncated_ = truncated;
    streamEnd_ = streamEnd;
    entries_ = std::move(entries);
    locations_ = std::move(locations);
    checkpoints_ = std::move(checkpoints);
    return true;
}

void ArchiveReader::saveIndex() {
    IndexWriter w;
    w.s.assign(kIndexMagic, sizeof kIndexMagic);
    w.str(cacheKey());
    w.u64(static_cast<uint64_t>(format_));
    w.u64(truncated_ ? 1 : 0);
    w.u64(streamEnd_);
    w.u64(entries_.size());
    for (size_t i = 0; i < entries_.size(); ++i) {
        w.str(entries_[i].name);
        w.u64(entries_[i].size);
        w.u64(locations_[i].begin);
        w.u64(locations_[i].end);
        w.u64(locations_[i].ordinal);
        w.u64(locations_[i].intact ? 1 : 0);
    }
    w.u64(checkpoints_.size());
    for (const Checkpoint& c : checkpoints_) {
        w.u64(c.out);
        w.u64(c.in);
        w.u64(static_cast<uint64_t>(c.bits));
        w.u64(c.memberStart ? 1 : 0);
        w.str(std::string(c.window.begin(), c.window.end()));
    }
    for (const std::string& file : cacheCandidates()) {
        try {
            std::error_code ec;
            std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
            AtomicFile::write(file, w.s);
            indexPath_ = file;
            return;
        } catch (const IoError&) {
            // not writable here: try the next place; no cache is not an error
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reading

std::vector<uint8_t> ArchiveReader::readCurrent(archive* a, size_t i) const {
    const uint64_t expect = entries_[i].size;
    std::vector<uint8_t> out(static_cast<size_t>(expect));
    size_t got = 0;
    char tail[4096];
    for (;;) {
        la_ssize_t n;
        if (got < out.size()) {
            n = archive_read_data(a, out.data() + got, out.size() - got);
            if (n > 0) got += static_cast<size_t>(n);
        } else {
            n = archive_read_data(a, tail, sizeof tail);  // expect 0 (end; zip CRC is checked here)
            if (n > 0) {
                out.insert(out.end(), tail, tail + n);
                got += static_cast<size_t>(n);
            }
        }
        if (n == 0) break;
        if (n < 0) damaged(i, errorOf(a));
    }
    if (got != expect)
        damaged(i, "holds " + std::to_string(got) + " bytes, the header says " + std::to_string(expect));
    return out;
}

namespace {

uint32_t le32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24); }
uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

}  // namespace

bool ArchiveReader::readZipFast(size_t i, const uint8_t* data, size_t size, std::vector<uint8_t>& out) const {
    // Fast path for the common zip entry: sizes and CRC in the local header (no data descriptor,
    // not encrypted, not zip64), stored or deflated. JPEGs barely deflate, so inflating them is
    // pure overhead per image: libdeflate does it 2-3x faster than zlib (through libarchive),
    // which keeps a zip source within a few percent of a folder. Anything else: libarchive.
    if (size < 30 || le32(data) != 0x04034b50u) return false;
    const uint16_t flags = le16(data + 6), method = le16(data + 8);
    const uint32_t crc = le32(data + 14), csize = le32(data + 18), usize = le32(data + 22);
    if ((flags & 0x9) != 0 || (method != 0 && method != 8) || csize == 0xFFFFFFFFu || usize == 0xFFFFFFFFu) return false;
    if (usize != entries_[i].size) return false;
    const size_t start = 30 + static_cast<size_t>(le16(data + 26)) + le16(data + 28);
    if (start > size || csize > size - start) return false;  // cut short: libarchive reports it
    out.resize(usize);
    if (method == 0) {
        if (csize != usize) return false;
        std::memcpy(out.data(), data + start, usize);
    } else {
        thread_local std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(libdeflate_alloc_decompressor(),
                                                                                                    libdeflate_free_decompressor);
        if (!d) throw std::bad_alloc();
        size_t actual = 0;
        if (libdeflate_deflate_decompress(d.get(), data + start, csize, out.data(), usize, &actual) != LIBDEFLATE_SUCCESS || actual != usize)
            damaged(i, "holds corrupt deflate data");
    }
    if (libdeflate_crc32(0, out.data(), out.size()) != crc) damaged(i, "fails its CRC check");
    return true;
}

std::vector<uint8_t> ArchiveReader::readFirst(size_t i, const uint8_t* data, size_t size) const {
    if (format_ == Format::Zip) {
        std::vector<uint8_t> out;
        if (readZipFast(i, data, size, out)) return out;
    }
    ArchivePtr a(archive_read_new());
    if (!a) throw std::bad_alloc();
    if (format_ == Format::Zip)
        archive_read_support_format_zip_streamable(a.get());
    else
        archive_read_support_format_tar(a.get());
    if (archive_read_open_memory(a.get(), data, size) != ARCHIVE_OK) damaged(i, errorOf(a.get()));
    archive_entry* e = nullptr;
    if (!headerOk(archive_read_next_header(a.get(), &e))) damaged(i, errorOf(a.get()));
    return readCurrent(a.get(), i);
}

std::vector<uint8_t> ArchiveReader::inflateRange(uint64_t begin, uint64_t end) const {
    auto it = std::upper_bound(checkpoints_.begin(), checkpoints_.end(), begin,
                               [](uint64_t v, const Checkpoint& c) { return v < c.out; });
    if (it == checkpoints_.begin()) return {};
    const Checkpoint& cp = *(it - 1);
    z_stream s{};
    bool raw = !cp.memberStart;
    if (inflateInit2(&s, raw ? -15 : 47) != Z_OK) throw std::bad_alloc();
    struct Guard {
        z_stream* s;
        ~Guard() { inflateEnd(s); }
    } guard{&s};
    if (raw) {
        if (cp.bits) inflatePrime(&s, cp.bits, data_[cp.in - 1] >> (8 - cp.bits));
        inflateSetDictionary(&s, cp.window.data(), static_cast<uInt>(cp.window.size()));
    }
    s.next_in = const_cast<Bytef*>(data_ + cp.in);
    s.avail_in = 0;

    std::vector<uint8_t> out(static_cast<size_t>(end - begin));
    std::vector<uint8_t> scratch(1 << 16);
    uint64_t pos = cp.out;
    while (pos < end) {
        feed(s, data_, size_);
        if (pos < begin) {
            s.next_out = scratch.data();
            s.avail_out = static_cast<uInt>(std::min<uint64_t>(scratch.size(), begin - pos));
        } else {
            s.next_out = out.data() + (pos - begin);
            s.avail_out = static_cast<uInt>(std::min<uint64_t>(end - pos, kMaxChunk));
        }
        const uInt before = s.avail_out;
        const int ret = inflate(&s, Z_NO_FLUSH);
        pos += before - s.avail_out;
        if (ret == Z_STREAM_END) {
            size_t p = static_cast<size_t>(s.next_in - data_);
            if (raw) p = std::min(p + 8, size_);  // skip the gzip trailer
            if (p + 2 <= size_ && data_[p] == 0x1f && data_[p + 1] == 0x8b) {
                inflateEnd(&s);
                s = z_stream{};
                if (inflateInit2(&s, 47) != Z_OK) throw std::bad_alloc();
                raw = false;
                s.next_in = const_cast<Bytef*>(data_ + p);
                s.avail_in = 0;
                continue;
            }
            break;
        }
        if (ret != Z_OK) break;
    }
    if (pos < end) out.resize(pos > begin ? static_cast<size_t>(pos - begin) : 0);
    return out;
}

std::vector<uint8_t> ArchiveReader::readSequential(size_t i) const {
    ArchivePtr a(archive_read_new());
    if (!a) throw std::bad_alloc();
    archive_read_support_format_tar(a.get());
    archive_read_support_filter_all(a.get());
    if (archive_read_open_memory(a.get(), data_, size_) != ARCHIVE_OK) damaged(i, errorOf(a.get()));
    for (uint64_t k = 0;; ++k) {
        archive_entry* e = nullptr;
        if (!headerOk(archive_read_next_header(a.get(), &e))) damaged(i, errorOf(a.get()));
        if (k == locations_[i].ordinal) return readCurrent(a.get(), i);
    }
}

std::vector<uint8_t> ArchiveReader::read(size_t i) const {
    entry(i);  // range check
    const Location& loc = locations_[i];
    if (!loc.intact) damaged(i, "its data is cut short");
    switch (format_) {
        case Format::Zip:
        case Format::Tar:
            // The slice runs to the end of the file, not just to the next header: a zip entry
            // stored with its sizes after the data is found by scanning ahead for the descriptor.
            // libarchive reads only the first entry's header and data from it.
            if (loc.begin >= size_) damaged(i, "bad offset");
            return readFirst(i, data_ + loc.begin, size_ - static_cast<size_t>(loc.begin));
        case Format::TarGzip: {
            const std::vector<uint8_t> slice = inflateRange(loc.begin, loc.end);
            if (slice.size() != loc.end - loc.begin) damaged(i, "gzip stream ends inside it");
            return readFirst(i, slice.data(), slice.size());
        }
        case Format::CompressedTar:
            return readSequential(i);
    }
    return {};
}

std::string ArchiveReader::readText(const std::string& name) const {
    const size_t i = find(name);
    if (i == npos) throw DataError(path_ + ": no entry named '" + name + "'; check the archive holds the MSLS layout");
    const std::vector<uint8_t> bytes = read(i);
    return std::string(bytes.begin(), bytes.end());
}

}  // namespace streetgan
