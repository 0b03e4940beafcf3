// A small HTTP server on 127.0.0.1 (cpp-httplib, a free port, its own thread) for the answers the
// real S3 server of the tests (SeaweedFS) does not give: AWS's 301 to a bucket of another region,
// 503 SlowDown, and the EC2 instance metadata service (IMDSv2). The test registers handlers on
// server() before start(); the destructor stops it and joins the thread.
//
// Thread contract: handlers run on the server's threads; the test thread owns the object.
#pragma once

#include <httplib.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace streetgan::test {

class LoopbackHttpServer {
public:
    LoopbackHttpServer() = default;
    ~LoopbackHttpServer() {
        server_.stop();
        if (thread_.joinable()) thread_.join();
    }
    LoopbackHttpServer(const LoopbackHttpServer&) = delete;
    LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

    httplib::Server& server() { return server_; }
    /// Binds a free port and serves; returns once it accepts connections.
    void start() {
        port_ = server_.bind_to_any_port("127.0.0.1");
        if (port_ <= 0) throw std::runtime_error("cannot bind a loopback port");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (!server_.is_running()) {
            if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("the loopback HTTP server did not start");
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

private:
    httplib::Server server_;
    std::thread thread_;
    int port_ = 0;
};

}  // namespace streetgan::test
