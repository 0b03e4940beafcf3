// The in-process gallery server fixture of the serve tests: a tiny checkpoint written once per
// suite (GalleryTestSupport.h), a GalleryServer on a free loopback port per test, an HTTP client;
// and a PNG decoder for responses. Single-threaded use from the test body.
#pragma once

#include <memory>
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
