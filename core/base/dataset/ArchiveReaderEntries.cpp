// ArchiveReader's reading of one entry: the zip fast path (libdeflate on the local header's
// data), libarchive on the entry's slice (zip, tar, and tar.gz from the nearest access point),
// and the sequential fallback for other compressed tars.
#include <archive.h>
#include <archive_entry.h>
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/dataset/ArchiveReader.h"
#include "base/dataset/ArchiveReaderDetail.h"
#include "base/util/Errors.h"

namespace streetgan {

using namespace archive_detail;

// ---------------------------------------------------------------------------------------------
// Reading

std::vector<uint8_t> ArchiveReader::readCurrent(archive* a, size_t i) const {
    // The size is the one the header declares, which a damaged or hostile archive sets at will
    // (up to 16 EiB in a zip64 or tar header, from a few bytes of data): `out` grows as data
    // arrives instead of being allocated at that size up front; the reserve covers a real entry
    // (an image, a CSV) in one allocation.
    constexpr uint64_t kMaxReserve = uint64_t(64) << 20;
    constexpr uint64_t kFirstRoom = uint64_t(256) << 10;
    const uint64_t expect = entries_[i].size;
    std::vector<uint8_t> out;
    out.reserve(static_cast<size_t>(std::min(expect, kMaxReserve)));
    size_t got = 0;
    for (;;) {
        if (got == out.size()) {
            // Room up to the declared size, at most what has arrived so far (256 KiB at first):
            // a header declaring far more than its data costs at most twice the data in zeroed
            // memory; at the declared size, a little to see whether more arrives.
            const uint64_t room = got < expect ? std::min<uint64_t>(expect - got, std::max<uint64_t>(got, kFirstRoom)) : 4096;
            out.resize(got + static_cast<size_t>(room));
        }
        const la_ssize_t n = archive_read_data(a, out.data() + got, out.size() - got);  // 0 at the end (zip CRC checked there)
        if (n == 0) break;
        if (n < 0) damaged(i, errorOf(a));
        got += static_cast<size_t>(n);
        if (got > expect) damaged(i, "holds more than the " + std::to_string(expect) + " bytes its header declares");
    }
    if (got != expect) damaged(i, "holds " + std::to_string(got) + " bytes, the header says " + std::to_string(expect));
    out.resize(got);
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
    // Checked before allocating the declared size: a header can declare 4 GiB over a few bytes.
    if (method == 0 && csize != usize) return false;
    if (method == 8 && usize > uint64_t(csize) * 1032 + 1024)  // deflate expands at most 1032:1
        damaged(i, "declares " + std::to_string(usize) + " bytes from " + std::to_string(csize) + " compressed bytes");
    out.resize(usize);
    if (method == 0) {
        if (usize > 0) std::memcpy(out.data(), data + start, usize);  // an empty vector's data() may be null
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
    auto it = std::upper_bound(checkpoints_.begin(), checkpoints_.end(), begin, [](uint64_t v, const Checkpoint& c) { return v < c.out; });
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

}  // namespace streetgan
