// The walk rule of base/latent (WalkRule, LatentSession) without LibTorch: frame counts, where each
// frame lies and its t (the default 0..1 and ranges that extrapolate past the keyframes, e.g. the
// reference project's t = 0..8), the t_range keys of the session file (round trip, files without
// them read and written back byte for byte, refused values naming the key) and the reference walk.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "base/latent/LatentSession.h"
#include "base/latent/WalkRule.h"
#include "base/util/Errors.h"
#include "support/TempDir.h"

using namespace streetgan;
using nlohmann::json;
using streetgan::test::TempDir;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

LatentSession seeds(std::initializer_list<uint64_t> s) {
    LatentSession out;
    for (uint64_t v : s) {
        SessionKeyframe k;
        k.seed = v;
        out.keyframes.push_back(k);
    }
    return out;
}

// A session file exactly as the build before t ranges wrote it (every key, LatentSession::toJson).
const char* kOldFile = R"({"checkpoint": "ck.pt", "checkpoint_sha256": "", "directions": [{"amount": 1.5, "index": 0}],
  "easing": "ease-in-out", "frame_delay_ms": 80, "frames_per_segment": 12, "gif_dithering": 0.0, "gif_loop_count": 0,
  "gif_palette": "per-frame", "gif_speed": 8, "interpolation": "slerp",
  "keyframes": [{"seed": 2}, {"easing": "ease-in", "seed": 20}, {"z": [0.5, -1.25, 3.0]}],
  "loop": true, "nrow": 8, "padding": 2, "pca_components": 10, "pca_samples": 2000, "pca_seed": 0, "size": 128,
  "truncation": 0.9, "upscale": "smooth", "explorer_raw_dims": [3, 1]})";

}  // namespace

TEST(WalkRule, FrameCounts) {
    EXPECT_EQ(WalkRule::frameCount(3, 8, true), 24);
    EXPECT_EQ(WalkRule::frameCount(3, 8, false), 17);
    EXPECT_EQ(WalkRule::frameCount(1, 8, true), 8);
    EXPECT_EQ(WalkRule::frameCount(1, 8, false), 1);
    EXPECT_EQ(WalkRule::frameCount(2, 15, false), 16);  // the reference walk
    EXPECT_EQ(WalkRule::frameCount(0, 8, true), 0);
    EXPECT_EQ(WalkRule::frameCount(3, 0, true), 0);
}

TEST(WalkRule, PlaceOfEachFrame) {
    // Loop: 3 keyframes, F = 4; frame 11 is the last of the segment back to keyframe 0.
    WalkRule::Place p = WalkRule::place(11, 3, 4, true);
    EXPECT_EQ(p.segment, 2);
    EXPECT_EQ(p.from, 2);
    EXPECT_EQ(p.to, 0);
    EXPECT_DOUBLE_EQ(p.u, 0.75);
    EXPECT_EQ(WalkRule::place(12, 3, 4, true).segment, 0);  // modulo N
    EXPECT_EQ(WalkRule::place(-1, 3, 4, true).segment, 2);
    // No loop: the last frame is the end (u = 1) of the last segment.
    p = WalkRule::place(8, 3, 4, false);
    EXPECT_EQ(p.segment, 1);
    EXPECT_EQ(p.from, 1);
    EXPECT_EQ(p.to, 2);
    EXPECT_DOUBLE_EQ(p.u, 1.0);
    p = WalkRule::place(5, 3, 4, false);
    EXPECT_EQ(p.segment, 1);
    EXPECT_DOUBLE_EQ(p.u, 0.25);
    EXPECT_THROW(WalkRule::place(9, 3, 4, false), ConfigError);
    EXPECT_THROW(WalkRule::place(-1, 3, 4, false), ConfigError);
    // One keyframe without loop: one frame, the keyframe itself.
    p = WalkRule::place(0, 1, 4, false);
    EXPECT_EQ(p.from, 0);
    EXPECT_EQ(p.to, 0);
    EXPECT_DOUBLE_EQ(p.u, 0.0);
    EXPECT_THROW(WalkRule::place(0, 0, 4, true), ConfigError);
}

TEST(WalkRule, TAtDefaultRangeIsTheEasingAndKeyframesAreExact) {
    for (const auto& name : Easing::names()) {
        const Easing::Kind k = Easing::parse(name);
        for (int j = 0; j <= 8; ++j) EXPECT_EQ(WalkRule::t(j / 8.0, k, {}), Easing::apply(k, j / 8.0)) << name << " " << j;
        EXPECT_EQ(WalkRule::t(0.0, k, {}), 0.0);
        EXPECT_EQ(WalkRule::t(1.0, k, {}), 1.0);
    }
    // Every keyframe's frame of a default session is at t = 0 (or 1 for the last without loop).
    LatentSession s = seeds({1, 2, 3});
    s.framesPerSegment = 5;
    s.easing = Easing::Kind::EaseInOut;
    for (bool loop : {true, false}) {
        s.loop = loop;
        for (int64_t k = 0; k < 3; ++k) {
            const int64_t i = k * 5;
            if (i >= s.frameCount()) continue;
            const WalkRule::Place p = s.framePlace(i);
            const double t = s.frameT(i);
            EXPECT_TRUE((t == 0.0 && p.from == k) || (t == 1.0 && p.to == k)) << "loop " << loop << " keyframe " << k << " t " << t;
        }
    }
}

TEST(WalkRule, RangesSpreadFramesAndExtrapolate) {
    // The reference walk: t = 0..8 over 16 frames, torch.linspace(0, 8, 16).
    LatentSession s = seeds({5, 6});
    s.makeReferenceWalk(5, 6);
    ASSERT_EQ(s.frameCount(), LatentSession::kReferenceFrames);
    ASSERT_EQ(s.frameCount(), 16);
    for (int64_t i = 0; i < 16; ++i) {
        EXPECT_DOUBLE_EQ(s.frameT(i), 8.0 * static_cast<double>(i) / 15.0) << i;
        EXPECT_EQ(s.framePlace(i).segment, 0);
    }
    EXPECT_EQ(s.frameT(0), 0.0);
    EXPECT_EQ(s.frameT(15), 8.0);
    // Backwards and before the first keyframe; easing maps the fraction, the range scales it.
    EXPECT_DOUBLE_EQ(WalkRule::t(0.5, Easing::Kind::Linear, {2.0, -2.0}), 0.0);
    EXPECT_DOUBLE_EQ(WalkRule::t(0.25, Easing::Kind::Linear, {-1.0, 3.0}), 0.0);
    EXPECT_DOUBLE_EQ(WalkRule::t(0.25, Easing::Kind::EaseIn, {-1.0, 3.0}), -1.0 + 4.0 * std::pow(0.25, 3));
    EXPECT_DOUBLE_EQ(WalkRule::t(0.7, Easing::Kind::Linear, {3.0, 3.0}), 3.0);  // a hold
    // A keyframe's own range applies to its segment only.
    LatentSession m = seeds({1, 2, 3});
    m.framesPerSegment = 4;
    m.loop = false;
    m.tRange = {-0.5, 1.5};
    m.keyframes[1].tRange = WalkRule::TRange{0.0, 1.0};
    EXPECT_DOUBLE_EQ(m.frameT(0), -0.5);
    EXPECT_DOUBLE_EQ(m.frameT(2), 0.5);
    EXPECT_DOUBLE_EQ(m.frameT(4), 0.0);
    EXPECT_DOUBLE_EQ(m.frameT(6), 0.5);
    EXPECT_DOUBLE_EQ(m.frameT(8), 1.0);  // the last frame: the end of segment 1's own range
    EXPECT_EQ(m.segmentRange(0), (WalkRule::TRange{-0.5, 1.5}));
    EXPECT_EQ(m.segmentRange(1), (WalkRule::TRange{0.0, 1.0}));
    EXPECT_THROW(m.frameT(9), ConfigError);
}

TEST(WalkRule, ReferenceWalkKeepsOutputSettings) {
    LatentSession s = seeds({1, 2, 3, 4});
    s.checkpoint = "ck.pt";
    s.size = 256;
    s.frameDelayMs = 40;
    s.truncation = 0.5;
    s.directions = {{1, 2.0}};
    s.keyframes[0].easing = Easing::Kind::EaseIn;
    s.extra["explorer_raw_dims"] = json::array({1});
    s.makeReferenceWalk(7, 8);
    EXPECT_EQ(s.keyframes.size(), 2u);
    EXPECT_EQ(s.keyframes[0].seed, 7u);
    EXPECT_EQ(s.keyframes[1].seed, 8u);
    EXPECT_FALSE(s.keyframes[0].easing);
    EXPECT_EQ(s.tRange, (WalkRule::TRange{0.0, 8.0}));
    EXPECT_EQ(s.framesPerSegment, 15);
    EXPECT_FALSE(s.loop);
    EXPECT_EQ(s.interpolation, WalkRule::Interpolation::Slerp);
    EXPECT_EQ(s.truncation, 1.0);
    EXPECT_TRUE(s.directions.empty());
    EXPECT_EQ(s.checkpoint, "ck.pt");
    EXPECT_EQ(s.size, 256);
    EXPECT_EQ(s.frameDelayMs, 40);
    EXPECT_EQ(s.extra["explorer_raw_dims"], json::array({1}));
    s.validate();
    EXPECT_EQ(s.toJson()["t_range"], json::parse("[0.0, 8.0]"));
}

TEST(WalkRuleSession, TRangeRoundTripsThroughTheFile) {
    TempDir dir;
    LatentSession s = seeds({1, 2});
    s.tRange = {-0.25, 8.0};
    s.keyframes[1].tRange = WalkRule::TRange{1.0, -3.5};
    s.write(dir / "s.json");
    const json j = json::parse(slurp(dir / "s.json"));
    EXPECT_EQ(j["t_range"], json::parse("[-0.25, 8.0]"));
    EXPECT_FALSE(j["keyframes"][0].contains("t_range"));
    EXPECT_EQ(j["keyframes"][1]["t_range"], json::parse("[1.0, -3.5]"));
    const LatentSession r = LatentSession::read(dir / "s.json");
    EXPECT_TRUE(r == s);
    EXPECT_EQ(r.tRange, s.tRange);
    EXPECT_EQ(r.keyframes, s.keyframes);
    r.write(dir / "t.json");
    EXPECT_EQ(slurp(dir / "s.json"), slurp(dir / "t.json"));
    // Integers are numbers too; a keyframe's own [0, 1] is kept (it overrides the session's range).
    const LatentSession k = LatentSession::fromJson(json::parse(R"({"keyframes": [{"seed": 1, "t_range": [0, 1]}, {"seed": 2}], "t_range": [0, 8]})"));
    EXPECT_EQ(k.tRange, (WalkRule::TRange{0.0, 8.0}));
    ASSERT_TRUE(k.keyframes[0].tRange);
    EXPECT_TRUE(k.keyframes[0].tRange->isDefault());
    EXPECT_EQ(k.toJson()["keyframes"][0]["t_range"], json::parse("[0.0, 1.0]"));
}

TEST(WalkRuleSession, FilesWithoutRangesLoadAndStayByteIdentical) {
    TempDir dir;
    const std::string old = json::parse(kOldFile).dump(2) + "\n";
    std::ofstream(dir / "old.json") << old;
    const LatentSession s = LatentSession::read(dir / "old.json");
    EXPECT_TRUE(s.tRange.isDefault());
    for (const auto& k : s.keyframes) EXPECT_FALSE(k.tRange);
    EXPECT_EQ(s.frameCount(), 36);
    EXPECT_EQ(s.frameT(12), 0.0);
    EXPECT_DOUBLE_EQ(s.frameT(3), Easing::apply(Easing::Kind::EaseInOut, 0.25));
    s.write(dir / "again.json");
    EXPECT_EQ(slurp(dir / "again.json"), old);
    // An explicit default range reads as the default and is left out on write (the same walk).
    json j = json::parse(kOldFile);
    j["t_range"] = {0, 1};
    EXPECT_FALSE(LatentSession::fromJson(j).toJson().contains("t_range"));
    // The demo walk shipped with the app reads unchanged.
    const LatentSession demo = LatentSession::read(std::string(STREETGAN_DEMO_DIR) + "/walk.json");
    EXPECT_TRUE(demo.tRange.isDefault());
    EXPECT_EQ(demo.frameCount(), 48);
}

TEST(WalkRuleSession, BadRangesNameTheKey) {
    auto refused = [](const json& patch, const std::string& key) {
        json j = json::parse(kOldFile);
        j.merge_patch(patch);
        try {
            LatentSession::fromJson(j);
            ADD_FAILURE() << patch.dump() << " was accepted";
        } catch (const ConfigError& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("'" + key + "'"), std::string::npos) << m;
            EXPECT_NE(m.find("[start, end]"), std::string::npos) << m;
            EXPECT_EQ(m.find('\n'), std::string::npos) << m;
        }
    };
    refused({{"t_range", 8}}, "t_range");
    refused({{"t_range", json::array({0})}}, "t_range");
    refused({{"t_range", json::array({0, 1, 2})}}, "t_range");
    refused({{"t_range", json::array({0, "8"})}}, "t_range");
    refused({{"t_range", json::array({0, 2e6})}}, "t_range");
    refused({{"t_range", json::array({-1e300, 0})}}, "t_range");
    refused({{"keyframes", json::parse(R"([{"seed": 1, "t_range": [0]}])")}}, "keyframes[0].t_range");
    refused({{"keyframes", json::parse(R"([{"seed": 1}, {"seed": 2, "t_range": {"start": 0}}])")}}, "keyframes[1].t_range");
    // validate() checks what an editor set (NaN and infinities never come from JSON).
    LatentSession s = seeds({1, 2});
    s.tRange = {0.0, std::numeric_limits<double>::quiet_NaN()};
    try {
        s.validate();
        ADD_FAILURE() << "NaN accepted";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("'t_range' is [0, NaN]"), std::string::npos) << e.what();
    }
    s.tRange = {};
    s.keyframes[1].tRange = WalkRule::TRange{-std::numeric_limits<double>::infinity(), 0.0};
    EXPECT_THROW(s.validate(), ConfigError);
    s.keyframes[1].tRange = WalkRule::TRange{-1e6, 1e6};  // the bounds themselves are allowed
    EXPECT_NO_THROW(s.validate());
    // An unknown keyframe key lists t_range among the known ones.
    try {
        LatentSession::fromJson(json::parse(R"({"keyframes": [{"seed": 1, "t": [0, 8]}]})"));
        ADD_FAILURE();
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("t_range"), std::string::npos) << e.what();
    }
}
