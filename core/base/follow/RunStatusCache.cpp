#include "base/follow/RunStatusCache.h"

namespace streetgan {

std::vector<RunInfo> RunStatusCache::list(const std::string& root) {
    const std::vector<std::string> dirs = RunStatus::runDirectories(root);
    std::map<std::string, Entry> kept;
    std::vector<RunInfo> out;
    lastBytesRead_ = 0;
    for (const std::string& d : dirs) {
        Entry e;
        if (auto it = runs_.find(d); it != runs_.end()) e = std::move(it->second);
        const uint64_t before = e.progress.offset;
        const bool fresh = !e.progress.started;
        RunStatus::readMore(d, e.info, e.progress);
        e.info.name = RunStatus::listedName(root, d, e.info);
        // What was read: from the old offset (or the tail's start) to the new one.
        if (e.progress.offset > before || fresh) lastBytesRead_ += e.progress.offset - (fresh ? 0 : before);
        out.push_back(e.info);
        kept.emplace(d, std::move(e));
    }
    runs_ = std::move(kept);
    return out;
}

}  // namespace streetgan
