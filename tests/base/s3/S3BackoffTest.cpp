// S3Client::backoff: "full jitter" (a uniform wait in [0, min(cap, base * 2^attempt)]) over many
// draws: never above the ceiling, spread over it (not a fixed wait), the ceiling doubling per
// attempt until the cap.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>

#include "base/s3/S3Client.h"

using std::chrono::milliseconds;
using streetgan::s3::S3Client;

TEST(S3Backoff, FullJitterUnderADoublingCappedCeiling) {
    std::mt19937_64 rng(47);
    for (int attempt = 1; attempt <= 12; ++attempt) {
        const long long ceiling = std::min<long long>(5000, 50LL << attempt);
        std::set<long long> seen;
        long long most = 0;
        for (int i = 0; i < 2000; ++i) {
            const long long w = S3Client::backoff(attempt, milliseconds(50), milliseconds(5000), rng).count();
            ASSERT_GE(w, 0);
            ASSERT_LE(w, ceiling) << "attempt " << attempt;
            most = std::max(most, w);
            seen.insert(w);
        }
        // Spread: many different waits, reaching the top tenth of the range and the bottom tenth.
        EXPECT_GT(seen.size(), 50u) << attempt;
        EXPECT_GE(most, ceiling * 9 / 10) << attempt;
        EXPECT_LE(*seen.begin(), ceiling / 10) << attempt;
    }
    // Huge attempt numbers do not overflow the shift.
    EXPECT_LE(S3Client::backoff(1000, milliseconds(50), milliseconds(5000), rng).count(), 5000);
}
