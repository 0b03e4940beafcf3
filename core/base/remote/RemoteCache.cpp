#include "base/remote/RemoteCache.h"

#include <cstdlib>
#include <sstream>

#include "base/remote/SshConfig.h"
#include "base/util/Paths.h"

namespace streetgan {

namespace {
std::string safeComponent(const std::string& c) {
    if (c == "..") return "%2E%2E";
    std::string out;
    for (char ch : c) out += (ch == '\0') ? '_' : ch;
    return out;
}
}  // namespace

RemoteCache::RemoteCache(std::string root) : root_(std::move(root)) {
    if (root_.empty()) {
        root_ = Paths::cacheDir("remote");
    }
    while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string RemoteCache::hostKey(const std::string& host, int port) {
    std::string h = safeComponent(host);
    for (char& c : h)
        if (c == '/') c = '_';
    return port == 22 ? h : h + "_" + std::to_string(port);
}

std::string RemoteCache::pathFor(const std::string& hostKey, const std::string& remotePath) const {
    std::string out = root_ + "/" + hostKey + (remotePath.rfind('/', 0) == 0 ? "" : "/~");
    std::stringstream ss(remotePath);
    std::string c;
    while (std::getline(ss, c, '/')) {
        if (c.empty() || c == ".") continue;
        out += "/" + safeComponent(c);
    }
    return out;
}

}  // namespace streetgan
