// RunStatus::list for a caller that lists the same folder again and again (the app's runs list,
// every few seconds): per run it keeps what it has read (RunReadProgress), so a refresh reads only
// the bytes each events.jsonl gained since, plus the trainer locks. A run whose file was replaced
// or cut is read afresh; runs that disappeared are forgotten.
// Not thread-safe: one owner thread (the app's LocalRunLister worker).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/follow/RunStatus.h"

namespace streetgan {

class RunStatusCache {
public:
    /// The same runs, in the same order and with the same contents, as RunStatus::list(root).
    std::vector<RunInfo> list(const std::string& root);
    /// Bytes of events.jsonl files the last list() read (tests, benchmarks).
    uint64_t lastBytesRead() const { return lastBytesRead_; }

private:
    struct Entry {
        RunInfo info;
        RunReadProgress progress;
    };
    std::map<std::string, Entry> runs_;
    uint64_t lastBytesRead_ = 0;
};

}  // namespace streetgan
