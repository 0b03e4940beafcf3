// ArchiveReader's compressed tars other than tar.gz (bzip2, xz, zstd, ...), in a build with
// libarchive (STREETGAN_WITH_LIBARCHIVE; ArchiveReaderNoLibarchive.cpp refuses them otherwise):
// libarchive lists the headers once; read(i) decompresses from the start to entry i (slow: such
// archives are for a look, tar.gz or zip for training). Zip, tar and tar.gz never come here.
#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "base/dataset/ArchiveReader.h"
#include "base/dataset/DatasetNames.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {

struct ArchiveFree {
    void operator()(archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveFree>;

std::string errorOf(archive* a) {
    const char* e = archive_error_string(a);
    return e ? e : "unknown libarchive error";
}

bool isRegular(archive_entry* e) { return archive_entry_filetype(e) == AE_IFREG && archive_entry_hardlink(e) == nullptr; }

bool headerOk(int r) { return r == ARCHIVE_OK || r == ARCHIVE_WARN; }

ArchivePtr openTar(const uint8_t* data, size_t size) {
    ArchivePtr a(archive_read_new());
    if (!a) throw std::bad_alloc();
    archive_read_support_format_tar(a.get());
    archive_read_support_filter_all(a.get());
    if (archive_read_open_memory(a.get(), data, size) != ARCHIVE_OK) return nullptr;
    return a;
}

}  // namespace

void ArchiveReader::listCompressed(const std::string& filter, const std::string&) {
    format_ = Format::CompressedTar;
    ArchivePtr a = openTar(data_, size_);
    if (!a) throw DataError(path_ + ": not a " + filter + "-compressed tar; point the data source at an MSLS batch (.zip, .tar or .tar.gz)");
    listEntries(a.get());
}

void ArchiveReader::listEntries(archive* a) {
    uint64_t ordinal = 0;
    for (bool first = true;; first = false) {
        archive_entry* e = nullptr;
        const int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF) break;
        if (!headerOk(r)) {
            if (first)
                throw DataError(path_ + ": not a zip or tar archive (" + errorOf(a) + "); point the data source at an MSLS batch (.zip, .tar or .tar.gz)");
            truncated_ = true;
            break;
        }
        if (first && (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) != ARCHIVE_FORMAT_TAR)
            throw DataError(path_ + ": a compressed '" + archive_format_name(a) + "' archive, not a tar; use a .zip, .tar or .tar.gz batch");
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
        en.size = archive_entry_size_is_set(e) ? static_cast<uint64_t>(archive_entry_size(e)) : 0;
        loc.intact = archive_read_data_skip(a) == ARCHIVE_OK;
        entries_.push_back(std::move(en));
        locations_.push_back(loc);
        if (!loc.intact) {
            truncated_ = true;
            break;
        }
    }
}

std::vector<uint8_t> ArchiveReader::readCurrent(archive* a, size_t i) const {
    // The size is the one the header declares, which a damaged or hostile archive sets at will:
    // `out` grows as data arrives instead of being allocated at that size up front; the reserve
    // covers a real entry (an image, a CSV) in one allocation.
    constexpr uint64_t kMaxReserve = uint64_t(64) << 20;
    constexpr uint64_t kFirstRoom = uint64_t(256) << 10;
    const uint64_t expect = entries_[i].size;
    std::vector<uint8_t> out;
    out.reserve(static_cast<size_t>(std::min(expect, kMaxReserve)));
    size_t got = 0;
    for (;;) {
        if (got == out.size()) {
            // Room up to the declared size, at most what has arrived so far (256 KiB at first);
            // at the declared size, a little to see whether more arrives.
            const uint64_t room = got < expect ? std::min<uint64_t>(expect - got, std::max<uint64_t>(got, kFirstRoom)) : 4096;
            out.resize(got + static_cast<size_t>(room));
        }
        const la_ssize_t n = archive_read_data(a, out.data() + got, out.size() - got);
        if (n == 0) break;
        if (n < 0) damaged(i, errorOf(a));
        got += static_cast<size_t>(n);
        if (got > expect) damaged(i, "holds more than the " + std::to_string(expect) + " bytes its header declares");
    }
    if (got != expect) damaged(i, "holds " + std::to_string(got) + " bytes, the header says " + std::to_string(expect));
    out.resize(got);
    return out;
}

std::vector<uint8_t> ArchiveReader::readSequential(size_t i) const {
    ArchivePtr a = openTar(data_, size_);
    if (!a) damaged(i, "libarchive cannot open it");
    for (uint64_t k = 0;; ++k) {
        archive_entry* e = nullptr;
        if (!headerOk(archive_read_next_header(a.get(), &e))) damaged(i, errorOf(a.get()));
        if (k == locations_[i].ordinal) return readCurrent(a.get(), i);
    }
}

}  // namespace streetgan
