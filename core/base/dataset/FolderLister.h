// Internal to DatasetIndex: the folder walk behind DatasetIndex::scanFolder. Lists the image-named
// and sequence CSV files below a root with their sizes (directory symlinks are not followed,
// hidden folders are not entered, FIFOs and devices are never opened), counting what it skips by
// reason (DatasetIndex.h lists them); and reads CSV text below the root.
// Thread contract: reentrant (no shared state); the reader may be called from any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/dataset/DatasetIndex.h"

namespace streetgan {

class FolderLister {
public:
    /// Appends the relevant files below `absRoot` (absolute, normalised) to `files` (with size
    /// and mtime) and the skip counts to `skipped`, and, when `skippedFiles` is given, the skipped
    /// paths (relative to the root) by reason. Throws IoError naming `root` (the path as given)
    /// when the root itself cannot be listed; problems below it are only counted. One stat per file.
    static void list(const std::filesystem::path& absRoot, const std::string& root, std::vector<DatasetIndex::ListedFile>& files,
                     std::map<std::string, int64_t>& skipped, DatasetIndex::SkippedFiles* skippedFiles = nullptr);

    /// Reads a regular file below `absRoot` (path relative to it, may start with "../"); nullopt
    /// when it is missing, unreadable or larger than 512 MiB.
    static DatasetIndex::TextReader textReader(const std::filesystem::path& absRoot);
};

}  // namespace streetgan
