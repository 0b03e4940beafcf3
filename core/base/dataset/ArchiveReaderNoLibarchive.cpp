// ArchiveReader without libarchive (STREETGAN_WITH_LIBARCHIVE=OFF, the lean trainer): zip, tar and
// tar.gz are read by our own parsers anyway; a tar compressed otherwise (bzip2, xz, zstd, ...) is
// refused in one line saying how to convert it. (ArchiveReaderLibarchive.cpp reads them.)
#include <string>
#include <vector>

#include "base/dataset/ArchiveReader.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {

/// "batch.tar.bz2" -> "batch.tar.gz", "batch.tbz2" -> "batch.tar.gz".
std::string tarGzName(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    const size_t dot = path.find_last_of('.');
    std::string stem = dot != std::string::npos && (slash == std::string::npos || dot > slash) ? path.substr(0, dot) : path;
    if (stem.size() < 4 || stem.compare(stem.size() - 4, 4, ".tar") != 0) stem += ".tar";
    return stem + ".gz";
}

}  // namespace

void ArchiveReader::listCompressed(const std::string& filter, const std::string& tool) {
    throw DataError(path_ + " is a " + filter + "-compressed tar; this streetgan-trainer reads zip, tar and tar.gz: convert it with `" + tool + " '" + path_ +
                    "' | gzip > '" + tarGzName(path_) + "'`");
}

std::vector<uint8_t> ArchiveReader::readSequential(size_t i) const {
    // Only an index cache written by a build with libarchive lists such an archive here.
    throw DataError(path_ + ": entry '" + entries_[i].name +
                    "' lies in a compressed tar other than tar.gz; this streetgan-trainer reads zip, tar and tar.gz: convert it to tar.gz with "
                    "gzip");
}

}  // namespace streetgan
