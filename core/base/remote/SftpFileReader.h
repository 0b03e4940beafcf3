// Reads one remote file over an open SFTP v3 channel by speaking the protocol itself (OPEN,
// STAT, READ, CLOSE), so that it can keep as many bytes in flight as the link needs.
//
// Why not libssh's sftp_async_read: libssh 0.10 reads SFTP packets with small
// ssh_channel_read calls, which never open the channel's receive window past 1.28 MB
// (WINDOWBASE in its channels.c), and its callers keep a fixed number of requests in flight: on
// a 100 ms link that caps a download near 10 MB/s whatever the link can carry (OpenSSH's sftp:
// 64 requests growing as answers come, a 2 MB window). Here the requests in flight grow by one per
// full answer, as OpenSSH's do_download does, up to `maxRequests`, and the reads ask libssh for
// a window of the bytes those requests may bring (ssh_channel_read grows the window to the count
// it is asked for), re-opened when half of it was used.
//
// The channel is SftpClient's (libssh's sftp session, past its INIT): this class must be its only
// user while it works, and leaves no answer of its own unread on it (when the connection is
// still up), so libssh's sftp calls go on working afterwards. One thread; the cancel flag may
// be set from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

struct ssh_channel_struct;

namespace streetgan {

class SftpFileReader {
public:
    struct Info {
        uint64_t size = 0;
        int64_t mtime = 0;
        bool isRegular = false;
    };
    struct ReadOptions {
        uint64_t from = 0;                ///< first byte to read
        uint32_t chunkBytes = 64 * 1024;  ///< bytes per READ request
        int startRequests = 16;           ///< requests in flight at first
        int maxRequests = 256;            ///< ... growing by one per full answer up to this
        const std::atomic<bool>* cancel = nullptr;
    };
    enum class Outcome { Done, Cancelled, Shrank };

    /// Sends OPEN (read-only) and STAT of `path` together: one round trip for both. Throws
    /// RemoteError (no such file, permission denied; naming `label` and the path) or
    /// ConnectionLostError.
    SftpFileReader(ssh_channel_struct* channel, std::string label, std::string path);
    /// Closes the handle when close() was not called (errors ignored).
    ~SftpFileReader();
    SftpFileReader(const SftpFileReader&) = delete;
    SftpFileReader& operator=(const SftpFileReader&) = delete;

    const Info& info() const { return info_; }
    /// Reads [from, size) and hands each answer to `sink(offset, data, bytes)` as it arrives
    /// (answers may come in any order; a short answer is asked again for its rest). `progress`
    /// after each answer with the bytes read so far by this call. Returns Done, Cancelled (no new
    /// requests once the flag is set; those in flight are collected) or Shrank (the file ended
    /// before its size: it changed meanwhile). What the sink throws is rethrown after the answers
    /// in flight were collected.
    Outcome read(const ReadOptions& options, const std::function<void(uint64_t offset, const char* data, size_t bytes)>& sink,
                 const std::function<void(uint64_t bytes)>& progress = {});
    /// Closes the handle and waits for the server's answer.
    void close();
    /// The most requests that were in flight at once in the last read() (benchmarks, tests).
    int peakRequests() const { return peak_; }

private:
    struct Packet {
        uint8_t type = 0;
        uint32_t id = 0;
        const char* body = nullptr;  ///< after the id
        size_t size = 0;
    };
    uint32_t send(uint8_t type, const std::string& body);
    void queue(uint8_t type, uint32_t id, const std::string& body);
    void flush();
    /// Waits for the next complete packet (its bytes stay valid until the next call).
    Packet next();
    [[noreturn]] void lost(const std::string& what);
    [[noreturn]] void statusError(const Packet& p, const std::string& what);

    ssh_channel_struct* channel_;
    std::string label_, path_, handle_, out_;
    Info info_;
    uint32_t nextId_ = 0x5f000000;  // apart from libssh's own ids (it counts up from 1)
    std::vector<char> in_;
    size_t start_ = 0, end_ = 0;
    uint64_t target_ = 0;     // the receive window read() wants (0: libssh's own, outside read())
    uint64_t window_ = 0;     // the receive window last asked for (0: not yet)
    uint64_t sinceGrow_ = 0;  // bytes read off the channel since then
    int peak_ = 0;
    bool open_ = false;
};

}  // namespace streetgan
