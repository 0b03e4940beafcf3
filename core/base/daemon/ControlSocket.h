// The run directory's control socket (docs/attach-protocol.md): a Unix domain stream socket,
// mode 0600, one JSON request per line and one JSON reply per line. Paths longer than sun_path
// (108 bytes) are reached through /proc/self/fd/N/control.sock of an O_PATH handle on the folder.
// Plain functions on file descriptors; the caller owns (closes) what they return.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace streetgan {

class ControlSocket {
public:
    static std::string pathIn(const std::string& runDir) { return runDir + "/control.sock"; }
    /// Replaces a stale socket file, binds (0600) and listens. Throws IoError naming the path.
    static int listenAt(const std::string& path);
    /// Connects; throws IoError("... is not running ...") when nobody listens there.
    static int connectTo(const std::string& path);
    /// Sends `request` as one line and waits up to `timeoutMs` for the reply line.
    static nlohmann::json request(const std::string& path, const nlohmann::json& request, int timeoutMs = 10000);
    /// Writes all of `data`; false on a closed peer (no SIGPIPE).
    static bool sendAll(int fd, const std::string& data);
    /// Reads until `buffer` holds a full line (moved into `line`, newline stripped) or timeout/EOF;
    /// returns false on EOF, error or timeout (`timeoutMs` < 0: wait forever).
    static bool readLine(int fd, std::string& buffer, std::string& line, int timeoutMs);
};

}  // namespace streetgan
