// LoaderAdvice: silent while the loader keeps up or during the warm-up, one line once when it
// holds the step back, and the right remedy for the machine: more threads where the cores are
// there, the packed cache for photos where they are not.
#include <gtest/gtest.h>

#include <string>

#include "base/run/LoaderAdvice.h"

using namespace streetgan;

namespace {

LoaderAdvice::Setup setup(bool photos, int threads, int cores) { return {"streetgan-trainer data pack /data/msls --size 128", photos, threads, cores}; }

}  // namespace

TEST(LoaderAdvice, SilentWhenTheLoaderKeepsUp) {
    LoaderAdvice a(setup(true, 2, 16));
    for (int i = 0; i < 100; ++i) EXPECT_FALSE(a.observe(1.0, 0.05, 1000)) << i;  // 5% wait
}

TEST(LoaderAdvice, JudgesOnceAfterTheWarmupAndNeverAgain) {
    LoaderAdvice a(setup(true, 2, 16));
    double t = 0;
    int advised = 0;
    for (int i = 0; i < 100; ++i, t += 1.0) {
        // The warm-up's waits (cold caches) are not held against the loader.
        const bool warm = t >= LoaderAdvice::kWarmupSeconds;
        const auto advice = a.observe(1.0, warm ? 0.5 : 0.9, 2000);
        if (!advice) continue;
        ++advised;
        EXPECT_GE(t + 1, LoaderAdvice::kWarmupSeconds + LoaderAdvice::kWindowSeconds);
        EXPECT_NEAR(advice->dataWait, 0.5, 1e-9);
        EXPECT_NEAR(advice->imagesPerS, 2000, 1e-9);
        EXPECT_NEAR(advice->stepImagesPerS, 4000, 1e-9);
        // 1000 images/s a thread; 4000 * 1.1 needs 5 threads; 15 cores to spare.
        EXPECT_EQ(advice->threadsNeeded, 5);
        EXPECT_NE(advice->message.find("--loader-threads 5"), std::string::npos) << advice->message;
        EXPECT_NE(advice->message.find("waited 50%"), std::string::npos) << advice->message;
        EXPECT_EQ(advice->message.find('\n'), std::string::npos);
    }
    EXPECT_EQ(advised, 1);
}

TEST(LoaderAdvice, PhotosTooFastForTheCoresGetThePackedCache) {
    // An H100 box with 8 cores, naive-64 waiting 90% of the time on JPEG decoding.
    const LoaderAdvice a(setup(true, 7, 8));
    const auto advice = a.judge(20, 18, 20 * 7000);
    ASSERT_TRUE(advice);
    EXPECT_EQ(advice->threadsNeeded, 77);  // 70000 * 1.1 / 1000
    EXPECT_NE(advice->message.find("data pack /data/msls --size 128;"), std::string::npos) << advice->message;
    EXPECT_NE(advice->message.find("--data-path packed"), std::string::npos) << advice->message;
    EXPECT_NE(advice->message.find("about 77 cores"), std::string::npos) << advice->message;
    EXPECT_EQ(advice->message.find("--loader-threads"), std::string::npos) << advice->message;
}

TEST(LoaderAdvice, APackedCacheTooSlowGetsAllTheThreadsAndTheTruth) {
    const LoaderAdvice a(setup(false, 2, 4));
    const auto advice = a.judge(20, 10, 20 * 1000);
    ASSERT_TRUE(advice);
    EXPECT_NE(advice->message.find("--loader-threads 3 and expect the step to wait"), std::string::npos) << advice->message;
    EXPECT_EQ(advice->message.find("data pack"), std::string::npos) << advice->message;
}

TEST(LoaderAdvice, NothingTrainedOrNoTimeSaysNothing) {
    const LoaderAdvice a(setup(true, 1, 1));
    EXPECT_FALSE(a.judge(0, 0, 0));
    EXPECT_FALSE(a.judge(20, 19, 0));
    LoaderAdvice b(setup(true, 1, 1));
    EXPECT_FALSE(b.observe(0, 0, 0));
    EXPECT_FALSE(b.observe(-1, 0, 10));
}
