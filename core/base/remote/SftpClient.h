// SFTP on an SshSession: listings, run files (checkpoints, samples) and downloads with pipelined
// reads (SftpFileReader: the requests in flight grow to fill the link), resume from a .part file,
// a size check and an atomic rename at the end, progress callback and cancel flag, and the
// RemoteCache; and uploads (what the set-up of a remote trainer sends: its .deb or the source
// tarball).
//
// Thread contract: an SftpClient and its session are used by one thread at a time; `cancel`
// and the progress callback are the exceptions (cancel may be set from any thread; progress
// runs on the downloading thread). The session must outlive the client.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

struct sftp_session_struct;

namespace streetgan {

class SshSession;
class RemoteCache;

struct RemoteFileInfo {
    std::string name;  ///< file name (listings) or the path asked for (stat)
    uint64_t size = 0;
    int64_t mtime = 0;  ///< seconds since the epoch, as the server reports it
    bool isDir = false;
    bool isRegular = false;
};

/// The files of a run directory, each list sorted (checkpoints oldest first as CheckpointName
/// orders them, samples by step).
struct RemoteRunFiles {
    std::vector<RemoteFileInfo> checkpoints;  ///< checkpoints/checkpoint_<epoch>.pt and checkpoint_<epoch>_step<step>.pt
    std::vector<RemoteFileInfo> samples;      ///< samples/step_<N>.png
};

struct DownloadOptions {
    /// Called after each chunk with bytes done (including a resumed part) and the total.
    std::function<void(uint64_t done, uint64_t total)> progress;
    const std::atomic<bool>* cancel = nullptr;  ///< set: the download stops, the .part stays
    int requestsInFlight = 16;                  ///< pipelined read requests at first (see maxRequestsInFlight)
    uint32_t chunkBytes = 64 * 1024;            ///< bytes per read request
    bool resume = true;                         ///< continue a .part file from its size
    int maxRequestsInFlight = 256;              ///< requests in flight grow by one per full answer up to this (SftpFileReader)
};

struct DownloadResult {
    uint64_t bytes = 0;        ///< size of the file
    uint64_t transferred = 0;  ///< bytes moved over the network this time
    uint64_t resumedFrom = 0;  ///< offset a .part file let us start from
    bool upToDate = false;     ///< the local file already had the remote size and mtime
    bool cancelled = false;
    double seconds = 0;
    int peakRequests = 0;  ///< the most read requests that were in flight at once (they grow)
};

class SftpClient {
public:
    /// Opens the SFTP subsystem. Throws RemoteError naming the host when the server has none.
    explicit SftpClient(SshSession& session);
    ~SftpClient();
    SftpClient(const SftpClient&) = delete;
    SftpClient& operator=(const SftpClient&) = delete;

    /// Entries of `dir` (no "." and ".."), sorted by name. Throws RemoteError (no such folder...).
    std::vector<RemoteFileInfo> list(const std::string& dir);
    /// Size, mtime and type of `path` (symbolic links followed).
    RemoteFileInfo stat(const std::string& path);
    bool exists(const std::string& path);
    /// Checkpoints and samples of the run directory `runDir` (missing sub-folders: empty lists).
    RemoteRunFiles listRun(const std::string& runDir);
    /// The checkpoints of `runDir` only (listRun().checkpoints without listing the samples: a
    /// `fetch --checkpoint latest` pays a round trip per request on a long link).
    std::vector<RemoteFileInfo> listCheckpoints(const std::string& runDir);
    /// Up to `maxBytes` of `remotePath` from `offset` into memory (fewer at its end; none past it),
    /// with pipelined reads: what following a TensorBoard run over SFTP reads (SftpEventFiles).
    /// Throws RemoteError / ConnectionLostError.
    std::string readRange(const std::string& remotePath, uint64_t offset, std::size_t maxBytes);
    /// Downloads `remotePath` to `localPath`: skipped when the local file has the remote size and
    /// mtime; else written to `localPath`.part (continued from its size when the remote file has
    /// not changed since), size-checked, fsynced, given the remote mtime, renamed into place.
    /// Cancelling returns with cancelled set and leaves the .part for a later resume.
    /// Throws RemoteError / ConnectionLostError / IoError.
    DownloadResult download(const std::string& remotePath, const std::string& localPath, const DownloadOptions& options = {});
    /// download() into `cache`; returns the local path.
    std::string fetchToCache(const RemoteCache& cache, const std::string& remotePath, const DownloadOptions& options = {}, DownloadResult* result = nullptr);
    /// Uploads `localPath` to `remotePath` (an absolute path or one relative to the login folder;
    /// its folder must exist) with permissions `mode`: written to `remotePath`.part in chunks,
    /// size-checked, chmod-ed, renamed into place. Returns false when cancelled (the .part is
    /// removed). Throws IoError (local file), RemoteError / ConnectionLostError (remote side).
    bool upload(const std::string& localPath, const std::string& remotePath, int mode = 0644,
                const std::function<void(uint64_t done, uint64_t total)>& progress = {}, const std::atomic<bool>* cancel = nullptr);

private:
    [[noreturn]] void fail(const std::string& what, const std::string& path);
    /// The files of `runDir`/`sub` whose names match `pattern` (one number captured), sorted by
    /// it; a missing folder: none.
    std::vector<RemoteFileInfo> numbered(const std::string& runDir, const std::string& sub, const std::string& pattern);
    /// list(folder), or none when the folder does not exist (the connection still up).
    std::vector<RemoteFileInfo> listIfExists(const std::string& folder);
    SshSession& session_;
    sftp_session_struct* sftp_ = nullptr;
};

}  // namespace streetgan
