// ArchiveReader's listing pass (see ArchiveReader.h): libarchive walks the headers of a zip or
// tar (any filter) once; for tar.gz the gzip stream is inflated once through GzipPass, which
// saves the access points read() later starts from.
#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "base/dataset/ArchiveReader.h"
#include "base/dataset/ArchiveReaderDetail.h"
#include "base/dataset/DatasetNames.h"
#include "base/util/Errors.h"

namespace streetgan {

using namespace archive_detail;

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
                if ((s.data_type & 128) && !(s.data_type & 64) && (checkpoints->empty() || totOut - last >= kSpan)) addCheckpoint(false);
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

    static la_ssize_t readCallback(archive*, void* self, const void** buf) { return static_cast<la_ssize_t>(static_cast<GzipPass*>(self)->next(buf)); }
};

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
                throw DataError(path_ + ": not a zip or tar archive (" + errorOf(a) + "); point the data source at an MSLS batch (.zip, .tar or .tar.gz)");
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
                throw DataError(path_ + ": unsupported archive format '" + archive_format_name(a) + "'; use a .zip, .tar or .tar.gz batch");
        }
        const uint64_t headerOrdinal = ordinal++;
        if (!isRegular(e)) {
            // Folders are structure; anything else is counted with its reason, never followed.
            const auto type = archive_entry_filetype(e);
            if (type != AE_IFDIR) {
                const char* name = archive_entry_pathname(e);
                if (!name) name = archive_entry_pathname_utf8(e);
                const bool link = type == AE_IFLNK || archive_entry_hardlink(e) != nullptr;
                skipped_.emplace_back(name ? name : "", link ? dataset_names::kArchiveLink : dataset_names::kNotRegular);
            }
            continue;
        }

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
        throw DataError(path_ + ": not a zip or tar archive (" + errorOf(a.get()) + "); point the data source at an MSLS batch (.zip, .tar or .tar.gz)");
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
    while (pass.next(&buf) != 0) {}  // drain the padding after the tar end to learn whether the gzip stream is complete
    streamEnd_ = pass.totOut;
    if (!pass.complete) truncated_ = true;
    for (auto& loc : locations_) {
        loc.end = std::min(loc.end, streamEnd_);
        if (loc.end <= loc.begin) loc.intact = false;
    }
}

}  // namespace streetgan
