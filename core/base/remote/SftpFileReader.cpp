#include "base/remote/SftpFileReader.h"

#include <libssh/libssh.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>

#include "base/remote/RemoteError.h"

namespace streetgan {

namespace {

// SFTP v3 (draft-ietf-secsh-filexfer-02), the numbers this reader uses.
constexpr uint8_t kOpen = 3, kClose = 4, kRead = 5, kStat = 17;
constexpr uint8_t kStatus = 101, kHandle = 102, kData = 103, kAttrs = 105;
constexpr uint32_t kReadFlag = 0x1;
constexpr uint32_t kEof = 1, kNoSuchFile = 2, kPermissionDenied = 3;
constexpr uint32_t kAttrSize = 0x1, kAttrUidGid = 0x2, kAttrPermissions = 0x4, kAttrTimes = 0x8;
constexpr uint32_t kMaxPacket = 4u << 20;  // far above any answer we ask for (256 KiB reads)
constexpr int kSilenceS = 60;              // no byte for this long on a live connection: give up

void putU32(std::string& s, uint32_t v) {
    const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    s.append(b, 4);
}
void putU64(std::string& s, uint64_t v) {
    putU32(s, static_cast<uint32_t>(v >> 32));
    putU32(s, static_cast<uint32_t>(v));
}
void putString(std::string& s, const std::string& v) {
    putU32(s, static_cast<uint32_t>(v.size()));
    s += v;
}
uint32_t getU32(const char* p) {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    return (uint32_t(u[0]) << 24) | (uint32_t(u[1]) << 16) | (uint32_t(u[2]) << 8) | uint32_t(u[3]);
}
uint64_t getU64(const char* p) { return (uint64_t(getU32(p)) << 32) | getU32(p + 4); }

}  // namespace

SftpFileReader::SftpFileReader(ssh_channel_struct* channel, std::string label, std::string path)
    : channel_(channel), label_(std::move(label)), path_(std::move(path)), in_(size_t{256} * 1024) {
    // OPEN and STAT in one write: the server answers both in one round trip.
    std::string body;
    putString(body, path_);
    putU32(body, kReadFlag);
    putU32(body, 0);  // no attributes
    const uint32_t openId = nextId_++;
    queue(kOpen, openId, body);
    body.clear();
    putString(body, path_);
    const uint32_t statId = nextId_++;
    queue(kStat, statId, body);
    flush();
    std::string openError, statError;
    for (int answers = 0; answers < 2; ++answers) {
        const Packet p = next();
        if (p.id == openId && p.type == kHandle && p.size >= 4 && getU32(p.body) <= p.size - 4) {
            handle_.assign(p.body + 4, getU32(p.body));
            open_ = true;
        } else if (p.id == statId && p.type == kAttrs && p.size >= 4) {
            const char* a = p.body;
            const char* end = p.body + p.size;
            const uint32_t flags = getU32(a);
            a += 4;
            if ((flags & kAttrSize) && a + 8 <= end) info_.size = getU64(a), a += 8;
            if (flags & kAttrUidGid) a += 8;
            uint32_t mode = 0;
            if ((flags & kAttrPermissions) && a + 4 <= end) mode = getU32(a), a += 4;
            if ((flags & kAttrTimes) && a + 8 <= end) info_.mtime = getU32(a + 4);
            info_.isRegular = (mode & 0170000) == 0100000;
        } else if (p.type == kStatus) {
            try {
                statusError(p, p.id == openId ? "open" : "read");
            } catch (const RemoteError& e) {
                (p.id == openId ? openError : statError) = e.what();
            }
        } else {
            throw RemoteError("unexpected SFTP answer (type " + std::to_string(p.type) + ") from " + label_ + " for " + path_ +
                              "; is its SFTP server standard (OpenSSH's sftp-server)?");
        }
    }
    // The STAT's error names the problem best (no such file, permission denied to read it).
    if (!statError.empty()) throw RemoteError(statError);
    if (!openError.empty()) throw RemoteError(openError);
}

SftpFileReader::~SftpFileReader() {
    try {
        close();
    } catch (const std::exception&) {
        // the connection is gone: nothing left to close
    }
}

void SftpFileReader::queue(uint8_t type, uint32_t id, const std::string& body) {
    putU32(out_, static_cast<uint32_t>(1 + 4 + body.size()));
    out_ += static_cast<char>(type);
    putU32(out_, id);
    out_ += body;
}

void SftpFileReader::flush() {
    if (out_.empty()) return;
    // One channel write for a whole batch of requests: one SSH packet, not one per request.
    const int n = ssh_channel_write(channel_, out_.data(), static_cast<uint32_t>(out_.size()));
    out_.clear();
    if (n == SSH_ERROR) lost("sending requests");
}

void SftpFileReader::lost(const std::string& what) { throw ConnectionLostError("lost the connection to " + label_ + " (" + what + " " + path_ + ")"); }

void SftpFileReader::statusError(const Packet& p, const std::string& what) {
    const uint32_t code = p.size >= 4 ? getU32(p.body) : 0;
    std::string message;
    if (p.size >= 8 && getU32(p.body + 4) <= p.size - 8) message.assign(p.body + 8, getU32(p.body + 4));
    switch (code) {
        case kNoSuchFile:
            throw RemoteError("no such file or folder on " + label_ + ": " + path_ + "; check the path (relative paths start at the login folder)");
        case kPermissionDenied:
            throw RemoteError("permission denied on " + label_ + " to " + what + " " + path_ + "; check the remote file's permissions");
        default:
            throw RemoteError("cannot " + what + " " + path_ + " on " + label_ + ": " + (message.empty() ? "SFTP status " + std::to_string(code) : message));
    }
}

SftpFileReader::Packet SftpFileReader::next() {
    int silentS = 0;
    for (;;) {
        const size_t have = end_ - start_;
        if (have >= 4) {
            const uint32_t len = getU32(in_.data() + start_);
            if (len < 5 || len > kMaxPacket) throw RemoteError("a malformed SFTP answer from " + label_ + " (length " + std::to_string(len) + ")");
            if (have >= 4 + size_t{len}) {
                const char* p = in_.data() + start_;
                start_ += 4 + size_t{len};
                return Packet{static_cast<uint8_t>(p[4]), getU32(p + 5), p + 9, len - 5};
            }
            if (in_.size() < 4 + size_t{len} + 4096) in_.resize(4 + size_t{len} + 65536);
        }
        // Ask libssh for the whole target window when half of the last one was used (one
        // WINDOW_ADJUST per half window, as OpenSSH does, not one per read) and for no more than
        // what is left of it otherwise: ssh_channel_read opens the receive window to what it is
        // asked for, less what libssh holds already.
        const bool grow = target_ > 0 && (window_ == 0 || sinceGrow_ >= window_ / 2);
        // Only the start of one packet is left here (the complete ones were handed out): move it
        // to the front when the room behind it is short, or before asking for a whole window.
        if (start_ == end_) {
            start_ = end_ = 0;
        } else if (start_ > 0 && (in_.size() - end_ < 65536 || grow)) {
            std::memmove(in_.data(), in_.data() + start_, end_ - start_);
            end_ -= start_;
            start_ = 0;
        }
        const uint64_t room = in_.size() - end_;
        uint64_t count = std::min<uint64_t>(room, 32768);
        if (grow) {
            count = std::min<uint64_t>(room, target_);
            window_ = count;
            sinceGrow_ = 0;
        } else if (target_ > 0) {
            count = std::min<uint64_t>(room, window_ - sinceGrow_);
        }
        count = std::max<uint64_t>(count, 1);
        const int n = ssh_channel_read_timeout(channel_, in_.data() + end_, static_cast<uint32_t>(count), 0, 1000);
        if (n == SSH_ERROR) lost("reading");
        if (n > 0) {
            end_ += static_cast<size_t>(n);
            sinceGrow_ += static_cast<uint64_t>(n);
            silentS = 0;
            continue;
        }
        if (ssh_channel_is_eof(channel_) || !ssh_channel_is_open(channel_)) lost("the SFTP channel closed while reading");
        if (++silentS >= kSilenceS) lost("no answer for " + std::to_string(kSilenceS) + " s while reading");
    }
}

SftpFileReader::Outcome SftpFileReader::read(const ReadOptions& o, const std::function<void(uint64_t, const char*, size_t)>& sink,
                                             const std::function<void(uint64_t)>& progress) {
    const uint32_t chunk = std::clamp<uint32_t>(o.chunkBytes, 4096, 255 * 1024);
    const size_t maxRequests = static_cast<size_t>(std::max(1, std::max(o.maxRequests, o.startRequests)));
    // The window the requests in flight may fill, and room to read it in one go.
    target_ = maxRequests * (uint64_t{chunk} + 64) + uint64_t{256} * 1024;
    if (in_.size() < target_ + chunk + 65536) in_.resize(target_ + chunk + 65536);
    struct Request {
        uint64_t offset;
        uint32_t len;
    };
    std::unordered_map<uint32_t, Request> pending;
    size_t limit = static_cast<size_t>(std::max(1, o.startRequests));
    uint64_t nextOffset = o.from, got = 0;
    bool cancelled = false, shrank = false;
    std::exception_ptr error;
    peak_ = 0;
    auto issue = [&](uint64_t offset, uint32_t len) {
        std::string body;
        putString(body, handle_);
        putU64(body, offset);
        putU32(body, len);
        const uint32_t id = nextId_++;
        queue(kRead, id, body);
        pending.emplace(id, Request{offset, len});
    };
    auto fill = [&] {
        while (!cancelled && !shrank && !error && nextOffset < info_.size && pending.size() < limit) {
            const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(chunk, info_.size - nextOffset));
            issue(nextOffset, len);
            nextOffset += len;
        }
        flush();
        peak_ = std::max(peak_, static_cast<int>(pending.size()));
    };
    fill();
    while (!pending.empty()) {
        const Packet p = next();
        const auto it = pending.find(p.id);
        if (it == pending.end()) throw RemoteError("an SFTP answer from " + label_ + " to no request of ours (id " + std::to_string(p.id) + ")");
        const Request r = it->second;
        pending.erase(it);
        if (p.type == kData && p.size >= 4 && getU32(p.body) <= p.size - 4 && getU32(p.body) <= r.len) {
            const uint32_t n = getU32(p.body);
            if (!error) {
                try {
                    sink(r.offset, p.body + 4, n);
                    got += n;
                    if (progress) progress(got);
                } catch (...) {
                    error = std::current_exception();  // collect the answers in flight first
                }
            }
            if (n == 0) {
                shrank = true;
            } else if (n < r.len) {
                if (!error && !cancelled) issue(r.offset + n, r.len - n);  // a short answer: ask for the rest
            } else if (limit < maxRequests) {
                ++limit;  // a full answer: one more request in flight (OpenSSH's growth)
            }
        } else if (p.type == kStatus) {
            if (p.size >= 4 && getU32(p.body) == kEof) {
                shrank = true;
            } else if (!error) {
                try {
                    statusError(p, "read");
                } catch (...) {
                    error = std::current_exception();
                }
            }
        } else {
            throw RemoteError("unexpected SFTP answer (type " + std::to_string(p.type) + ") from " + label_ + " while reading " + path_);
        }
        if (o.cancel && o.cancel->load()) cancelled = true;
        fill();
    }
    target_ = 0;
    if (error) std::rethrow_exception(error);
    if (shrank) return Outcome::Shrank;
    return cancelled ? Outcome::Cancelled : Outcome::Done;
}

void SftpFileReader::close() {
    if (!open_) return;
    open_ = false;
    std::string body;
    putString(body, handle_);
    const uint32_t id = nextId_++;
    queue(kClose, id, body);
    flush();
    for (;;) {
        const Packet p = next();
        if (p.id == id) return;  // its status: nothing to do about a failed close of a read
    }
}

}  // namespace streetgan
