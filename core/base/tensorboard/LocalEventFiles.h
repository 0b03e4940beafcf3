// EventFileSource on this machine: readdir, pread, and inotify on the run's folder (a record
// appended or a new event file wakes wait() within milliseconds).
#pragma once

#include "base/tensorboard/EventFileSource.h"

namespace streetgan {

class LocalEventFiles : public EventFileSource {
public:
    LocalEventFiles() = default;
    ~LocalEventFiles() override;
    LocalEventFiles(const LocalEventFiles&) = delete;
    LocalEventFiles& operator=(const LocalEventFiles&) = delete;

    std::vector<Entry> list(const std::string& folder) override;
    std::string read(const std::string& path, uint64_t offset, std::size_t maxBytes) override;
    void wait(const std::string& folder, std::chrono::milliseconds timeout) override;

private:
    int inotify_ = -1;
    std::string watched_;
};

}  // namespace streetgan
