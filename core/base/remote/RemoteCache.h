// Where downloaded remote files live locally: ROOT/<host>/<remote path>, ROOT by default
// $XDG_CACHE_HOME/streetgan/remote or ~/.cache/streetgan/remote. A cached file carries the
// remote file's mtime, so "same size and mtime" means "no need to download again".
// Immutable; thread-safe.
#pragma once

#include <string>

namespace streetgan {

class RemoteCache {
public:
    /// `root` empty: the default above.
    explicit RemoteCache(std::string root = {});
    const std::string& root() const { return root_; }
    /// The local path for `remotePath` on `hostKey` (SshSession's target: host or host_port).
    /// Absolute remote paths keep their components; relative ones (to the login folder) go
    /// under "~"; ".." and "." components cannot climb out of the cache.
    std::string pathFor(const std::string& hostKey, const std::string& remotePath) const;
    /// The folder name for a host: "host" or "host_port" when the port is not 22.
    static std::string hostKey(const std::string& host, int port);

private:
    std::string root_;
};

}  // namespace streetgan
