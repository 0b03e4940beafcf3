// Latent explorer core: easing curves, keyframe paths (docs/cli.md's frame-count rule, loop closure),
// truncation, PCA directions (orthonormal; the top one found on a synthetic case with a known
// answer) and the session file (round trip, refused values naming the key).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "base/latent/Easing.h"
#include "base/latent/LatentSession.h"
#include "base/model/Presets.h"
#include "base/util/Errors.h"
#include "ml/latent/LatentPath.h"
#include "ml/latent/LatentSeed.h"
#include "ml/latent/PcaDirections.h"
#include "ml/latent/SessionLatents.h"
#include "ml/latent/Slerp.h"
#include "ml/latent/Truncation.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;

TEST(Easing, EndpointsMonotoneAndSymmetric) {
    for (const auto& name : Easing::names()) {
        const Easing::Kind k = Easing::parse(name);
        EXPECT_EQ(Easing::name(k), name);
        EXPECT_DOUBLE_EQ(Easing::apply(k, 0.0), 0.0) << name;
        EXPECT_DOUBLE_EQ(Easing::apply(k, 1.0), 1.0) << name;
        double prev = 0;
        for (int i = 1; i <= 1000; ++i) {
            const double v = Easing::apply(k, i / 1000.0);
            EXPECT_GE(v, prev) << name << " at " << i;
            prev = v;
        }
    }
    for (int i = 0; i <= 100; ++i) {
        const double t = i / 100.0;
        EXPECT_NEAR(Easing::apply(Easing::Kind::EaseInOut, 1 - t), 1 - Easing::apply(Easing::Kind::EaseInOut, t), 1e-12);
        EXPECT_NEAR(Easing::apply(Easing::Kind::EaseOut, t), 1 - Easing::apply(Easing::Kind::EaseIn, 1 - t), 1e-12);
    }
    EXPECT_DOUBLE_EQ(Easing::apply(Easing::Kind::EaseInOut, 0.5), 0.5);
    EXPECT_LT(Easing::apply(Easing::Kind::EaseIn, 0.25), 0.25);
    EXPECT_GT(Easing::apply(Easing::Kind::EaseOut, 0.25), 0.25);
    try {
        Easing::parse("bounce");
        FAIL();
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("ease-in-out"), std::string::npos);
    }
}

TEST(LatentPath, FrameCountsOfCliExample) {
    EXPECT_EQ(LatentPath::frameCount(3, 8, true), 24);
    EXPECT_EQ(LatentPath::frameCount(3, 8, false), 17);
    EXPECT_EQ(LatentPath::frameCount(1, 8, true), 8);
    EXPECT_EQ(LatentPath::frameCount(1, 8, false), 1);
    std::vector<at::Tensor> ks{LatentSeed::draw(1, 16), LatentSeed::draw(2, 16), LatentSeed::draw(3, 16)};
    LatentPath::Options o;
    EXPECT_EQ(LatentPath(ks, o).frames().sizes(), (std::vector<int64_t>{24, 16, 1, 1}));
    o.loop = false;
    LatentPath open(ks, o);
    ASSERT_EQ(open.frameCount(), 17);
    EXPECT_TRUE(open.frame(16).equal(ks[2]));
    EXPECT_THROW(open.frame(17), ConfigError);
}

TEST(LatentPath, LoopClosesOnFirstKeyframeAndMatchesSlerp) {
    std::vector<at::Tensor> ks{LatentSeed::draw(1, 32), LatentSeed::draw(2, 32), LatentSeed::draw(3, 32)};
    LatentPath::Options o;
    o.framesPerSegment = 8;
    o.loop = true;
    LatentPath p(ks, o);
    EXPECT_TRUE(p.frame(p.frameCount()).equal(ks[0]));  // the frame after the last
    EXPECT_TRUE(p.frame(0).equal(ks[0]));
    EXPECT_TRUE(p.frame(8).equal(ks[1]));
    EXPECT_TRUE(p.frame(16).equal(ks[2]));
    // Frame 20: segment 2 (k2 -> k0) at t = 4/8, the reference SLERP.
    EXPECT_TRUE(torch::allclose(p.frame(20), Slerp::interpolate(ks[2], ks[0], 0.5), 1e-6, 1e-6));
    // The last frame sits just before keyframe 0 on the returning segment.
    EXPECT_TRUE(torch::allclose(p.frame(23), Slerp::interpolate(ks[2], ks[0], 7.0 / 8), 1e-6, 1e-6));
    at::Tensor all = p.frames();
    for (int64_t i = 0; i < p.frameCount(); ++i) EXPECT_TRUE(all[i].reshape({-1}).equal(p.frame(i)));
}

TEST(LatentPath, EasingAndLinearInterpolation) {
    std::vector<at::Tensor> ks{torch::zeros({4}) + 1, torch::zeros({4}) + 3};
    LatentPath::Options o;
    o.interpolation = LatentPath::Interpolation::Linear;
    o.easing = Easing::Kind::EaseInOut;
    o.framesPerSegment = 4;
    o.loop = false;
    LatentPath p(ks, o);
    const double e = Easing::apply(Easing::Kind::EaseInOut, 0.25);
    EXPECT_NEAR(p.frame(1)[0].item<double>(), 1 + 2 * e, 1e-6);
    EXPECT_NEAR(p.frame(2)[0].item<double>(), 2.0, 1e-6);
    o.segmentEasing = {Easing::Kind::EaseIn};
    EXPECT_NEAR(LatentPath(ks, o).frame(1)[0].item<double>(), 1 + 2 * std::pow(0.25, 3), 1e-6);
    // A zero keyframe under SLERP falls back to the linear blend instead of failing.
    LatentPath::Options so;
    so.framesPerSegment = 2;
    so.loop = false;
    EXPECT_TRUE(torch::allclose(LatentPath({torch::zeros({4}), torch::ones({4}) * 2}, so).frame(1), torch::ones({4})));
    EXPECT_THROW(LatentPath({torch::ones({4}), torch::ones({5})}, o), ConfigError);
    o.framesPerSegment = 0;
    EXPECT_THROW(LatentPath(ks, o), ConfigError);
}

TEST(LatentPath, TRangesExtrapolateAndKeepDefaultFramesUnchanged) {
    // Linear interpolation makes t visible: 1 + 2 t between the keyframes 1 and 3.
    std::vector<at::Tensor> ks{torch::zeros({4}) + 1, torch::zeros({4}) + 3, torch::zeros({4}) + 7};
    LatentPath::Options o;
    o.interpolation = LatentPath::Interpolation::Linear;
    o.framesPerSegment = 4;
    o.loop = false;
    o.range = {-1.0, 3.0};
    o.segmentRange = {{-1.0, 3.0}, {0.0, 1.0}};
    LatentPath p(ks, o);
    ASSERT_EQ(p.frameCount(), 9);
    EXPECT_NEAR(p.frame(0)[0].item<double>(), -1.0, 1e-6);  // t = -1: before keyframe 0
    EXPECT_NEAR(p.frame(1)[0].item<double>(), 1.0, 1e-6);   // t = 0: keyframe 0 itself
    EXPECT_TRUE(p.frame(1).equal(ks[0]));
    EXPECT_NEAR(p.frame(3)[0].item<double>(), 5.0, 1e-6);  // t = 2: past keyframe 1
    EXPECT_TRUE(p.frame(4).equal(ks[1]));                  // segment 1 keeps [0, 1]
    EXPECT_TRUE(p.frame(8).equal(ks[2]));
    EXPECT_DOUBLE_EQ(p.frameT(3), 2.0);
    // A loop with the default range is what it always was: keyframes exact, SLERP in between.
    std::vector<at::Tensor> zs{LatentSeed::draw(1, 16), LatentSeed::draw(2, 16)};
    LatentPath::Options d;
    d.framesPerSegment = 3;
    LatentPath loop(zs, d);
    EXPECT_TRUE(loop.frame(3).equal(zs[1]));
    EXPECT_TRUE(loop.frame(1).equal(Slerp::interpolate(zs[0], zs[1], 1.0 / 3)));
    // SLERP past t = 1 follows the same circle (Slerp extrapolates); a backwards range reverses.
    d.range = {1.0, 0.0};
    LatentPath back(zs, d);
    EXPECT_TRUE(back.frame(0).equal(zs[1]));
    EXPECT_TRUE(back.frame(1).equal(Slerp::interpolate(zs[0], zs[1], 1.0 - 1.0 / 3)));
    d.range = {0.0, std::nan("")};
    EXPECT_THROW(LatentPath(zs, d), ConfigError);
}

TEST(Truncation, ScalesTowardsTheMean) {
    at::Tensor z = LatentSeed::draw(5, 8, 3);
    EXPECT_TRUE(Truncation::apply(z, 1.0).equal(z));
    EXPECT_TRUE(torch::allclose(Truncation::apply(z, 0.5), z * 0.5));
    EXPECT_TRUE(Truncation::apply(z, 0.0).abs().max().item<float>() == 0.f);
    at::Tensor mean = torch::ones({8});
    at::Tensor t = Truncation::apply(z, 0.25, mean);
    EXPECT_TRUE(torch::allclose(t, mean.view({1, 8, 1, 1}) + 0.25 * (z - mean.view({1, 8, 1, 1})), 1e-6, 1e-6));
    EXPECT_THROW(Truncation::apply(z, 3.0), ConfigError);
    EXPECT_THROW(Truncation::apply(z, std::nan("")), ConfigError);
    EXPECT_LT(Truncation::sampledMean(8, 10000, 1).abs().max().item<float>(), 0.05f);
}

TEST(PcaDirections, SyntheticKnownAnswer) {
    // Activations are a rotated image of z stretched 5x along z-axis 2, 3x along axis 0 and 1x
    // along axis 1: the directions must be e2, e0, e1 in that order (up to sign; the sample
    // covariance of 3000 draws is only approximately the identity, hence 0.99).
    const int64_t n = 3000, nz = 6;
    at::Tensor z = LatentSeed::draw(11, nz, n).reshape({n, nz});
    at::Tensor scale = torch::tensor({3.0f, 1.0f, 5.0f, 0.5f, 0.7f, 0.3f});
    at::Tensor rot = std::get<0>(at::linalg_qr(LatentSeed::draw(12, 10 * nz).reshape({10, nz}), "reduced")).t();  // (nz, 10) orthonormal rows
    at::Tensor acts = at::matmul(z * scale, rot);                                                                 // (n, 10)
    PcaDirections d = PcaDirections::fromSamples(acts, z, 3);
    ASSERT_EQ(d.directions().sizes(), (std::vector<int64_t>{3, nz}));
    at::Tensor gram = at::matmul(d.directions(), d.directions().t());
    EXPECT_TRUE(torch::allclose(gram, torch::eye(3), 1e-5, 1e-5));
    EXPECT_GT(std::abs(d.directions()[0][2].item<float>()), 0.99f);
    EXPECT_GT(std::abs(d.directions()[1][0].item<float>()), 0.99f);
    EXPECT_GT(std::abs(d.directions()[2][1].item<float>()), 0.99f);
    EXPECT_NEAR(d.sigma()[0].item<float>(), 1.0f, 0.1f);
    // apply: amount * sigma along the direction.
    at::Tensor z0 = torch::zeros({nz});
    at::Tensor moved = d.apply(z0, {{0, 2.0}});
    EXPECT_TRUE(torch::allclose(moved, d.directions()[0] * 2 * d.sigma()[0], 1e-6, 1e-6));
    EXPECT_THROW(d.apply(z0, {{3, 1.0}}), ConfigError);
}

TEST(PcaDirections, GeneratorFirstBlockOrthonormalAndCached) {
    torch::manual_seed(0);
    Generator g(Presets::get("tiny-32"));
    g->eval();
    PcaDirections::Options o;
    o.samples = 300;
    o.components = 5;
    PcaDirections d = PcaDirections::compute(g, o);
    at::Tensor gram = at::matmul(d.directions(), d.directions().t());
    EXPECT_TRUE(torch::allclose(gram, torch::eye(5), 1e-4, 1e-4));
    TempDir dir;
    PcaDirections c1 = PcaDirections::cached(g, std::string(64, 'a'), o, dir.path().string());
    EXPECT_TRUE(c1.directions().equal(d.directions()));
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
    PcaDirections c2 = PcaDirections::cached(g, std::string(64, 'a'), o, dir.path().string());
    EXPECT_TRUE(c2.directions().equal(d.directions()));
}

namespace {

LatentSession sample() {
    LatentSession s;
    s.checkpoint = "ck.pt";
    s.checkpointSha256 = std::string(64, 'b');
    s.keyframes.push_back({1, {}, std::nullopt});
    s.keyframes.push_back({std::nullopt, {0.1, -0.3, 1e-7, 2.5}, Easing::Kind::EaseOut});
    s.keyframes.push_back({uint64_t{9007199254740993ull}, {}, std::nullopt});
    s.easing = Easing::Kind::EaseInOut;
    s.interpolation = LatentPath::Interpolation::Linear;
    s.framesPerSegment = 5;
    s.loop = false;
    s.size = 96;
    s.frameDelayMs = 40;
    s.truncation = 0.7;
    s.directions = {{0, 1.5}, {2, -0.25}};
    s.upscale = LatentSession::Upscale::Smooth;
    s.extra["app_note"] = "kept";
    return s;
}

}  // namespace

TEST(LatentSession, RoundTripsExactly) {
    TempDir dir;
    const LatentSession s = sample();
    s.write(dir / "s.json");
    const LatentSession r = LatentSession::read(dir / "s.json");
    EXPECT_TRUE(r == s);
    EXPECT_EQ(r.keyframes, s.keyframes);
    EXPECT_EQ(r.directions, s.directions);
    EXPECT_EQ(r.extra["app_note"], "kept");
    r.write(dir / "t.json");
    std::ifstream a(dir / "s.json"), b(dir / "t.json");
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}), std::string(std::istreambuf_iterator<char>(b), {}));
}

TEST(LatentSession, CliExampleParses) {
    const auto j = nlohmann::json::parse(R"({"checkpoint": "PATH", "checkpoint_sha256": "",
      "keyframes": [{"seed": 1}, {"seed": 2}, {"z": [0.1, -0.3, 0.2, 0.0]}],
      "interpolation": "slerp", "easing": "ease-in-out", "frames_per_segment": 8, "loop": true, "size": 128,
      "frame_delay_ms": 80, "truncation": 1.0, "directions": [{"index": 0, "amount": 1.5}]})");
    const LatentSession s = LatentSession::fromJson(j);
    EXPECT_EQ(s.frameCount(), 24);
    EXPECT_THROW(SessionLatents::keyframeLatents(s, 8), ConfigError);  // the z keyframe has 4 values
    EXPECT_EQ(SessionLatents::keyframeLatents(s, 4).size(), 3u);
    EXPECT_TRUE(SessionLatents::keyframeLatents(s, 4)[0].equal(LatentSeed::draw(1, 4)));
}

TEST(LatentSession, BadValuesNameTheKey) {
    auto expectRefused = [](const std::string& key, const nlohmann::json& value, const std::string& needle) {
        nlohmann::json j = sample().toJson();
        j[key] = value;
        try {
            LatentSession::fromJson(j);
            ADD_FAILURE() << key << " = " << value.dump() << " was accepted";
        } catch (const ConfigError& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("'" + key), std::string::npos) << m;
            EXPECT_NE(m.find(needle), std::string::npos) << m;
        }
    };
    expectRefused("size", 100000, "8..2048");
    expectRefused("frames_per_segment", 0, "1..1000");
    expectRefused("interpolation", "cubic", "slerp or linear");
    expectRefused("easing", "bounce", "ease-in-out");
    expectRefused("truncation", -1, "0..2");
    expectRefused("frame_delay_ms", "80", "integer");
    expectRefused("loop", 1, "true or false");
    expectRefused("upscale", "bilinear", "nearest or smooth");
    expectRefused("keyframes", nlohmann::json::array(), "1..1000");
    expectRefused("keyframes", nlohmann::json::parse(R"([{"seed": 1, "z": [1]}])"), "exactly one");
    expectRefused("directions", nlohmann::json::parse(R"([{"index": 12, "amount": 1}])"), "pca_components");
    expectRefused("checkpoint_sha256", "xyz", "64 hex");
    expectRefused("gif_speed", 11, "1..10");
    expectRefused("nrow", 0, "1..1024");
}

TEST(LatentSession, HashWarningAndCheckpointResolution) {
    LatentSession s = sample();
    EXPECT_EQ(s.hashWarning("ck.pt", std::string(64, 'b')), "");
    EXPECT_NE(s.hashWarning("ck.pt", std::string(64, 'c')).find("ck.pt"), std::string::npos);
    s.checkpointSha256.clear();
    EXPECT_EQ(s.hashWarning("ck.pt", std::string(64, 'c')), "");
    EXPECT_EQ(s.resolveCheckpoint("/a/b/walk.json"), "/a/b/ck.pt");
    EXPECT_EQ(s.resolveCheckpoint("/a/b/walk.json", "other.pt"), "other.pt");
}

TEST(LatentSession, LatentsApplyTruncationThenDirections) {
    LatentSession s = sample();
    s.directions.clear();
    s.truncation = 0.5;
    const at::Tensor z = SessionLatents::latents(s, 4, nullptr);
    EXPECT_TRUE(torch::allclose(z, SessionLatents::path(s, 4).frames() * 0.5));
    s.directions = {{0, 1.0}};
    EXPECT_THROW(SessionLatents::latents(s, 4, nullptr), ConfigError);
    PcaDirections d(torch::eye(4).narrow(0, 0, 2), torch::full({2}, 2.0f));
    const at::Tensor moved = SessionLatents::latents(s, 4, &d);
    at::Tensor expected = SessionLatents::path(s, 4).frames() * 0.5;
    expected.select(1, 0).add_(2.0);
    EXPECT_TRUE(torch::allclose(moved, expected, 1e-6, 1e-6));
}
