#include "base/dataset/PackRegistry.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "base/util/Paths.h"

namespace streetgan {

namespace fs = std::filesystem;

PackRegistry::PackRegistry(std::string file) : file_(std::move(file)) {}

std::string PackRegistry::defaultFile() { return Paths::cacheDir("packs") + "/registry.jsonl"; }

std::string PackRegistry::defaultDir(const std::string& fingerprint) { return Paths::cacheDir("packs") + "/" + fingerprint; }

std::string PackRegistry::sourceKey(const std::string& spec, const std::string& s3Endpoint) {
    if (spec.rfind("s3://", 0) == 0) return s3Endpoint.empty() ? spec : spec + " at " + s3Endpoint;
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(spec, ec), ec);
    if (ec) p = fs::absolute(spec).lexically_normal();
    std::string s = p.string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

bool PackRegistry::add(Entry entry) const {
    if (entry.t == 0) entry.t = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const nlohmann::json j = {{"dir", entry.dir},
                              {"source", entry.source},
                              {"fingerprint", entry.fingerprint},
                              {"shard_bytes", entry.shardBytes},
                              {"size", entry.size},
                              {"images", entry.images},
                              {"t", entry.t}};
    const std::string line = j.dump() + "\n";
    std::error_code ec;
    fs::create_directories(fs::path(file_).parent_path(), ec);
    const int fd = ::open(file_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    // One write: O_APPEND keeps a whole line whole against another process appending at once.
    const ssize_t n = ::write(fd, line.data(), line.size());
    ::close(fd);
    return n == static_cast<ssize_t>(line.size());
}

std::vector<PackRegistry::Entry> PackRegistry::forSource(const std::string& source) const {
    std::vector<Entry> all;
    std::ifstream in(file_);
    std::string line;
    while (std::getline(in, line)) {
        const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_object()) continue;  // a line cut by a crash
        try {
            if (j.at("source").get<std::string>() != source) continue;
            Entry e;
            e.dir = j.at("dir").get<std::string>();
            e.source = source;
            e.fingerprint = j.at("fingerprint").get<std::string>();
            e.shardBytes = j.at("shard_bytes").get<int64_t>();
            e.size = j.at("size").get<int>();
            e.images = j.at("images").get<int64_t>();
            e.t = j.at("t").get<double>();
            all.push_back(std::move(e));
        } catch (const nlohmann::json::exception&) {
            continue;  // a line of another shape: skipped, as a cut one
        }
    }
    std::vector<Entry> out;
    std::set<std::string> seen;
    for (auto it = all.rbegin(); it != all.rend(); ++it)
        if (seen.insert(it->dir).second) out.push_back(std::move(*it));
    return out;
}

}  // namespace streetgan
