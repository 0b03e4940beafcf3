// FrechetDistance, KernelInceptionDistance and PrecisionRecall against tests/python/fid_ref.py
// (SciPy's sqrtm formula of clean-fid / pytorch-fid, torch-fidelity's mmd2, a brute-force k-NN
// precision/recall), plus cases with known answers; ContentHash against FIPS 180-4 test vectors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>

#include <torch/torch.h>

#include "MetricsTestUtil.h"
#include "base/run/QualityMetric.h"
#include "base/util/ContentHash.h"
#include "base/util/Errors.h"
#include "ml/eval/FeatureMetric.h"
#include "ml/eval/FrechetDistance.h"
#include "ml/eval/KernelInceptionDistance.h"
#include "ml/eval/PrecisionRecall.h"

using namespace streetgan;
using namespace streetgan::test;

namespace {

// n correlated Gaussian features in d dimensions: N(0, 1) mixed by a random matrix, shifted.
torch::Tensor correlated(int64_t n, int64_t d, double scale, double shift) {
    auto mix = torch::randn({d, d}) * scale;
    return torch::matmul(torch::randn({n, d}), mix) + shift + torch::rand({d});
}

}  // namespace

TEST(ContentHash, Sha256TestVectors) {
    EXPECT_EQ(ContentHash::sha256(std::string("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(ContentHash::sha256(std::string()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(ContentHash::sha256(std::string("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const std::string million(1000000, 'a');
    EXPECT_EQ(ContentHash::sha256(million), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

    // A file read in 1 MiB pieces hashes like the same bytes in one piece (2.5 MiB, odd tail).
    TempDir dir;
    std::string bytes;
    for (int i = 0; i < (5 << 19) + 77; ++i) bytes.push_back(static_cast<char>((i * 131) ^ (i >> 9)));
    std::ofstream(dir.file("blob"), std::ios::binary) << bytes;
    EXPECT_EQ(ContentHash::sha256File(dir.file("blob")), ContentHash::sha256(bytes));
    EXPECT_THROW(ContentHash::sha256File(dir.file("missing")), IoError);
}

TEST(FrechetDistance, MatchesScipySqrtmFormula) {
    if (!pythonHas("numpy, scipy")) GTEST_SKIP() << STREETGAN_PYTHON << " has no numpy/scipy";
    TempDir dir;
    torch::manual_seed(21);
    struct Case {
        torch::Tensor a, b;
    };
    std::vector<Case> cases = {
        {correlated(400, 16, 1.0, 0.0), correlated(300, 16, 0.7, 0.5)},  // different covariances and means
        {correlated(600, 64, 0.3, 1.0), correlated(500, 64, 0.3, 1.2)},  // close distributions, small FID
        {correlated(200, 8, 2.0, 0.0), correlated(200, 8, 2.0, 0.0)},    // same law, different draws
    };
    std::ofstream manifest(dir.file("manifest.txt"));
    for (size_t i = 0; i < cases.size(); ++i) {
        const std::string p = dir.file("fid" + std::to_string(i));
        writeRaw(cases[i].a, p + ".a.bin");
        writeRaw(cases[i].b, p + ".b.bin");
        manifest << "fid " << p << ".a.bin " << cases[i].a.size(0) << ' ' << p << ".b.bin " << cases[i].b.size(0) << ' ' << cases[i].a.size(1) << ' ' << p
                 << ".out\n";
    }
    manifest.close();
    ASSERT_TRUE(runPython("fid_ref.py '" + dir.file("manifest.txt") + "'"));
    for (size_t i = 0; i < cases.size(); ++i) {
        SCOPED_TRACE("case " + std::to_string(i));
        const auto want = readDoubles(dir.file("fid" + std::to_string(i)) + ".out");
        ASSERT_EQ(want.size(), 3u);
        const FeatureStatistics a = FrechetDistance::statistics(cases[i].a), b = FrechetDistance::statistics(cases[i].b);
        EXPECT_EQ(a.mu.scalar_type(), torch::kDouble);
        EXPECT_EQ(a.count, cases[i].a.size(0));
        const double fid = FrechetDistance::distance(a, b);
        EXPECT_GT(fid, 0.0);
        // ~1e-6 relative to the FID, and the trace term on its own scale.
        EXPECT_LE(std::abs(fid - want[0]), 1e-6 * std::abs(want[0])) << "got " << fid << ", want " << want[0];
        EXPECT_TRUE(relClose(FrechetDistance::traceSqrtProduct(a.sigma, b.sigma), want[1], 1e-9));
    }
}

TEST(FrechetDistance, IdenticalSetsGiveZeroAndSingularCovariancesStayFinite) {
    torch::manual_seed(4);
    auto x = correlated(300, 32, 1.0, 2.0);
    const auto s = FrechetDistance::statistics(x);
    EXPECT_NEAR(FrechetDistance::distance(s, s), 0.0, 1e-8 * s.sigma.trace().item<double>());
    // Fewer samples than dimensions (rank-deficient covariances, as 2,000 Inception features of 2,048
    // dimensions are): real, finite, non-negative.
    const auto a = FrechetDistance::statistics(correlated(10, 40, 1.0, 0.0));
    const auto b = FrechetDistance::statistics(correlated(12, 40, 1.0, 0.3));
    const double fid = FrechetDistance::distance(a, b);
    EXPECT_TRUE(std::isfinite(fid));
    EXPECT_GE(fid, -1e-9);
    // Mean shift only: FID is exactly the squared distance of the means.
    const auto shifted = FrechetDistance::statistics(x + 3.0);
    EXPECT_NEAR(FrechetDistance::distance(s, shifted), 32 * 9.0, 1e-6);
}

TEST(FrechetDistance, RejectsBadInput) {
    EXPECT_THROW(FrechetDistance::statistics(torch::rand({1, 4})), DataError);
    EXPECT_THROW(FrechetDistance::statistics(torch::rand({5})), DataError);
    EXPECT_THROW(FrechetDistance::statistics(torch::ones({5, 3}, torch::kLong)), DataError);
    auto bad = torch::rand({5, 3});
    bad[1][1] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(FrechetDistance::statistics(bad), DataError);
    EXPECT_THROW(FrechetDistance::distance(FrechetDistance::statistics(torch::rand({5, 3})), FrechetDistance::statistics(torch::rand({5, 4}))), DataError);
}

TEST(KernelInceptionDistance, MatchesNumpyMmd2) {
    if (!pythonHas("numpy, scipy")) GTEST_SKIP() << STREETGAN_PYTHON << " has no numpy/scipy";
    TempDir dir;
    torch::manual_seed(8);
    std::vector<std::pair<torch::Tensor, torch::Tensor>> cases = {
        {torch::rand({120, 16}) * 2, torch::rand({120, 16}) * 2 + 0.1},
        {correlated(90, 48, 0.2, 0.5).clamp_min(0), correlated(90, 48, 0.25, 0.4).clamp_min(0)},
    };
    std::ofstream manifest(dir.file("manifest.txt"));
    for (size_t i = 0; i < cases.size(); ++i) {
        const std::string p = dir.file("kid" + std::to_string(i));
        writeRaw(cases[i].first, p + ".a.bin");
        writeRaw(cases[i].second, p + ".b.bin");
        manifest << "kid " << p << ".a.bin " << cases[i].first.size(0) << ' ' << p << ".b.bin " << cases[i].second.size(0) << ' ' << cases[i].first.size(1)
                 << ' ' << p << ".out\n";
    }
    manifest.close();
    ASSERT_TRUE(runPython("fid_ref.py '" + dir.file("manifest.txt") + "'"));
    for (size_t i = 0; i < cases.size(); ++i) {
        SCOPED_TRACE("case " + std::to_string(i));
        const auto want = readDoubles(dir.file("kid" + std::to_string(i)) + ".out");
        ASSERT_EQ(want.size(), 1u);
        // The float32 features are the same numbers in both; the estimator is float64 in both.
        const auto a = cases[i].first.to(torch::kDouble), b = cases[i].second.to(torch::kDouble);
        EXPECT_NEAR(KernelInceptionDistance::mmd2Unbiased(a, b), want[0], 1e-10 * std::max(1.0, std::abs(want[0])));
        // One subset of the whole sets (a permutation of each) is the same estimate.
        const KidResult r = KernelInceptionDistance::compute(cases[i].first, cases[i].second, 1, 100000);
        EXPECT_EQ(r.subsetSize, a.size(0));
        EXPECT_NEAR(r.mean, want[0], 1e-10 * std::max(1.0, std::abs(want[0])));
        EXPECT_DOUBLE_EQ(r.std, 0.0);
    }
}

TEST(KernelInceptionDistance, SubsetsAreReproducibleAndSummarised) {
    torch::manual_seed(9);
    auto real = torch::rand({200, 10}), fake = torch::rand({150, 10}) + 0.2;
    const KidResult r = KernelInceptionDistance::compute(real, fake, 30, 50, 7);
    ASSERT_EQ(r.values.size(), 30u);
    EXPECT_EQ(r.subsets, 30);
    EXPECT_EQ(r.subsetSize, 50);
    double mean = 0, sq = 0;
    for (double v : r.values) mean += v / 30.0;
    for (double v : r.values) sq += (v - mean) * (v - mean) / 30.0;
    EXPECT_NEAR(r.mean, mean, 1e-15);
    EXPECT_NEAR(r.std, std::sqrt(sq), 1e-15);
    EXPECT_GT(r.std, 0.0);
    EXPECT_GT(r.mean, 0.0);  // shifted distributions
    const KidResult again = KernelInceptionDistance::compute(real, fake, 30, 50, 7);
    EXPECT_EQ(again.values, r.values);
    EXPECT_NE(KernelInceptionDistance::compute(real, fake, 30, 50, 8).values, r.values);
    // Subset values are MMD^2_u of some 50-row subsets: the same as the per-subset path (large
    // sets skip the precomputed Gram matrices; small ones use them, so compare the two here).
    for (int64_t k = 0; k < 3; ++k) {
        auto ix = torch::randperm(200).narrow(0, 0, 50), iy = torch::randperm(150).narrow(0, 0, 50);
        const double v = KernelInceptionDistance::mmd2Unbiased(real.index_select(0, ix), fake.index_select(0, iy));
        EXPECT_TRUE(std::isfinite(v));
    }
    // Subset size clamped to the smaller set (clean-fid's min(n1, n2, max_subset_size)).
    EXPECT_EQ(KernelInceptionDistance::compute(real, fake, 2, 1000).subsetSize, 150);
    // Same law: the unbiased estimate centres on 0.
    const KidResult same = KernelInceptionDistance::compute(torch::rand({400, 10}), torch::rand({400, 10}), 20, 200);
    EXPECT_LT(std::abs(same.mean), std::abs(r.mean) / 5);
}

TEST(KernelInceptionDistance, RejectsBadInput) {
    EXPECT_THROW(KernelInceptionDistance::compute(torch::rand({1, 3}), torch::rand({5, 3})), DataError);
    EXPECT_THROW(KernelInceptionDistance::compute(torch::rand({5, 3}), torch::rand({5, 4})), DataError);
    EXPECT_THROW(KernelInceptionDistance::compute(torch::rand({5, 3}), torch::rand({5, 3}), 0), ConfigError);
    EXPECT_THROW(KernelInceptionDistance::compute(torch::rand({5, 3}), torch::rand({5, 3}), 10, 1), ConfigError);
    EXPECT_THROW(KernelInceptionDistance::mmd2Unbiased(torch::rand({5, 3}), torch::rand({6, 3})), DataError);
}

TEST(PrecisionRecall, KnownAnswers) {
    torch::manual_seed(12);
    auto real = torch::randn({200, 8});
    // Identical sets: every point sits on a point of the other manifold.
    auto same = PrecisionRecall::compute(real, real.clone());
    EXPECT_DOUBLE_EQ(same.precision, 1.0);
    EXPECT_DOUBLE_EQ(same.recall, 1.0);
    EXPECT_EQ(same.k, 3);
    // Disjoint clusters far apart: nothing of one lies in the other.
    auto far = PrecisionRecall::compute(real, torch::randn({150, 8}) + 1000.0);
    EXPECT_DOUBLE_EQ(far.precision, 0.0);
    EXPECT_DOUBLE_EQ(far.recall, 0.0);
    // Half the generated points copy real ones, half are far away: precision exactly 0.5. Recall:
    // the copied half covers at least those 100 real points.
    auto half = torch::cat({real.narrow(0, 0, 100), torch::randn({100, 8}) + 1000.0});
    auto mixed = PrecisionRecall::compute(real, half);
    EXPECT_DOUBLE_EQ(mixed.precision, 0.5);
    EXPECT_GE(mixed.recall, 0.5);
    EXPECT_LT(mixed.recall, 1.0);
    // Mode collapse: the generated set is one tight blob at the real mean: high precision, low recall.
    auto collapsed = PrecisionRecall::compute(real, torch::randn({200, 8}) * 0.01);
    EXPECT_GT(collapsed.precision, 0.9);
    EXPECT_LT(collapsed.recall, 0.1);
}

TEST(PrecisionRecall, MatchesBruteForceReference) {
    if (!pythonHas("numpy, scipy")) GTEST_SKIP() << STREETGAN_PYTHON << " has no numpy/scipy";
    TempDir dir;
    torch::manual_seed(13);
    auto real = torch::randn({180, 6}), fake = torch::randn({160, 6}) * 1.3 + 0.4;
    writeRaw(real, dir.file("r.bin"));
    writeRaw(fake, dir.file("f.bin"));
    std::ofstream(dir.file("manifest.txt")) << "pr " << dir.file("r.bin") << " 180 " << dir.file("f.bin") << " 160 6 3 " << dir.file("pr3.out") << "\npr "
                                            << dir.file("r.bin") << " 180 " << dir.file("f.bin") << " 160 6 7 " << dir.file("pr7.out") << "\n";
    ASSERT_TRUE(runPython("fid_ref.py '" + dir.file("manifest.txt") + "'"));
    for (int k : {3, 7}) {
        const auto want = readDoubles(dir.file("pr" + std::to_string(k) + ".out"));
        ASSERT_EQ(want.size(), 2u);
        const auto got = PrecisionRecall::compute(real, fake, k);
        EXPECT_DOUBLE_EQ(got.precision, want[0]) << "k " << k;
        EXPECT_DOUBLE_EQ(got.recall, want[1]) << "k " << k;
        EXPECT_GT(got.precision, 0.0);
        EXPECT_LT(got.recall, 1.0);
    }
    // Row blocks do not change radii: compare with a one-row-at-a-time definition.
    auto radii = PrecisionRecall::kthNeighbourRadiiSquared(real, 3);
    auto d = torch::cdist(real, real).pow(2);
    auto want = std::get<0>(d.kthvalue(4, 1));
    EXPECT_TRUE(torch::allclose(radii, want, 1e-4, 1e-4));
}

// Density and coverage (Naeem et al. 2020) against their definitions, computed directly with
// cdist, and on sets whose answers are known.
TEST(PrecisionRecall, DensityAndCoverageMatchTheirDefinitions) {
    torch::manual_seed(21);
    auto real = torch::randn({150, 6}), fake = torch::randn({120, 6}) * 1.2 + 0.3;
    for (int64_t k : {3, 5}) {
        const auto [density, coverage] = PrecisionRecall::densityCoverage(real, fake, k);
        auto radii = std::get<0>(torch::cdist(real, real).pow(2).kthvalue(k + 1, 1));  // (N,): the k-th other point
        auto inside = torch::cdist(fake, real).pow(2).le(radii.unsqueeze(0) + 1e-4);   // (M, N)
        EXPECT_NEAR(density, inside.sum().item<double>() / (static_cast<double>(k) * 120.0), 0.01) << "k " << k;
        EXPECT_NEAR(coverage, inside.any(0).to(torch::kDouble).mean().item<double>(), 0.01) << "k " << k;
        EXPECT_GT(density, 0.0);
        EXPECT_GT(coverage, 0.0);
        EXPECT_LT(coverage, 1.0);
    }
    // The real set itself: every real point lies in its own ball (and in those of the k-NN whose
    // balls reach it), so coverage is 1 and density is at least 1/k.
    const auto [dSame, cSame] = PrecisionRecall::densityCoverage(real, real.clone());
    EXPECT_DOUBLE_EQ(cSame, 1.0);
    EXPECT_GE(dSame, 1.0 / 5);
    // Far away: no generated point in any real ball.
    const auto [dFar, cFar] = PrecisionRecall::densityCoverage(real, torch::randn({50, 6}) + 1000.0);
    EXPECT_DOUBLE_EQ(dFar, 0.0);
    EXPECT_DOUBLE_EQ(cFar, 0.0);
    // Mode collapse onto one real point: high density there, coverage of only its neighbourhood.
    const auto [dCollapsed, cCollapsed] = PrecisionRecall::densityCoverage(real, real.narrow(0, 0, 1).repeat({100, 1}));
    EXPECT_LT(cCollapsed, 0.1);
    EXPECT_GE(dCollapsed, 1.0 / 5);
    EXPECT_THROW(PrecisionRecall::densityCoverage(torch::rand({4, 2}), torch::rand({10, 2})), DataError);  // n <= k
    EXPECT_THROW(PrecisionRecall::densityCoverage(torch::rand({10, 2}), torch::rand({10, 2}), 0), ConfigError);
}

TEST(PrecisionRecall, RejectsBadInput) {
    EXPECT_THROW(PrecisionRecall::compute(torch::rand({3, 2}), torch::rand({10, 2})), DataError);  // n <= k
    EXPECT_THROW(PrecisionRecall::compute(torch::rand({10, 2}), torch::rand({10, 3})), DataError);
    EXPECT_THROW(PrecisionRecall::compute(torch::rand({10, 2}), torch::rand({10, 2}), 0), ConfigError);
}

// The feature metrics' registry (issue 42 item 1): every QualityMetric row that needs the feature
// model has its evaluator under its name, and no evaluator is without a row.
TEST(FeatureMetric, EveryFeatureRowHasItsEvaluatorAndNoOther) {
    std::vector<std::string> rows;
    for (const QualityMetric::Spec& s : QualityMetric::all())
        if (s.needs == QualityMetric::Needs::FeatureModel) rows.emplace_back(s.name);
    std::vector<std::string> registered = FeatureMetric::names();
    std::sort(rows.begin(), rows.end());
    std::sort(registered.begin(), registered.end());
    EXPECT_EQ(registered, rows);
    EXPECT_EQ(FeatureMetric::find("swd"), nullptr);  // pixel space: SwdEvaluator
    // Each evaluator writes its row's figures.
    torch::manual_seed(5);
    const RealFeatures real{torch::rand({40, 8}), {}};
    MetricOptions o;
    o.kidSubsets = 4;
    o.kidSubsetSize = 20;
    for (const std::string& name : rows) {
        RealFeatures r = real;
        if (name == "fid") r.stats = FrechetDistance::statistics(real.features);
        const nlohmann::json j = FeatureMetric::find(name)->compute(r, torch::rand({30, 8}), o);
        for (const char* figure : QualityMetric::find(name)->figures) EXPECT_TRUE(j.contains(figure) && j[figure].is_number()) << name << ": " << j;
    }
}

// Vendi score (Friedman & Dieng 2023, cosine kernel): the effective number of distinct samples.
TEST(FeatureMetric, VendiScoreMatchesItsDefinition) {
    const FeatureMetric* vendi = FeatureMetric::find("vendi");
    ASSERT_NE(vendi, nullptr);
    auto score = [&](const at::Tensor& fake) { return vendi->compute({torch::eye(4), {}}, fake, {}).at("vendi").get<double>(); };
    // Alike samples: 1, whatever their length; n orthogonal ones: n; two orthogonal clusters: 2.
    EXPECT_NEAR(score(torch::tensor({1.0f, 2.0f, 3.0f}).repeat({20, 1}) * torch::arange(1, 21).unsqueeze(1)), 1.0, 1e-9);
    EXPECT_NEAR(score(torch::eye(6)), 6.0, 1e-9);
    EXPECT_NEAR(score(torch::cat({torch::tensor({1.0f, 0.0f}).repeat({5, 1}), torch::tensor({0.0f, 3.0f}).repeat({5, 1})})), 2.0, 1e-9);
    // More rows than dimensions (the D x D side): 100 random rows of 3 dimensions give at most 3.
    torch::manual_seed(2);
    const at::Tensor x = torch::randn({100, 3});
    const double s = score(x);
    EXPECT_GT(s, 1.0);
    EXPECT_LE(s, 3.0 + 1e-9);
    // Against the definition on the n x n side: exp of the entropy of eig(K / n), K the cosine Gram.
    const at::Tensor u = x.to(torch::kDouble) / x.to(torch::kDouble).norm(2, {1}, true);
    const at::Tensor lambda = at::linalg_eigvalsh(at::mm(u, u.t()) / 100.0).clamp_min(1e-300);
    EXPECT_NEAR(s, std::exp(-(lambda * lambda.log()).sum().item<double>()), 1e-6);
    // The real set's score comes with it (the reference), and bad features are one line.
    EXPECT_NEAR(vendi->compute({torch::eye(4), {}}, torch::eye(2), {}).at("vendi_real").get<double>(), 4.0, 1e-9);
    EXPECT_THROW(score(torch::full({3, 2}, std::numeric_limits<float>::quiet_NaN())), DataError);
    EXPECT_THROW(score(torch::rand({3})), DataError);
}
