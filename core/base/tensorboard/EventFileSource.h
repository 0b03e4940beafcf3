// Where a TensorBoard run's files are read from: this machine (LocalEventFiles) or a host over
// SFTP (SftpEventFiles). TensorBoardFollower reads through it, so the follow of a run is one
// code path wherever the run lies.
//
// Thread contract: one thread per object. Errors: IoError naming the path.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace streetgan {

class EventFileSource {
public:
    struct Entry {
        std::string name;  ///< the entry's name in its folder
        uint64_t size = 0;
        bool folder = false;
        int64_t mtime = 0;  ///< modification time, seconds since the epoch
    };

    virtual ~EventFileSource() = default;
    /// The entries of `folder` (not "." or ".."), in no order. IoError when it cannot be read.
    virtual std::vector<Entry> list(const std::string& folder) = 0;
    /// Up to `maxBytes` of `path` from `offset` (fewer at its end, none past it). IoError when
    /// it cannot be read.
    virtual std::string read(const std::string& path, uint64_t offset, std::size_t maxBytes) = 0;
    /// Blocks until something in `folder` may have changed (a write, a new file) or `timeout`
    /// passes; a source that cannot be told of changes just waits.
    virtual void wait(const std::string& folder, std::chrono::milliseconds timeout) = 0;
};

}  // namespace streetgan
