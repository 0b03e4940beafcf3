// ArchiveReader, split by concern: this file maps the archive, takes the listing from the index
// cache or a listing pass, and dispatches read() by format. Listing: ArchiveReaderListing.cpp;
// the .sgindex cache: ArchiveReaderIndexCache.cpp; reading one entry: ArchiveReaderEntries.cpp;
// other compressed tars: ArchiveReaderLibarchive.cpp, or ArchiveReaderNoLibarchive.cpp in a build
// without libarchive.
#include "base/dataset/ArchiveReader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/dataset/ArchiveIndex.h"
#include "base/dataset/ZipFormat.h"
#include "base/util/Errors.h"

namespace streetgan {

ArchiveReader::ArchiveReader(const std::string& path, IndexCache cache) : path_(path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw IoError(path + ": cannot open archive (" + std::strerror(errno) + "); check the path and its permissions");
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
            list();
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
        case Format::Zip:
            return "zip";
        case Format::Tar:
            return "tar";
        case Format::TarGzip:
            return "tar.gz";
        case Format::CompressedTar:
            return "compressed tar";
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
    throw DataError(path_ + ": entry '" + entries_[i].name + "' is damaged (" + why + "); the archive is truncated or corrupt, re-download it");
}

std::vector<uint8_t> ArchiveReader::read(size_t i) const {
    entry(i);  // range check
    const Location& loc = locations_[i];
    if (!loc.intact) damaged(i, "its data is cut short");
    switch (format_) {
        case Format::Zip: {
            ArchiveIndex::Entry e;
            e.name = entries_[i].name;
            e.size = entries_[i].size;
            e.offset = loc.begin;
            e.compressedSize = loc.compressedSize;
            e.headerHint = loc.headerHint;
            e.crc = loc.crc;
            e.method = loc.method;
            e.flags = loc.flags;
            return ZipFormat::read(e, std::string_view(reinterpret_cast<const char*>(data_), size_), path_);
        }
        case Format::Tar:
        case Format::TarGzip:
            return readTar(i);
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
