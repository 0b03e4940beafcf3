// Crash- and full-disk-safe file replacement: write to a temp file in the same directory, fsync,
// rename over the target, fsync the directory. On any failure the temp file is removed, the
// previous file (if any) is left untouched, and IoError names the path and the reason.
#pragma once

#include <cstddef>
#include <string>

namespace streetgan {

class AtomicFile {
public:
    static void write(const std::string& path, const void* data, size_t size);
    static void write(const std::string& path, const std::string& data) { write(path, data.data(), data.size()); }
    /// Reads a whole file; throws IoError naming the path when it cannot.
    static std::string read(const std::string& path);
    /// Deletes the temporary files (NAME.tmp.<pid>.<n>) that writes killed mid-way (kill -9, power
    /// loss) left in `dir`, each as large as what it was writing; returns how many. Only while no
    /// other process writes in `dir` (a trainer holds its run's lock). A missing `dir` is none.
    static int removeStaleTemporaries(const std::string& dir);
};

}  // namespace streetgan
