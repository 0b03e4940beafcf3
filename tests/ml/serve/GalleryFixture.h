// The in-process gallery server fixture of the serve tests: a tiny checkpoint written once per
// suite (GalleryTestSupport.h), a GalleryServer on a free loopback port per test, an HTTP client;
// and a PNG decoder for responses. Single-threaded use from the test body.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "GalleryTestSupport.h"
#include "ml/serve/GalleryServer.h"
#include "support/TempDir.h"

namespace streetgan::test {

/// Holds the server's first render (GalleryOptions::beforeRender = gate.hook()) until release():
/// for tests of a full render slot. Later renders pass at once. Thread-safe.
class RenderGate {
public:
    std::function<void()> hook() {
        return [this] {
            std::unique_lock<std::mutex> lock(m_);
            if (entered_) return;  // only the first render is held
            entered_ = true;
            cv_.notify_all();
            cv_.wait(lock, [this] { return released_; });
        };
    }
    /// True once the first render is held (false after 30 s).
    bool waitEntered() {
        std::unique_lock<std::mutex> lock(m_);
        return cv_.wait_for(lock, std::chrono::seconds(30), [this] { return entered_; });
    }
    void release() {
        {
            std::lock_guard<std::mutex> lock(m_);
            released_ = true;
        }
        cv_.notify_all();
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    bool entered_ = false, released_ = false;
};

class Gallery : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new TempDir;
        writeGalleryCheckpoint(*dir_ / "tiny.pt");
    }
    static void TearDownTestSuite() {
        delete dir_;
        dir_ = nullptr;
    }
    static std::string checkpoint() { return *dir_ / "tiny.pt"; }

    void startServer(GalleryOptions o = {}) {
        o.port = 0;
        server_ = std::make_unique<GalleryServer>(checkpoint(), "", o);
        port_ = server_->start();
        ASSERT_GT(port_, 0);
    }
    httplib::Client client() const {
        httplib::Client c("127.0.0.1", port_);
        c.set_read_timeout(60, 0);
        return c;
    }
    httplib::Result get(const std::string& path) const { return client().Get(path.c_str()); }

    inline static TempDir* dir_ = nullptr;
    std::unique_ptr<GalleryServer> server_;
    int port_ = 0;
};

inline cv::Mat decodePng(const std::string& body) { return cv::imdecode(std::vector<uchar>(body.begin(), body.end()), cv::IMREAD_UNCHANGED); }

}  // namespace streetgan::test
