// SpotNoticeWatch against an instance metadata service on loopback: silent while the notice is 404,
// one call with the action and time once it appears. (Off EC2, no service: the trainer tests run
// with it on by default, and the checkpoint sync tests stop a trainer by the notice.)
#include "base/s3/SpotNoticeWatch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <thread>

#include "base/s3/SpotImdsServer.h"

using namespace streetgan::s3;
using streetgan::test::SpotImdsServer;

namespace {

bool waitFor(const std::function<bool()>& done, std::chrono::seconds limit = std::chrono::seconds(60)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

}  // namespace

TEST(SpotNoticeWatch, CallsOnceWithTheActionAndTimeWhenTheNoticeAppears) {
    SpotImdsServer imds;
    std::mutex m;
    std::vector<SpotNoticeWatch::Notice> seen;
    SpotNoticeWatch watch(imds.url(), std::chrono::milliseconds(20), [&](const SpotNoticeWatch::Notice& n) {
        const std::lock_guard lock(m);
        seen.push_back(n);
    });
    ASSERT_TRUE(waitFor([&] { return imds.polls >= 3; })) << "the watch does not poll";
    {
        const std::lock_guard lock(m);
        EXPECT_TRUE(seen.empty()) << "a 404 is no notice";
    }
    imds.notice();
    ASSERT_TRUE(waitFor([&] {
        const std::lock_guard lock(m);
        return !seen.empty();
    }));
    const std::lock_guard lock(m);
    ASSERT_EQ(seen.size(), 1U);
    EXPECT_EQ(seen[0].action, "terminate");
    EXPECT_EQ(seen[0].time, "2026-11-30T12:00:00Z");
    EXPECT_EQ(seen[0].document, SpotImdsServer::kNotice);
    EXPECT_EQ(imds.tokens, 1) << "one session token serves every poll";
}

TEST(SpotNoticeWatch, ParsesTheNoticeDocumentAndKeepsAnyOtherText) {
    const auto n = SpotNoticeWatch::parse(R"({"action": "stop", "time": "2026-11-30T09:10:11Z"})");
    EXPECT_EQ(n.action, "stop");
    EXPECT_EQ(n.time, "2026-11-30T09:10:11Z");
    const auto odd = SpotNoticeWatch::parse("terminate soon");
    EXPECT_EQ(odd.action, "");
    EXPECT_EQ(odd.document, "terminate soon");
}
