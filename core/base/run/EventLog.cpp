#include "base/run/EventLog.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <nlohmann/json.hpp>

#include "base/util/Errors.h"

namespace streetgan {

EventLog::EventLog(const std::string& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "a+e");
    if (!file_) throw IoError("cannot open event log '" + path + "': " + std::strerror(errno));
    // A trainer that died mid-write left a torn last line: end it, so that the next event starts
    // a line of its own and readers skip just the fragment.
    struct stat st;
    if (::fstat(fileno(file_), &st) == 0 && st.st_size > 0) {
        char last = '\n';
        if (::pread(fileno(file_), &last, 1, st.st_size - 1) == 1 && last != '\n') {
            std::fputc('\n', file_);
            std::fflush(file_);
        }
    }
}

EventLog::~EventLog() {
    if (file_) std::fclose(file_);
}

double EventLog::now() {
    using namespace std::chrono;
    return duration_cast<duration<double>>(system_clock::now().time_since_epoch()).count();
}

void EventLog::append(const Event& event, bool durable) { append(toJson(event), durable); }

void EventLog::append(nlohmann::json event, bool durable) {
    if (!event.contains(EventField::kT)) event[EventField::kT] = now();
    std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line.push_back('\n');
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
        throw IoError("cannot append to event log '" + path_ + "': " + std::strerror(errno));
    if (durable) ::fsync(fileno(file_));
}

}  // namespace streetgan
