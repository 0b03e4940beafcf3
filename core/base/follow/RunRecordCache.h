// RunRecordReader::list for a caller that lists the same folder again and again (`ls --table`
// run by a benchmark, the app's Runs table): per run it keeps the reader's Progress, so a refresh
// folds only what each run's files gained since, plus RunStatus's lock checks. A run whose files
// were replaced or cut is read afresh; runs that disappeared are forgotten.
// Not thread-safe: one owner thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/follow/RunRecordReader.h"

namespace streetgan {

class RunRecordCache {
public:
    /// The records read since the last call, handed out while a listing is still reading.
    using Batch = std::function<void(const std::vector<RunRecord>& records)>;
    /// The same records, in the same order and with the same contents, as RunRecordReader::list(root).
    /// With `batch`, the records read so far are also handed out every `every` while reading
    /// (the first listing of a thousand runs takes seconds: a table shows them as they come);
    /// a listing faster than `every` hands out nothing.
    std::vector<RunRecord> list(const std::string& root, const Batch& batch = {}, std::chrono::milliseconds every = std::chrono::milliseconds(100));
    /// The TensorBoard runs under `root` read through `files` (a host without our trainer, over
    /// SFTP), found and named as RunStatus::listTensorBoard does, each read as list() reads a
    /// TensorBoard run and as incrementally. A run that cannot be read (IoError: removed while
    /// listed, unreadable) is kept with the error in its problems; the source's other errors (a
    /// lost connection) pass through. Don't mix roots of two sources in one cache.
    std::vector<RunRecord> listTensorBoard(EventFileSource& files, const std::string& root);
    /// Bytes of event files (events.jsonl, TensorBoard files) the last list() folded in.
    uint64_t lastBytesRead() const { return lastBytesRead_; }

private:
    struct Entry {
        RunRecord record;
        RunRecordReader::Progress progress;
    };
    std::map<std::string, Entry> runs_;
    uint64_t lastBytesRead_ = 0;
};

}  // namespace streetgan
