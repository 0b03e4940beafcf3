#include "base/follow/RunRecordCache.h"

#include <utility>

namespace streetgan {

std::vector<RunRecord> RunRecordCache::list(const std::string& root) {
    std::map<std::string, Entry> kept;
    std::vector<RunRecord> out;
    lastBytesRead_ = 0;
    for (const std::string& d : RunStatus::runDirectories(root)) {
        Entry e;
        if (auto it = runs_.find(d); it != runs_.end()) e = std::move(it->second);
        RunRecordReader::readMore(d, e.record, e.progress);
        e.record.info.name = RunStatus::listedName(root, d, e.record.info);
        lastBytesRead_ += e.progress.bytesRead;
        out.push_back(e.record);
        kept.emplace(d, std::move(e));
    }
    runs_ = std::move(kept);
    return out;
}

}  // namespace streetgan
