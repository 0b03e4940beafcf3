// Slerp against tests/python/slerp_ref.py (the reference formula in NumPy, float64) and its
// geometric properties; LatentSeed against PyTorch Python's torch.manual_seed + torch.randn; the
// reference project's walk (t = linspace(0, 8, 16), past both keyframes) as a session.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "base/latent/LatentSession.h"
#include "base/util/Errors.h"
#include "ml/latent/LatentSeed.h"
#include "ml/latent/SessionLatents.h"
#include "ml/latent/Slerp.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;

namespace {

bool hasPython(const std::string& modules) {
    const std::string cmd = std::string(STREETGAN_PYTHON) + " -c 'import " + modules + "' >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

int runRef(const std::string& args) {
    const std::string cmd = std::string(STREETGAN_PYTHON) + " " + STREETGAN_TEST_PYTHON_DIR + "/slerp_ref.py " + args;
    return std::system(cmd.c_str());
}

std::string slurp(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

void writeF32(const torch::Tensor& t, const std::string& p) {
    auto c = t.to(torch::kFloat).contiguous();
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(c.data_ptr<float>()), static_cast<std::streamsize>(c.numel() * 4));
}

double angleBetween(const torch::Tensor& a, const torch::Tensor& b) {
    auto x = a.flatten().to(torch::kDouble), y = b.flatten().to(torch::kDouble);
    return std::acos(std::clamp((x.dot(y) / (x.norm() * y.norm())).item<double>(), -1.0, 1.0));
}

}  // namespace

TEST(Slerp, MatchesNumpyReferenceFormula) {
    if (!hasPython("numpy")) GTEST_SKIP() << STREETGAN_PYTHON << " has no numpy";
    TempDir dir;
    torch::manual_seed(11);
    const torch::Tensor z0 = torch::randn({100}), z1 = torch::randn({100}) * 1.7;
    writeF32(z0, dir / "z0.f32");
    writeF32(z1, dir / "z1.f32");
    std::vector<double> ts;
    for (int i = 0; i <= 20; ++i) ts.push_back(i / 20.0);
    ts.push_back(-0.25);
    ts.push_back(1.5);
    {
        std::ofstream f(dir / "ts.txt");
        f.precision(17);
        for (double t : ts) f << t << "\n";
    }
    ASSERT_EQ(runRef("slerp " + dir.path().string()), 0);
    const std::string bytes = slurp(dir / "out.f64");
    ASSERT_EQ(bytes.size(), ts.size() * 100 * 8);
    torch::Tensor expected = torch::empty({static_cast<int64_t>(ts.size()), 100}, torch::kDouble);
    std::memcpy(expected.data_ptr<double>(), bytes.data(), bytes.size());

    const torch::Tensor got = Slerp::interpolate(z0, z1, ts);
    ASSERT_EQ(got.sizes(), (std::vector<int64_t>{static_cast<int64_t>(ts.size()), 100}));
    EXPECT_EQ(got.scalar_type(), torch::kFloat);
    EXPECT_LT((got.to(torch::kDouble) - expected).abs().max().item<double>(), 1e-5);
    for (size_t i = 0; i < ts.size(); ++i) {
        const torch::Tensor one = Slerp::interpolate(z0, z1, ts[i]);
        EXPECT_TRUE(torch::equal(one, got[static_cast<int64_t>(i)])) << "t = " << ts[i];
    }
}

TEST(Slerp, EndpointsAreTheInputsNotNormalised) {
    torch::manual_seed(1);
    const torch::Tensor z0 = torch::randn({1, 64, 1, 1}) * 3, z1 = torch::randn({1, 64, 1, 1}) * 0.5;
    const torch::Tensor p = Slerp::path(z0, z1, 9);
    ASSERT_EQ(p.sizes(), (std::vector<int64_t>{9, 1, 64, 1, 1}));
    EXPECT_TRUE(torch::allclose(p[0], z0, 1e-5, 1e-6));
    EXPECT_TRUE(torch::allclose(p[8], z1, 1e-5, 1e-6));
    EXPECT_EQ(Slerp::path(z0, z1, 1).size(0), 1);
    EXPECT_TRUE(torch::allclose(Slerp::path(z0, z1, 1)[0], z0));
}

TEST(Slerp, ConstantAngularSpeedOnTheUnitSphere) {
    torch::manual_seed(2);
    torch::Tensor z0 = torch::randn({128}), z1 = torch::randn({128});
    z0 /= z0.norm();
    z1 /= z1.norm();
    const double omega = Slerp::angle(z0, z1);
    EXPECT_NEAR(omega, angleBetween(z0, z1), 1e-6);
    const int frames = 17;
    const torch::Tensor p = Slerp::path(z0, z1, frames);
    for (int i = 0; i < frames; ++i) {
        EXPECT_NEAR(p[i].norm().item<double>(), 1.0, 1e-5) << i;
        EXPECT_NEAR(angleBetween(z0, p[i]), omega * i / (frames - 1), 1e-4) << i;
        if (i > 0) {
            EXPECT_NEAR(angleBetween(p[i - 1], p[i]), omega / (frames - 1), 1e-4) << i;
        }
    }
}

TEST(Slerp, NormIsKeptForEqualNormsAndStaysBetweenForOrthogonalOnes) {
    torch::manual_seed(3);
    torch::Tensor a = torch::randn({100}), b = torch::randn({100});
    a *= 10 / a.norm();
    b *= 10 / b.norm();
    for (double t : {0.1, 0.3, 0.5, 0.9}) EXPECT_NEAR(Slerp::interpolate(a, b, t).norm().item<double>(), 10.0, 1e-4);
    // Orthogonal, norms 1 and 3: |z(t)|^2 = cos^2(t pi/2) + 9 sin^2(t pi/2).
    torch::Tensor u = torch::zeros({4}), v = torch::zeros({4});
    u[0] = 1;
    v[1] = 3;
    for (double t : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        const double c = std::cos(t * M_PI / 2), s = std::sin(t * M_PI / 2);
        EXPECT_NEAR(Slerp::interpolate(u, v, t).norm().item<double>(), std::sqrt(c * c + 9 * s * s), 1e-6) << t;
    }
}

TEST(Slerp, ParallelAndOppositeVectorsFallBackToLinear) {
    const torch::Tensor z0 = torch::tensor({1.0f, 2.0f, 3.0f});
    const torch::Tensor twice = z0 * 2, opposite = -z0;
    for (double t : {0.0, 0.3, 1.0}) {
        const torch::Tensor p = Slerp::interpolate(z0, twice, t);
        EXPECT_TRUE(torch::allclose(p, z0 * (1 - t) + twice * t, 1e-6, 1e-6)) << t;
        const torch::Tensor q = Slerp::interpolate(z0, opposite, t);
        EXPECT_TRUE(torch::isfinite(q).all().item<bool>());
        EXPECT_TRUE(torch::allclose(q, z0 * (1 - t) + opposite * t, 1e-6, 1e-6)) << t;
    }
    EXPECT_NEAR(Slerp::angle(z0, twice), 0.0, 1e-3);
    EXPECT_NEAR(Slerp::angle(z0, opposite), M_PI, 1e-3);
}

TEST(Slerp, RejectsBadInputs) {
    EXPECT_THROW(Slerp::interpolate(torch::ones({3}), torch::ones({4}), 0.5), DataError);
    EXPECT_THROW(Slerp::interpolate(torch::zeros({3}), torch::ones({3}), 0.5), DataError);
    EXPECT_THROW(Slerp::interpolate(torch::ones({3}), torch::zeros({3}), 0.5), DataError);
    EXPECT_THROW(Slerp::interpolate(torch::ones({3}, torch::kLong), torch::ones({3}, torch::kLong), 0.5), DataError);
    EXPECT_THROW(Slerp::interpolate(torch::ones({0}), torch::ones({0}), 0.5), DataError);
    EXPECT_THROW(Slerp::path(torch::ones({3}), torch::ones({3}), 0), ConfigError);
    try {
        Slerp::interpolate(torch::ones({3}), torch::ones({4}), 0.5);
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("(3) and (4)"), std::string::npos) << e.what();
    }
}

TEST(LatentSeed, MatchesTorchManualSeedRandn) {
    if (!hasPython("torch, numpy")) GTEST_SKIP() << STREETGAN_PYTHON << " has no torch";
    TempDir dir;
    struct Case {
        uint64_t seed;
        int64_t nz, count;
    };
    for (const Case c : {Case{0, 100, 0}, Case{42, 100, 16}, Case{7, 64, 2}, Case{123456789, 7, 0}}) {
        ASSERT_EQ(runRef("seed " + dir.path().string() + " " + std::to_string(c.seed) + " " + std::to_string(c.nz) + " " + std::to_string(c.count)), 0);
        const std::string bytes = slurp(dir / "seed.f32");
        const torch::Tensor z = c.count == 0 ? LatentSeed::draw(c.seed, c.nz) : LatentSeed::draw(c.seed, c.nz, c.count);
        ASSERT_EQ(bytes.size(), static_cast<size_t>(z.numel() * 4));
        EXPECT_EQ(std::memcmp(z.contiguous().data_ptr<float>(), bytes.data(), bytes.size()), 0) << "seed " << c.seed;
        if (c.count == 0)
            EXPECT_EQ(z.sizes(), (std::vector<int64_t>{c.nz}));
        else
            EXPECT_EQ(z.sizes(), (std::vector<int64_t>{c.count, c.nz, 1, 1}));
    }
}

TEST(LatentSeed, DeterministicAndIndependentOfTheGlobalGenerator) {
    torch::manual_seed(1);
    const torch::Tensor a = LatentSeed::draw(5, 100);
    torch::manual_seed(2);
    torch::randn({10});
    EXPECT_TRUE(torch::equal(a, LatentSeed::draw(5, 100)));
    EXPECT_FALSE(torch::equal(a, LatentSeed::draw(6, 100)));
    EXPECT_THROW(LatentSeed::draw(1, 0), ConfigError);
    EXPECT_THROW(LatentSeed::draw(1, 10, 0), ConfigError);
}

TEST(Slerp, ReferenceWalkSessionIsSlerpAtLinspace0To8) {
    // The session of the reference's walk: every frame is exactly Slerp::interpolate(z0, z1, t_i)
    // with t_i = 8 i / 15 (torch.linspace(0, 8, 16)), past z1 and round the circle.
    LatentSession s;
    s.makeReferenceWalk(21, 22);
    const int64_t nz = 100;
    const std::vector<at::Tensor> ks = SessionLatents::keyframeLatents(s, nz);
    const LatentPath path = SessionLatents::path(s, nz);
    ASSERT_EQ(path.frameCount(), 16);
    const at::Tensor all = SessionLatents::latents(s, nz, nullptr);
    ASSERT_EQ(all.sizes(), (std::vector<int64_t>{16, nz, 1, 1}));
    for (int64_t i = 0; i < 16; ++i) {
        const double t = 8.0 * static_cast<double>(i) / 15.0;
        EXPECT_DOUBLE_EQ(path.frameT(i), t) << i;
        EXPECT_EQ(path.frameT(i), s.frameT(i)) << i;
        const at::Tensor expected = Slerp::interpolate(ks[0], ks[1], path.frameT(i));
        EXPECT_TRUE(torch::equal(path.frame(i), expected)) << i;
        EXPECT_TRUE(torch::equal(all[i].reshape({-1}), expected)) << i;
        EXPECT_TRUE(torch::allclose(path.frame(i), Slerp::interpolate(ks[0], ks[1], t), 1e-6, 1e-6)) << i;
    }
    EXPECT_TRUE(torch::equal(path.frame(0), ks[0]));
    // Past t = 1 the walk leaves the arc between the keyframes: it comes back near z0 once the
    // angle walked is a full turn (t = 2 pi / omega), which t = 8 passes for random latents.
    const double omega = Slerp::angle(ks[0], ks[1]);
    ASSERT_LT(2 * M_PI / omega, 8.0);
    double closest = 1e9;
    for (int64_t i = 2; i < 16; ++i) closest = std::min(closest, angleBetween(path.frame(i), ks[0]));
    EXPECT_LT(closest, omega);
    // The default range of the same keyframes ends on z1 itself.
    LatentSession d = s;
    d.tRange = {};
    EXPECT_TRUE(torch::equal(SessionLatents::path(d, nz).frame(15), ks[1]));
    EXPECT_FALSE(torch::allclose(path.frame(15), ks[1], 1e-3, 1e-3));
}

TEST(Slerp, ReferenceWalkMatchesTheReferenceProjectInPython) {
    if (!hasPython("torch, numpy")) GTEST_SKIP() << STREETGAN_PYTHON << " has no torch";
    TempDir dir;
    LatentSession s;
    s.makeReferenceWalk(3, 4);
    const int64_t nz = 256;  // the reference's TrainingConfig.nz
    const std::vector<at::Tensor> ks = SessionLatents::keyframeLatents(s, nz);
    writeF32(ks[0], dir / "z0.f32");
    writeF32(ks[1], dir / "z1.f32");
    ASSERT_EQ(runRef("walk " + dir.path().string() + " " + std::to_string(LatentSession::kReferenceFrames)), 0);
    const std::string ratios = slurp(dir / "ratios.f64"), walk = slurp(dir / "walk.f32");
    ASSERT_EQ(ratios.size(), 16u * 8);
    ASSERT_EQ(walk.size(), static_cast<size_t>(16 * nz * 4));
    std::vector<double> ref(16);
    std::memcpy(ref.data(), ratios.data(), ratios.size());
    torch::Tensor expected = torch::empty({16, nz}, torch::kFloat);
    std::memcpy(expected.data_ptr<float>(), walk.data(), walk.size());

    const at::Tensor ours = SessionLatents::latents(s, nz, nullptr).reshape({16, nz});
    for (int64_t i = 0; i < 16; ++i) EXPECT_NEAR(s.frameT(i), ref[static_cast<size_t>(i)], 1e-6) << i;  // float32 linspace
    EXPECT_EQ(ref.back(), 8.0);
    // The reference computes in float32 (and its t are float32): agreement to float32 rounding,
    // growing with t.
    const double err = (ours - expected).abs().max().item<double>();
    EXPECT_LT(err, 1e-4) << "max |ours - reference| " << err;
    EXPECT_GT(expected.abs().max().item<double>(), 0.5);
}
