// An EC2 instance metadata service (IMDSv2) on loopback as a spot instance sees it: a session token
// by PUT, meta-data/spot/instance-action 404 until notice() is called, then the interruption
// notice EC2 writes two minutes before it takes the instance. Counts the polls, so a test can
// wait until a watcher is polling before it raises the notice.
//
// Thread contract: handlers run on the server's threads; the counters and the flag are atomic.
#pragma once

#include <atomic>
#include <string>

#include "base/s3/LoopbackHttpServer.h"

namespace streetgan::test {

class SpotImdsServer {
public:
    static constexpr const char* kNotice = R"({"action": "terminate", "time": "2026-11-30T12:00:00Z"})";

    SpotImdsServer() {
        auto& s = http_.server();
        s.Put("/latest/api/token", [this](const httplib::Request& req, httplib::Response& res) {
            if (req.get_header_value("X-aws-ec2-metadata-token-ttl-seconds").empty()) {
                res.status = 400;
                return;
            }
            ++tokens;
            res.set_content("spot-token", "text/plain");
        });
        s.Get("/latest/meta-data/spot/instance-action", [this](const httplib::Request& req, httplib::Response& res) {
            if (req.get_header_value("X-aws-ec2-metadata-token") != "spot-token") {
                res.status = 401;
                return;
            }
            ++polls;
            if (noticed_)
                res.set_content(kNotice, "application/json");
            else
                res.status = 404;
        });
        http_.start();
    }
    std::string url() const { return http_.url(); }
    void notice() { noticed_ = true; }

    std::atomic<int> tokens{0}, polls{0};

private:
    std::atomic<bool> noticed_{false};
    LoopbackHttpServer http_;
};

}  // namespace streetgan::test
