// ArchiveReader's reading of one tar or tar.gz entry: the data copied from the mapped file, or
// inflated from the nearest tar.gz access point before it. (Zip: ZipFormat::read on the mapped
// bytes; other compressed tars: ArchiveReaderLibarchive.cpp.)
#include <zlib.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/dataset/ArchiveReader.h"
#include "base/dataset/ArchiveReaderDetail.h"
#include "base/util/Errors.h"

namespace streetgan {

using namespace archive_detail;

std::vector<uint8_t> ArchiveReader::readTar(size_t i) const {
    const Location& loc = locations_[i];
    if (loc.flags & 1) throw DataError(path_ + ": entry '" + entries_[i].name + "' is a sparse file, which is not read; repack the tar without --sparse");
    // The listing bounded the data by the file's (the stream's) length, so `end - begin` is real.
    if (loc.end < loc.begin) damaged(i, "bad offsets");
    if (format_ == Format::Tar) {
        if (loc.end > size_) damaged(i, "its data is cut short");
        return std::vector<uint8_t>(data_ + loc.begin, data_ + loc.end);
    }
    std::vector<uint8_t> slice = inflateRange(loc.begin, loc.end);
    if (slice.size() != loc.end - loc.begin) damaged(i, "gzip stream ends inside it");
    return slice;
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

}  // namespace streetgan
