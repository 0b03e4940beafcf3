#include "base/tensorboard/LocalEventFiles.h"

#include <dirent.h>
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

LocalEventFiles::~LocalEventFiles() {
    if (inotify_ >= 0) ::close(inotify_);
}

std::vector<EventFileSource::Entry> LocalEventFiles::list(const std::string& folder) {
    DIR* dir = ::opendir(folder.c_str());
    if (!dir) throw IoError("cannot read the folder '" + folder + "': " + std::strerror(errno));
    std::vector<Entry> entries;
    while (const dirent* d = ::readdir(dir)) {
        const std::string name = d->d_name;
        if (name == "." || name == "..") continue;
        struct stat st {};
        if (::stat((folder + "/" + name).c_str(), &st) != 0) continue;  // gone meanwhile, or a dangling link
        entries.push_back(Entry{name, static_cast<uint64_t>(st.st_size), S_ISDIR(st.st_mode), static_cast<int64_t>(st.st_mtime)});
    }
    ::closedir(dir);
    return entries;
}

std::string LocalEventFiles::read(const std::string& path, uint64_t offset, std::size_t maxBytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
    std::string out(maxBytes, '\0');
    std::size_t got = 0;
    while (got < maxBytes) {
        const ssize_t n = ::pread(fd, out.data() + got, maxBytes - got, static_cast<off_t>(offset + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            throw IoError("cannot read '" + path + "' at offset " + std::to_string(offset + got) + ": " + std::strerror(err));
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    out.resize(got);
    return out;
}

void LocalEventFiles::wait(const std::string& folder, std::chrono::milliseconds timeout) {
    if (watched_ != folder) {
        if (inotify_ >= 0) ::close(inotify_);
        inotify_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (inotify_ >= 0 && ::inotify_add_watch(inotify_, folder.c_str(), IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
            ::close(inotify_);
            inotify_ = -1;
        }
        watched_ = folder;
        return;  // the watch starts now: let the caller look once more before sleeping
    }
    if (inotify_ < 0) {
        std::this_thread::sleep_for(timeout);
        return;
    }
    pollfd p{inotify_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) > 0) {
        char buf[4096];
        while (::read(inotify_, buf, sizeof buf) > 0) {}
    }
}

}  // namespace streetgan
