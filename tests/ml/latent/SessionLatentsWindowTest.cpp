// SessionLatents::latents over a part of the walk (what the explore worker computes per request,
// issue 44 item 4) against the whole walk's rows, bit for bit, over 240 sessions drawn at random:
// SLERP and linear, the four easings, t ranges (default, extrapolating, backwards, a single t),
// per-keyframe easing and t range, loop and no loop, seed and explicit keyframes (an all-zero one
// included: the linear fallback), truncation, PCA edits and named edits; every single frame and
// random spans. Also the refusals of a part outside the walk.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "base/latent/LatentSession.h"
#include "base/util/Errors.h"
#include "ml/latent/PcaDirections.h"
#include "ml/latent/SessionLatents.h"

using namespace streetgan;

namespace {

constexpr int64_t kNz = 16;

// Orthonormal rows (k, nz) and sigmas: PCA directions without a generator (only apply() is used).
PcaDirections somePca(int k) {
    torch::manual_seed(11);
    const at::Tensor q = std::get<0>(at::linalg_qr(torch::randn({kNz, k}, torch::kDouble))).t().to(torch::kFloat).contiguous();
    return PcaDirections(q, torch::rand({k}) + 0.5);
}

LatentSession randomSession(std::mt19937_64& rng) {
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
    auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    const std::vector<Easing::Kind> easings{Easing::Kind::Linear, Easing::Kind::EaseInOut, Easing::Kind::EaseIn, Easing::Kind::EaseOut};
    const std::vector<WalkRule::TRange> ranges{{0, 1}, {0, 8}, {-0.5, 1.5}, {1, 0}, {0.3, 0.3}, {real(-3, 3), real(-3, 3)}};
    LatentSession s;
    const int keys = 1 + pick(5);
    for (int i = 0; i < keys; ++i) {
        SessionKeyframe k;
        const int kind = pick(6);
        if (kind == 0) {
            k.z.assign(kNz, 0.0);  // no direction: SLERP falls back to the linear blend
        } else if (kind == 1) {
            for (int64_t j = 0; j < kNz; ++j) k.z.push_back(real(-2, 2));
        } else {
            k.seed = rng() >> 1;
        }
        if (pick(3) == 0) k.easing = easings[static_cast<size_t>(pick(4))];
        if (pick(3) == 0) k.tRange = ranges[static_cast<size_t>(pick(static_cast<int>(ranges.size())))];
        s.keyframes.push_back(k);
    }
    s.interpolation = pick(2) == 0 ? WalkRule::Interpolation::Slerp : WalkRule::Interpolation::Linear;
    s.easing = easings[static_cast<size_t>(pick(4))];
    s.tRange = ranges[static_cast<size_t>(pick(static_cast<int>(ranges.size())))];
    s.framesPerSegment = 1 + pick(9);
    s.loop = pick(2) == 0;
    if (pick(2) == 0) s.truncation = real(0, 2);
    if (pick(2) == 0)
        for (int e = pick(3) + 1; e > 0; --e) s.directions.push_back({pick(4), real(-5, 5)});
    if (pick(2) == 0)
        for (int e = pick(2) + 1; e > 0; --e) {
            NamedDirectionEdit n;
            n.name = "d" + std::to_string(e);
            for (int64_t j = 0; j < kNz; ++j) n.z.push_back(real(-1, 1));
            n.amount = real(-4, 4);
            s.namedDirections.push_back(n);
        }
    s.validate();
    return s;
}

}  // namespace

TEST(SessionLatentsWindow, EqualsTheWholeWalksRowsBitForBit) {
    const PcaDirections pca = somePca(4);
    std::mt19937_64 rng(20261130);
    int sessions = 0, windows = 0, slerpWithEdits = 0;
    for (int n = 0; n < 240; ++n) {
        const LatentSession s = randomSession(rng);
        const at::Tensor whole = SessionLatents::latents(s, kNz, &pca);
        const int64_t total = s.frameCount();
        ASSERT_EQ(whole.size(0), total);
        for (int64_t i = 0; i < total; ++i) {
            const at::Tensor one = SessionLatents::latents(s, kNz, &pca, i, 1);
            ASSERT_EQ(one.sizes(), (std::vector<int64_t>{1, kNz, 1, 1}));
            ASSERT_TRUE(torch::equal(one, whole.narrow(0, i, 1))) << "session " << n << " frame " << i << ": " << s.toJson().dump();
            ++windows;
        }
        for (int r = 0; r < 3; ++r) {
            const int64_t from = static_cast<int64_t>(rng() % static_cast<uint64_t>(total));
            const int64_t count = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(total - from));
            ASSERT_TRUE(torch::equal(SessionLatents::latents(s, kNz, &pca, from, count), whole.narrow(0, from, count)))
                << "session " << n << " frames " << from << "+" << count;
            ++windows;
        }
        ASSERT_TRUE(torch::equal(SessionLatents::latents(s, kNz, &pca, 0, total), whole));
        if (s.interpolation == WalkRule::Interpolation::Slerp && (!s.directions.empty() || !s.namedDirections.empty()) && s.truncation != 1.0) ++slerpWithEdits;
        ++sessions;
    }
    EXPECT_EQ(sessions, 240);
    EXPECT_GT(windows, 1000);
    EXPECT_GT(slerpWithEdits, 10);  // the draw reaches the combinations it is meant to
}

TEST(SessionLatentsWindow, PartsOutsideTheWalkAreRefused) {
    LatentSession s;
    s.keyframes = {{1, {}, std::nullopt}, {2, {}, std::nullopt}};
    s.framesPerSegment = 4;
    s.loop = false;  // 5 frames
    EXPECT_EQ(SessionLatents::latents(s, kNz, nullptr, 4, 1).size(0), 1);
    for (const auto& [from, count] : std::vector<std::pair<int64_t, int64_t>>{{5, 1}, {-1, 1}, {3, 3}, {0, 0}, {2, -1}}) {
        try {
            SessionLatents::latents(s, kNz, nullptr, from, count);
            ADD_FAILURE() << from << "+" << count << " was accepted";
        } catch (const ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find("0..4"), std::string::npos) << e.what();
        }
    }
    // A session with PCA edits and no directions is refused like the whole walk.
    s.directions.push_back({0, 1.0});
    EXPECT_THROW(SessionLatents::latents(s, kNz, nullptr, 0, 1), ConfigError);
}
