// The /gallery page in headless Chromium (Debian's /usr/bin/chromium, or $STREETGAN_CHROMIUM):
// a screenshot must show generated pictures where the page lays out the grid and the GIF, loaded
// from the same in-process server. Skipped when no Chromium is installed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "GalleryTestSupport.h"
#include "ml/serve/GalleryServer.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;

namespace {

std::string chromium() {
    if (const char* env = std::getenv("STREETGAN_CHROMIUM"); env && *env) return env;
    for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
        if (::access(p, X_OK) == 0) return p;
    return "";
}

struct RegionStats {
    double stddev = 0;  // mean over channels of the per-channel standard deviation
    int distinctColours = 0;
};

RegionStats stats(const cv::Mat& bgr, const cv::Rect& r) {
    const cv::Mat roi = bgr(r & cv::Rect(0, 0, bgr.cols, bgr.rows));
    cv::Scalar mean, dev;
    cv::meanStdDev(roi, mean, dev);
    RegionStats s;
    s.stddev = (dev[0] + dev[1] + dev[2]) / 3;
    std::vector<int> seen;
    for (int y = 0; y < roi.rows; ++y)
        for (int x = 0; x < roi.cols; ++x) {
            const auto& p = roi.at<cv::Vec3b>(y, x);
            seen.push_back(p[0] << 16 | p[1] << 8 | p[2]);
        }
    std::sort(seen.begin(), seen.end());
    s.distinctColours = static_cast<int>(std::unique(seen.begin(), seen.end()) - seen.begin());
    return s;
}

}  // namespace

TEST(GalleryBrowser, HeadlessChromiumScreenshotShowsTheGridAndTheGif) {
    const std::string browser = chromium();
    if (browser.empty()) GTEST_SKIP() << "no Chromium (install Debian's chromium or set STREETGAN_CHROMIUM)";
    TempDir dir;
    test::writeGalleryCheckpoint(dir / "tiny.pt");
    std::atomic<int> renders{0};
    GalleryOptions o;
    o.port = 0;
    o.maxRenders = 4;
    o.beforeRender = [&] { ++renders; };
    GalleryServer server(dir / "tiny.pt", "", o);
    const int port = server.start();

    const std::string shot = dir / "gallery.png";
    // --no-sandbox: Chromium refuses to start as root with its sandbox (CI containers run as root).
    // --virtual-time-budget lets the page's scripts and image loads finish before the screenshot.
    const std::string cmd = "timeout 90 " + browser +
                            " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --no-first-run"
                            " --user-data-dir=" +
                            (dir / "profile") +
                            " --force-device-scale-factor=1 --window-size=960,720 --virtual-time-budget=15000"
                            " --screenshot=" +
                            shot + " 'http://127.0.0.1:" + std::to_string(port) + "/gallery?every=0&seed=5' >" + (dir / "chromium.log") + " 2>&1";
    const int rc = std::system(cmd.c_str());
    ASSERT_EQ(rc, 0) << cmd << "\n(see the log in " << (dir / "chromium.log") << ")";
    const cv::Mat img = cv::imread(shot, cv::IMREAD_COLOR);
    ASSERT_FALSE(img.empty()) << "no screenshot at " << shot;
    EXPECT_EQ(img.cols, 960);
    EXPECT_EQ(img.rows, 720);
    EXPECT_GE(renders.load(), 2) << "the page did not load /gan_imgs and /gan_gifs from this server";

    // Layout contract of serve/GalleryPage.h: grid at (16, 72) 552 x 552, GIF at (584, 72) 256 x 256;
    // look inside each with a margin. A blank or broken image is flat; generated pictures are not.
    const RegionStats grid = stats(img, cv::Rect(16 + 8, 72 + 8, 552 - 16, 552 - 16));
    const RegionStats gif = stats(img, cv::Rect(584 + 8, 72 + 8, 256 - 16, 256 - 16));
    const RegionStats background = stats(img, cv::Rect(870, 650, 80, 60));
    EXPECT_GT(grid.stddev, 20.0);
    EXPECT_GT(grid.distinctColours, 500);
    EXPECT_GT(gif.stddev, 10.0);
    EXPECT_GT(gif.distinctColours, 8);  // saturated test colours, nearest-upscaled: few but many more than 1
    EXPECT_LT(background.stddev, 1.0);
    EXPECT_LE(background.distinctColours, 2);
    if (HasFailure()) {
        const std::string keep = (std::filesystem::temp_directory_path() / "streetgan-gallery-failed.png").string();
        std::filesystem::copy_file(shot, keep, std::filesystem::copy_options::overwrite_existing);
        ADD_FAILURE() << "screenshot kept at " << keep;
    }
}
