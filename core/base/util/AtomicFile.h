// Crash- and full-disk-safe file replacement: write to a temp file in the same directory, fsync,
// rename over the target, fsync the directory. On any failure the temp file is removed, the
// previous file (if any) is left untouched, and IoError names the path and the reason.
// A full disk (ENOSPC) and a file-size limit (EFBIG: RLIMIT_FSIZE, `ulimit -f`) both read "the
// disk is full" (kDiskFull) with what to do; SIGXFSZ is ignored so that the limit is an error,
// not a kill. Thread-safe: static functions, no shared state but a counter.
#pragma once

#include <cstddef>
#include <string>

namespace streetgan {

class AtomicFile {
public:
    /// The words every full-disk error message contains (callers add their own advice to it).
    static constexpr const char* kDiskFull = "the disk is full";

    static void write(const std::string& path, const void* data, size_t size);
    static void write(const std::string& path, const std::string& data) { write(path, data.data(), data.size()); }
    /// Reads a whole file; throws IoError naming the path when it cannot.
    static std::string read(const std::string& path);
    /// Deletes the temporary files (NAME.tmp.<pid>.<n>) that writes killed mid-way (kill -9, power
    /// loss) left in `dir`, each as large as what it was writing; returns how many. Only while no
    /// other process writes in `dir` (a trainer holds its run's lock). A missing `dir` is none.
    static int removeStaleTemporaries(const std::string& dir);
    /// The reason of an errno for a message: "the disk is full: free some space and retry" for
    /// ENOSPC/EDQUOT/EFBIG, advice for permissions, strerror otherwise.
    static std::string describeError(int err);
    /// Ignores SIGXFSZ (once per process), so that writing past RLIMIT_FSIZE fails with EFBIG
    /// instead of killing the process. Every writer of run files calls it before writing.
    static void ignoreFileSizeSignal();
};

}  // namespace streetgan
