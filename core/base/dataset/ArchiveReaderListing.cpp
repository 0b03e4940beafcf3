// ArchiveReader's listing pass (see ArchiveReader.h): the format from the first bytes, then the
// zip or tar parser (ZipFormat, TarFormat) over the mapped file; for tar.gz the gzip stream is
// inflated once through GzipPass, which feeds the tar walk and saves the access points read()
// later starts from.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/dataset/ArchiveFormatDetail.h"
#include "base/dataset/ArchiveIndex.h"
#include "base/dataset/ArchiveReader.h"
#include "base/dataset/ArchiveReaderDetail.h"
#include "base/dataset/TarFormat.h"
#include "base/dataset/ZipFormat.h"
#include "base/util/Errors.h"

namespace streetgan {

using namespace archive_detail;

// ---------------------------------------------------------------------------------------------
// tar.gz listing pass: inflates the whole gzip stream once (handing the output to the tar walk
// through fetch()) and saves an access point every kSpan bytes of output.

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

    // The output as a RangeCursor fetch for the tar walk, which only moves forward: what lies
    // before the asked offset is dropped, a skipped entry's bytes are inflated and discarded.
    std::string pending;     // output not yet dropped
    uint64_t pendingAt = 0;  // its offset in the stream

    std::string fetch(uint64_t offset, uint64_t length) {
        if (offset < pendingAt) return {};  // behind the walk: never asked
        if (offset - pendingAt <= pending.size()) {
            pending.erase(0, static_cast<size_t>(offset - pendingAt));
        } else {
            uint64_t pos = pendingAt + pending.size();
            pending.clear();
            const void* buf = nullptr;
            while (pos < offset) {
                const size_t n = next(&buf);
                if (n == 0) break;
                if (pos + n > offset) pending.assign(static_cast<const char*>(buf) + (offset - pos), static_cast<size_t>(pos + n - offset));
                pos = std::min<uint64_t>(pos + n, offset);
            }
            if (pos < offset) {
                pendingAt = pos;
                return {};
            }
        }
        pendingAt = offset;
        const void* buf = nullptr;
        while (pending.size() < length) {
            const size_t n = next(&buf);
            if (n == 0) break;
            pending.append(static_cast<const char*>(buf), n);
        }
        return pending.substr(0, static_cast<size_t>(std::min<uint64_t>(length, pending.size())));
    }
};

namespace {

/// Filters libarchive reads and we do not (tar.gz is ours): magic, name, the command that
/// decompresses it to stdout.
struct Filter {
    std::string_view magic;
    const char* name;
    const char* tool;
};
const Filter kFilters[] = {{std::string_view("BZh", 3), "bzip2", "bzip2 -dc"},
                           {std::string_view("\xFD"
                                             "7zXZ\0",
                                             6),
                            "xz", "xz -dc"},
                           {std::string_view("\x28\xB5\x2F\xFD", 4), "zstd", "zstd -dc"},
                           {std::string_view("\x5D\0\0", 3), "lzma", "xz -dc"},
                           {std::string_view("LZIP", 4), "lzip", "lzip -dc"},
                           {std::string_view("\x04\x22\x4D\x18", 4), "lz4", "lz4 -dc"},
                           {std::string_view("\x89LZO", 4), "lzop", "lzop -dc"},
                           {std::string_view("\x1F\x9D", 2), "compress", "gzip -dc"}};

// The walks' read-ahead block: here every block is a copy (of mapped or inflated bytes), not a
// request, so a small one; S3's 1 MiB made listing a tar of 300 KB entries 10x slower.
constexpr uint64_t kReadAhead = uint64_t(16) << 10;

RangeCursor::Fetch mappedFetch(const uint8_t* data, size_t size) {
    return [data, size](uint64_t offset, uint64_t length) {
        if (offset >= size) return std::string();
        return std::string(reinterpret_cast<const char*>(data) + offset, static_cast<size_t>(std::min<uint64_t>(length, size - offset)));
    };
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Listing

void ArchiveReader::list() {
    const std::string_view head(reinterpret_cast<const char*>(data_), std::min<size_t>(size_, 512));
    const auto startsWith = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
    if (startsWith("\x1F\x8B")) return listGzip();
    if (startsWith("PK\3\4") || startsWith("PK\5\6") || startsWith("PK\7\10")) return listZip();
    if (head.size() == 512 && (TarFormat::isHeader(std::string(head)) || std::all_of(head.begin(), head.end(), [](char c) { return c == 0; })))
        return listTar();
    for (const Filter& f : kFilters)
        if (startsWith(f.magic)) return listCompressed(f.name, f.tool);
    archive_format::notAnArchive(path_, "neither a zip, a tar nor a compressed tar header at its start");
}

void ArchiveReader::takeIndex(ArchiveIndex&& index) {
    truncated_ = index.truncated;
    skipped_ = std::move(index.skipped);
    entries_.reserve(index.entries.size());
    locations_.reserve(index.entries.size());
    for (ArchiveIndex::Entry& e : index.entries) {
        Location loc;
        loc.begin = e.offset;
        loc.end = e.offset + e.compressedSize;  // tar: the data; zip: unused
        loc.compressedSize = e.compressedSize;
        loc.headerHint = e.headerHint;
        loc.crc = e.crc;
        loc.method = e.method;
        loc.flags = e.flags;
        loc.intact = e.intact;
        entries_.push_back(Entry{std::move(e.name), e.size});
        locations_.push_back(loc);
    }
}

void ArchiveReader::listZip() {
    format_ = Format::Zip;
    takeIndex(ZipFormat::list(mappedFetch(data_, size_), size_, path_, kReadAhead));
}

void ArchiveReader::listTar() {
    format_ = Format::Tar;
    takeIndex(TarFormat::list(mappedFetch(data_, size_), size_, path_, kReadAhead));
}

void ArchiveReader::listGzip() {
    format_ = Format::TarGzip;
    GzipPass pass(data_, size_, &checkpoints_);
    ArchiveIndex index =
        TarFormat::list([&pass](uint64_t offset, uint64_t length) { return pass.fetch(offset, length); }, TarFormat::kUnknownSize, path_, kReadAhead);
    const void* buf = nullptr;
    while (pass.next(&buf) != 0) {}  // drain the padding after the tar end to learn whether the gzip stream is complete
    streamEnd_ = pass.totOut;
    // The walk did not know the stream's length: the entry it ends in is cut short.
    for (size_t k = 0; k < index.entries.size(); ++k) {
        ArchiveIndex::Entry& e = index.entries[k];
        if (e.offset <= streamEnd_ && e.compressedSize <= streamEnd_ - e.offset) continue;
        e.intact = false;
        index.entries.resize(k + 1);
        index.truncated = true;
        break;
    }
    if (!pass.complete) index.truncated = true;
    takeIndex(std::move(index));
}

}  // namespace streetgan
