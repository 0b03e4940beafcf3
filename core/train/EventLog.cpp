#include "train/EventLog.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <nlohmann/json.hpp>

#include "util/Errors.h"

namespace streetgan {

EventLog::EventLog(const std::string& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "ae");
    if (!file_) throw IoError("cannot open event log '" + path + "': " + std::strerror(errno));
}

EventLog::~EventLog() {
    if (file_) std::fclose(file_);
}

double EventLog::now() {
    using namespace std::chrono;
    return duration_cast<duration<double>>(system_clock::now().time_since_epoch()).count();
}

void EventLog::append(nlohmann::json event, bool durable) {
    if (!event.contains("t")) event["t"] = now();
    std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line.push_back('\n');
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
        throw IoError("cannot append to event log '" + path_ + "': " + std::strerror(errno));
    if (durable) ::fsync(fileno(file_));
}

}  // namespace streetgan
