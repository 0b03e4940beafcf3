#include "base/util/Paths.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "base/util/Errors.h"
#include "base/util/Fnv1a.h"

namespace streetgan {
namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : std::string();
}

std::string join(std::string dir, const std::string& sub) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    return sub.empty() ? dir : dir + "/" + sub;
}

// `xdgVar` when absolute, else home + `homeSuffix`, else a per-user folder in the temp dir.
std::string xdgDir(const char* xdgVar, const char* homeSuffix, const char* fallbackName, const std::string& sub) {
    std::string base = env(xdgVar);
    if (!base.empty() && base.front() == '/') return join(join(base, "streetgan"), sub);
    const std::string home = Paths::homeDir();
    if (!home.empty()) return join(join(home + homeSuffix, "streetgan"), sub);
    return join(join(Paths::tempDir(), std::string(fallbackName) + std::to_string(::getuid())), sub);
}

}  // namespace

std::string Paths::homeDir() {
    if (std::string h = env("HOME"); !h.empty()) return h;
    if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir) return pw->pw_dir;
    return "";
}

std::string Paths::selfExecutable() {
    std::error_code ec;
    std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) throw IoError("cannot find this program's own path in /proc/self/exe (" + ec.message() + "): is /proc mounted?");
    return exe;
}

std::string Paths::tempDir() {
    std::string t = env("TMPDIR");
    return t.empty() ? std::string("/tmp") : join(t, "");
}

std::string Paths::cacheDir(const std::string& sub) { return xdgDir("XDG_CACHE_HOME", "/.cache", "streetgan-cache-", sub); }

std::string Paths::dataDir(const std::string& sub) { return xdgDir("XDG_DATA_HOME", "/.local/share", "streetgan-data-", sub); }

std::string Paths::cacheFileFor(const std::string& sub, const std::string& absPath, const std::string& ext) {
    return cacheDir(sub) + "/" + Fnv1a::hex(absPath) + ext;
}

}  // namespace streetgan
