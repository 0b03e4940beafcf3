#include "base/run/EventLog.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <nlohmann/json.hpp>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

// Offset just after the last newline of the first `size` bytes of `fd` (0 when none).
off_t endOfLastLine(int fd, off_t size) {
    char buf[4096];
    off_t pos = size;
    while (pos > 0) {
        const off_t from = pos > static_cast<off_t>(sizeof buf) ? pos - static_cast<off_t>(sizeof buf) : 0;
        const ssize_t n = ::pread(fd, buf, static_cast<size_t>(pos - from), from);
        if (n <= 0) return size;  // unreadable: leave the file as it is
        for (ssize_t i = n; i > 0; --i)
            if (buf[i - 1] == '\n') return from + i;
        pos = from;
    }
    return 0;
}

}  // namespace

EventLog::EventLog(const std::string& path) : path_(path) {
    AtomicFile::ignoreFileSizeSignal();  // a file-size limit must be an error we report, not a kill
    fd_ = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0) throw IoError("cannot open event log '" + path + "': " + AtomicFile::describeError(errno));
    // A writer that died mid-line left a torn last line: cut it (ending it with a newline would
    // leave a broken line in the middle of the log for every reader to skip).
    struct stat st;
    if (::fstat(fd_, &st) == 0 && st.st_size > 0) {
        const off_t keep = endOfLastLine(fd_, st.st_size);
        if (keep < st.st_size && ::ftruncate(fd_, keep) != 0) {
            const int err = errno;
            ::close(fd_);
            throw IoError("cannot cut the torn last line of event log '" + path + "': " + AtomicFile::describeError(err));
        }
    }
}

EventLog::~EventLog() {
    if (fd_ >= 0) ::close(fd_);
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
    struct stat st;
    const off_t before = ::fstat(fd_, &st) == 0 ? st.st_size : -1;
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int err = n < 0 ? errno : EIO;
            // Part of the line may be in: cut it back, so that the log ends with a whole line.
            if (before >= 0 && left < line.size() && ::ftruncate(fd_, before) != 0) {
                // (cannot happen while we hold the file open for writing; the error below stands)
            }
            throw IoError("cannot append to event log '" + path_ + "': " + AtomicFile::describeError(err));
        }
        p += n;
        left -= static_cast<size_t>(n);
    }
    if (durable) ::fsync(fd_);
}

}  // namespace streetgan
