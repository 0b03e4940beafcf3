#include "base/remote/SftpClient.h"

#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>

#include "base/remote/RemoteCache.h"
#include "base/remote/RemoteError.h"
#include "base/remote/SftpFileReader.h"
#include "base/remote/SshSession.h"
#include "base/run/CheckpointName.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {

struct AttrGuard {
    sftp_attributes a;
    ~AttrGuard() {
        if (a) sftp_attributes_free(a);
    }
};

RemoteFileInfo infoOf(sftp_attributes a, const std::string& name) {
    RemoteFileInfo i;
    i.name = name;
    i.size = a->size;
    i.mtime = a->mtime64 ? static_cast<int64_t>(a->mtime64) : static_cast<int64_t>(a->mtime);
    i.isDir = a->type == SSH_FILEXFER_TYPE_DIRECTORY;
    i.isRegular = a->type == SSH_FILEXFER_TYPE_REGULAR;
    return i;
}

class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }

private:
    int fd_;
};

void setMtime(int fd, int64_t mtime) {
    timespec ts[2];
    ts[0].tv_sec = static_cast<time_t>(mtime);
    ts[0].tv_nsec = 0;
    ts[1] = ts[0];
    (void)::futimens(fd, ts);
}

}  // namespace

SftpClient::SftpClient(SshSession& session) : session_(session) {
    sftp_ = sftp_new(session_.handle());
    if (!sftp_) {
        if (!ssh_is_connected(session_.handle())) throw ConnectionLostError("lost the connection to " + session_.label() + " (opening SFTP)");
        throw RemoteError("cannot open an SFTP channel on " + session_.label() + ": " + ssh_get_error(session_.handle()));
    }
    if (sftp_init(sftp_) != SSH_OK) {
        const std::string why = ssh_get_error(session_.handle());
        sftp_free(sftp_);
        sftp_ = nullptr;
        throw RemoteError(session_.label() + " has no SFTP service (" + why + "); enable the sftp Subsystem in its sshd_config");
    }
}

SftpClient::~SftpClient() {
    if (sftp_) sftp_free(sftp_);
}

void SftpClient::fail(const std::string& what, const std::string& path) {
    if (!ssh_is_connected(session_.handle())) throw ConnectionLostError("lost the connection to " + session_.label() + " (" + what + " " + path + ")");
    switch (sftp_get_error(sftp_)) {
        case SSH_FX_NO_SUCH_FILE:
        case SSH_FX_NO_SUCH_PATH:
            throw RemoteError("no such file or folder on " + session_.label() + ": " + path + "; check the path (relative paths start at the login folder)");
        case SSH_FX_PERMISSION_DENIED:
            throw RemoteError("permission denied on " + session_.label() + " to " + what + " " + path + "; check the remote file's permissions");
        default:
            throw RemoteError("cannot " + what + " " + path + " on " + session_.label() + ": " + ssh_get_error(session_.handle()));
    }
}

std::vector<RemoteFileInfo> SftpClient::list(const std::string& dir) {
    sftp_dir d = sftp_opendir(sftp_, dir.c_str());
    if (!d) fail("list", dir);
    std::vector<RemoteFileInfo> out;
    while (sftp_attributes a = sftp_readdir(sftp_, d)) {
        AttrGuard g{a};
        const std::string name = a->name ? a->name : "";
        if (name == "." || name == "..") continue;
        out.push_back(infoOf(a, name));
    }
    const bool eof = sftp_dir_eof(d);
    sftp_closedir(d);
    if (!eof) fail("list", dir);
    std::sort(out.begin(), out.end(), [](const RemoteFileInfo& a, const RemoteFileInfo& b) { return a.name < b.name; });
    return out;
}

RemoteFileInfo SftpClient::stat(const std::string& path) {
    AttrGuard g{sftp_stat(sftp_, path.c_str())};
    if (!g.a) fail("read", path);
    return infoOf(g.a, path);
}

bool SftpClient::exists(const std::string& path) {
    AttrGuard g{sftp_stat(sftp_, path.c_str())};
    if (g.a) return true;
    const int e = sftp_get_error(sftp_);
    if (e == SSH_FX_NO_SUCH_FILE || e == SSH_FX_NO_SUCH_PATH) return false;
    fail("read", path);
}

std::vector<RemoteFileInfo> SftpClient::listIfExists(const std::string& folder) {
    try {
        return list(folder);  // no stat first: one round trip less
    } catch (const RemoteError&) {
        const int e = sftp_get_error(sftp_);
        if (ssh_is_connected(session_.handle()) && (e == SSH_FX_NO_SUCH_FILE || e == SSH_FX_NO_SUCH_PATH)) return {};
        throw;
    }
}

std::vector<RemoteFileInfo> SftpClient::numbered(const std::string& runDir, const std::string& sub, const std::string& pattern) {
    const std::regex re(pattern);
    std::vector<RemoteFileInfo> files = listIfExists(runDir + "/" + sub);
    std::vector<std::pair<long long, RemoteFileInfo>> keyed;
    for (auto& f : files) {
        std::smatch m;
        if (f.isRegular && std::regex_match(f.name, m, re)) keyed.emplace_back(std::stoll(m[1].str()), f);
    }
    std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<RemoteFileInfo> out;
    for (auto& k : keyed) out.push_back(std::move(k.second));
    return out;
}

RemoteRunFiles SftpClient::listRun(const std::string& runDir) {
    RemoteRunFiles r;
    r.checkpoints = listCheckpoints(runDir);
    r.samples = numbered(runDir, "samples", R"(step_(\d+)\.png)");
    return r;
}

std::vector<RemoteFileInfo> SftpClient::listCheckpoints(const std::string& runDir) {
    // Both names of CheckpointName (an epoch's own file and a mid-epoch step file), in its order;
    // best.pt is a copy of one of them and not listed (as RunDirectory::checkpoints).
    std::vector<RemoteFileInfo> files = listIfExists(runDir + "/checkpoints");
    std::vector<std::pair<CheckpointName, RemoteFileInfo>> named;
    for (auto& f : files)
        if (const auto n = CheckpointName::parse(f.name); n && f.isRegular) named.emplace_back(*n, std::move(f));
    std::stable_sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<RemoteFileInfo> out;
    for (auto& n : named) out.push_back(std::move(n.second));
    return out;
}

std::string SftpClient::readRange(const std::string& remotePath, uint64_t offset, std::size_t maxBytes) {
    SftpFileReader reader(sftp_->channel, session_.label(), remotePath);  // open and stat: one round trip
    const uint64_t size = reader.info().size;
    if (size <= offset || maxBytes == 0) {
        reader.close();
        return std::string();
    }
    const uint64_t want = std::min<uint64_t>(size - offset, maxBytes);
    std::string out(static_cast<size_t>(want), '\0');
    uint64_t got = 0;
    std::atomic<bool> enough{false};  // no new requests past `want`; those in flight are collected
    SftpFileReader::ReadOptions ro;
    ro.from = offset;
    ro.cancel = &enough;
    // Answers may come in any order; the requests cover a gap-free prefix, all of which arrives.
    const auto outcome = reader.read(ro, [&](uint64_t at, const char* p, size_t n) {
        if (at >= offset + want) return;
        const size_t keep = static_cast<size_t>(std::min<uint64_t>(n, offset + want - at));
        std::memcpy(out.data() + (at - offset), p, keep);
        got += keep;
        if (got >= want) enough.store(true);
    });
    reader.close();
    if (outcome == SftpFileReader::Outcome::Shrank) return std::string();  // it changed meanwhile: read again later
    return out;
}

DownloadResult SftpClient::download(const std::string& remotePath, const std::string& localPath, const DownloadOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    DownloadResult result;
    // Opened and stat-ed in one round trip; read over this client's SFTP channel.
    SftpFileReader reader(sftp_->channel, session_.label(), remotePath);
    const SftpFileReader::Info& info = reader.info();
    if (!info.isRegular) throw RemoteError(remotePath + " on " + session_.label() + " is not a regular file; name a file");
    result.bytes = info.size;
    struct stat st {};
    if (::stat(localPath.c_str(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) == info.size && st.st_mtime == info.mtime) {
        result.upToDate = true;
        reader.close();
        if (options.progress) options.progress(info.size, info.size);
        return result;
    }
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(localPath).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    const std::string part = localPath + ".part";
    uint64_t offset = 0;
    // A .part continues when the remote file has not changed since it was written: its mtime is
    // the remote one (a clean stop sets it) or later (a killed download's last write).
    if (options.resume && ::stat(part.c_str(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) <= info.size && st.st_mtime >= info.mtime)
        offset = static_cast<uint64_t>(st.st_size);
    Fd fd(::open(part.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    if (fd.get() < 0) throw IoError("cannot write " + part + ": " + std::strerror(errno) + "; check the folder's permissions and free space");
    if (::ftruncate(fd.get(), static_cast<off_t>(offset)) != 0) throw IoError("cannot write " + part + ": " + std::strerror(errno));
    result.resumedFrom = offset;

    SftpFileReader::ReadOptions ro;
    ro.from = offset;
    ro.chunkBytes = options.chunkBytes;
    ro.startRequests = options.requestsInFlight;
    ro.maxRequests = std::max(options.requestsInFlight, options.maxRequestsInFlight);
    ro.cancel = options.cancel;
    uint64_t done = offset;
    // Answers may come out of order (a short answer's rest is asked again later): each is written
    // at its offset, and `contiguous` is the end of the gap-free prefix. A .part that stops early
    // is cut back to it, so that a resume (which continues from the .part's size) never keeps a
    // hole.
    uint64_t contiguous = offset;
    std::map<uint64_t, uint64_t> ahead;  // received ranges past a gap: offset -> end
    auto sink = [&](uint64_t at, const char* p, size_t left) {
        const uint64_t from = at, to = at + left;
        while (left > 0) {
            const ssize_t w = ::pwrite(fd.get(), p, left, static_cast<off_t>(at));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) throw IoError("cannot write " + part + ": " + std::strerror(errno) + "; check free space");
            p += w;
            left -= static_cast<size_t>(w);
            at += static_cast<uint64_t>(w);
        }
        if (from != contiguous) {
            ahead[from] = to;
            return;
        }
        contiguous = to;
        for (auto it = ahead.begin(); it != ahead.end() && it->first <= contiguous; it = ahead.erase(it)) contiguous = std::max(contiguous, it->second);
    };
    auto keepPrefix = [&] {
        // A .part that cannot be cut back to its gap-free prefix must not be resumed: start over.
        if (contiguous < info.size && ::ftruncate(fd.get(), static_cast<off_t>(contiguous)) != 0) ::unlink(part.c_str());
    };
    auto progress = [&](uint64_t bytes) {
        done = offset + bytes;
        result.transferred = bytes;
        if (options.progress) options.progress(done, info.size);
    };
    SftpFileReader::Outcome outcome;
    try {
        outcome = reader.read(ro, sink, progress);
        result.peakRequests = reader.peakRequests();
        reader.close();
    } catch (const ConnectionLostError&) {
        keepPrefix();
        done = contiguous;
        setMtime(fd.get(), info.mtime);
        result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        throw ConnectionLostError("lost the connection to " + session_.label() + " while downloading " + remotePath + " (" + std::to_string(done) + " of " +
                                  std::to_string(info.size) + " bytes kept in " + part + "; download again to resume)");
    }
    setMtime(fd.get(), info.mtime);  // marks the .part as belonging to this version of the file
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (outcome == SftpFileReader::Outcome::Shrank)
        throw RemoteError(remotePath + " on " + session_.label() + " ended at " + std::to_string(done) + " bytes, expected " + std::to_string(info.size) +
                          " (it changed while downloading); download it again");
    if (outcome == SftpFileReader::Outcome::Cancelled) {
        keepPrefix();
        result.cancelled = true;
        return result;
    }
    if (::fstat(fd.get(), &st) != 0 || static_cast<uint64_t>(st.st_size) != info.size)
        throw IoError("downloaded " + std::to_string(st.st_size) + " bytes of " + remotePath + " from " + session_.label() + " but it has " +
                      std::to_string(info.size) + "; download it again (the partial file " + part + " is kept)");
    if (::fsync(fd.get()) != 0) throw IoError("cannot write " + part + ": " + std::strerror(errno) + "; check free space");
    setMtime(fd.get(), info.mtime);
    if (::rename(part.c_str(), localPath.c_str()) != 0)
        throw IoError("cannot rename " + part + " to " + localPath + ": " + std::strerror(errno) + "; check the folder's permissions");
    return result;
}

std::string SftpClient::fetchToCache(const RemoteCache& cache, const std::string& remotePath, const DownloadOptions& options, DownloadResult* result) {
    std::string local = cache.pathFor(RemoteCache::hostKey(session_.target().hostName, session_.target().port), remotePath);
    const DownloadResult r = download(remotePath, local, options);
    if (result) *result = r;
    return local;
}

bool SftpClient::upload(const std::string& localPath, const std::string& remotePath, int mode,
                        const std::function<void(uint64_t done, uint64_t total)>& progress, const std::atomic<bool>* cancel) {
    std::ifstream in(localPath, std::ios::binary | std::ios::ate);
    if (!in) throw IoError("cannot read " + localPath + " to upload it: check that the file exists");
    const uint64_t total = static_cast<uint64_t>(in.tellg());
    in.seekg(0);
    const std::string part = remotePath + ".part";
    sftp_file f = sftp_open(sftp_, part.c_str(), O_WRONLY | O_CREAT | O_TRUNC, static_cast<mode_t>(mode));
    if (!f) fail("write", part);
    std::vector<char> buf(size_t{64} * 1024);
    uint64_t done = 0;
    bool cancelled = false;
    while (done < total) {
        if (cancel && cancel->load()) {
            cancelled = true;
            break;
        }
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        const std::streamsize n = in.gcount();
        if (n <= 0) {
            sftp_close(f);
            throw IoError("cannot read " + localPath + " (it shrank while uploading)");
        }
        // sftp_write may write less than asked (the server's limit per request): loop.
        for (std::streamsize off = 0; off < n;) {
            const ssize_t w = sftp_write(f, buf.data() + off, static_cast<size_t>(n - off));
            if (w <= 0) {
                sftp_close(f);
                fail("write", part);
            }
            off += w;
        }
        done += static_cast<uint64_t>(n);
        if (progress) progress(done, total);
    }
    if (sftp_close(f) != SSH_NO_ERROR) fail("write", part);
    if (cancelled) {
        sftp_unlink(sftp_, part.c_str());
        return false;
    }
    sftp_attributes a = sftp_stat(sftp_, part.c_str());
    if (!a) fail("read", part);
    const uint64_t size = a->size;
    sftp_attributes_free(a);
    if (size != total)
        throw RemoteError("the upload of " + localPath + " to " + session_.label() + " came out " + std::to_string(size) + " bytes instead of " +
                          std::to_string(total) + "; is the remote disk full?");
    sftp_chmod(sftp_, part.c_str(), static_cast<mode_t>(mode));  // sftp_open's mode passes through the umask
    sftp_unlink(sftp_, remotePath.c_str());                      // SFTP v3 rename does not replace
    if (sftp_rename(sftp_, part.c_str(), remotePath.c_str()) != SSH_OK) fail("rename to", remotePath);
    if (progress && total == 0) progress(0, 0);
    return true;
}

}  // namespace streetgan
