#include "base/follow/EventFollower.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "base/util/Errors.h"

namespace streetgan {

EventFollower::EventFollower(std::string path, int64_t fromOffset) : path_(std::move(path)), offset_(fromOffset) {
    if (fromOffset < 0) throw ConfigError("offset " + std::to_string(fromOffset) + " is negative: use 0 or the end of an event line");
    if (!open()) {
        if (fromOffset != 0) throw ConfigError("offset " + std::to_string(fromOffset) + " is past the end of '" + path_ + "', which does not exist yet: use 0");
        return;
    }
    struct stat st;
    ::fstat(fd_, &st);
    if (fromOffset > st.st_size)
        throw ConfigError("offset " + std::to_string(fromOffset) + " is past the end of '" + path_ + "' (" + std::to_string(st.st_size) +
                          " bytes): use the end offset of the last event received");
    if (fromOffset > 0) {
        char c = 0;
        if (::pread(fd_, &c, 1, fromOffset - 1) != 1 || c != '\n')
            throw ConfigError("offset " + std::to_string(fromOffset) + " is not the end of a line of '" + path_ +
                              "': use the \"end\" of the last event received");
    }
}

EventFollower::~EventFollower() {
    if (fd_ >= 0) ::close(fd_);
    if (inotify_ >= 0) ::close(inotify_);
}

bool EventFollower::open() {
    if (fd_ >= 0) return true;
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return false;
    inotify_ = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (inotify_ >= 0 && ::inotify_add_watch(inotify_, path_.c_str(), IN_MODIFY) < 0) {
        ::close(inotify_);
        inotify_ = -1;  // falls back to polling
    }
    return true;
}

std::vector<EventLine> EventFollower::read(size_t maxBytes) {
    std::vector<EventLine> lines;
    if (!open()) return lines;
    std::string buf;
    int64_t pos = offset_;
    char chunk[65536];
    for (;;) {
        const ssize_t n = ::pread(fd_, chunk, sizeof chunk, pos);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw IoError("cannot read '" + path_ + "': " + std::strerror(errno));
        if (n == 0) break;
        buf.append(chunk, static_cast<size_t>(n));
        pos += n;
        if (buf.size() >= maxBytes) break;
    }
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1) {
        EventLine l;
        l.offset = offset_ + static_cast<int64_t>(start);
        l.end = offset_ + static_cast<int64_t>(nl + 1);
        l.text = buf.substr(start, nl - start);
        lines.push_back(std::move(l));
    }
    offset_ += static_cast<int64_t>(start);
    return lines;
}

void EventFollower::wait(std::chrono::milliseconds timeout) {
    if (inotify_ < 0) {  // no file yet, or no inotify: poll
        std::this_thread::sleep_for(std::min(timeout, std::chrono::milliseconds(50)));
        return;
    }
    pollfd p{inotify_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) > 0) {
        char drain[4096];
        while (::read(inotify_, drain, sizeof drain) > 0) {}
    }
}

}  // namespace streetgan
