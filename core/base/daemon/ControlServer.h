// Serves a run's control socket on a thread of its own: every request line goes to
// TrainControl::submitLine and its reply line goes back at once (the effect follows as events).
// Several clients at a time (attach sessions keep theirs open). The destructor stops the thread
// and removes the socket file. Never opens a TCP port.
#pragma once

#include <string>
#include <thread>

namespace streetgan {

class TrainControl;

class ControlServer {
public:
    /// Listens on `socketPath` (throws IoError) and serves `control`, which must outlive this.
    ControlServer(std::string socketPath, TrainControl& control);
    ~ControlServer();
    ControlServer(const ControlServer&) = delete;
    ControlServer& operator=(const ControlServer&) = delete;
    const std::string& path() const { return path_; }

private:
    void serve();

    std::string path_;
    TrainControl& control_;
    int listenFd_ = -1;
    int wakeFds_[2] = {-1, -1};
    std::thread thread_;
};

}  // namespace streetgan
