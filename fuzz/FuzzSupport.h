// Helpers shared by the fuzz targets (fuzz/<name>_fuzzer.cpp): a per-process scratch folder for
// the parsers that read files rather than bytes, and line splitting. Header-only so that a
// target stays one .cpp linked either with libFuzzer (STREETGAN_FUZZ) or with ReplayMain.cpp.
// Thread contract: the fuzz targets are single-threaded; so are these helpers.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace streetgan::fuzz {

inline const std::string& scratchDir();

inline void removeScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(scratchDir(), ec);
}

/// A folder of this process's own, created on first use (in $TMPDIR, else /dev/shm when it
/// exists: the file-based targets write every input once) and removed at a normal exit (a crash
/// leaves it, with the input that crashed, in the temporary folder).
inline const std::string& scratchDir() {
    static const std::string dir = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string base = tmp && *tmp ? tmp : (::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
        std::string pattern = base + "/streetgan-fuzz-XXXXXX";
        std::vector<char> buf(pattern.begin(), pattern.end());
        buf.push_back('\0');
        if (!::mkdtemp(buf.data())) std::abort();
        return std::string(buf.data());
    }();
    // Registered once `dir` is constructed, so that it runs before `dir` is destroyed.
    static const bool removedAtExit = std::atexit(removeScratchDir) == 0;
    (void)removedAtExit;
    return dir;
}

/// Writes `data` to scratchDir()/name (replacing it) and returns the path.
inline std::string writeScratch(const std::string& name, const uint8_t* data, size_t size) {
    const std::string path = scratchDir() + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) std::abort();  // the scratch folder must work, or every input would test nothing
    return path;
}

/// Lines of `text` without their '\n' (a last line without one included).
inline std::vector<std::string_view> lines(std::string_view text) {
    std::vector<std::string_view> out;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) nl = text.size();
        out.push_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    return out;
}

}  // namespace streetgan::fuzz
