#include "base/follow/RunRecordCache.h"

#include <cstddef>
#include <utility>

#include "base/util/Errors.h"

namespace streetgan {

std::vector<RunRecord> RunRecordCache::list(const std::string& root, const Batch& batch, std::chrono::milliseconds every) {
    std::map<std::string, Entry> kept;
    std::vector<RunRecord> out;
    lastBytesRead_ = 0;
    auto due = std::chrono::steady_clock::now() + every;
    size_t handedOut = 0;
    for (const std::string& d : RunStatus::runDirectories(root)) {
        if (batch && std::chrono::steady_clock::now() >= due && out.size() > handedOut) {
            batch(std::vector<RunRecord>(out.begin() + static_cast<std::ptrdiff_t>(handedOut), out.end()));
            handedOut = out.size();
            due = std::chrono::steady_clock::now() + every;
        }
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

std::vector<RunRecord> RunRecordCache::listTensorBoard(EventFileSource& files, const std::string& root) {
    std::map<std::string, Entry> kept;
    std::vector<RunRecord> out;
    lastBytesRead_ = 0;
    for (const RunInfo& found : RunStatus::listTensorBoard(files, root)) {
        Entry e;
        if (auto it = runs_.find(found.path); it != runs_.end()) e = std::move(it->second);
        try {
            RunRecordReader::readTensorBoardMore(files, found.path, e.record, e.progress);
        } catch (const IoError& err) {
            e = Entry();  // read afresh next time
            e.record.info = found;
            e.record.kind = "tensorboard";
            e.record.problems.emplace_back(err.what());
        }
        e.record.info.name = found.name;
        lastBytesRead_ += e.progress.bytesRead;
        out.push_back(e.record);
        kept.emplace(found.path, std::move(e));
    }
    runs_ = std::move(kept);
    return out;
}

}  // namespace streetgan
