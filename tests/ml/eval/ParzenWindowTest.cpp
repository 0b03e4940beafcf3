// ParzenWindow against tests/python/parzen_ref.py (plain NumPy, one x at a time, the formula of
// Goodfellow et al.'s parzen_ll.py), plus cases whose answer is known without a reference.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "base/util/Errors.h"
#include "ml/eval/ParzenWindow.h"
#include "support/TempDir.h"

using namespace streetgan;
namespace fs = std::filesystem;

namespace {

using streetgan::test::TempDir;

void writeRaw(const torch::Tensor& t, const std::string& p) {
    auto c = t.to(torch::kFloat).contiguous();
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(c.data_ptr<float>()), static_cast<std::streamsize>(c.numel() * 4));
}

std::vector<double> readDoubles(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    std::string bytes = s.str();
    std::vector<double> out(bytes.size() / 8);
    std::memcpy(out.data(), bytes.data(), out.size() * 8);
    return out;
}

bool hasReferencePython() {
    std::string cmd = std::string(STREETGAN_PYTHON) + " -c 'import numpy' >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

// Relative to the magnitude, absolute near zero: the reference differs only in rounding.
::testing::AssertionResult close(double got, double want, double tol = 1e-9) {
    if (std::isfinite(got) && std::abs(got - want) <= tol * std::max(1.0, std::abs(want))) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", want " << want;
}

int64_t rows(const torch::Tensor& t) { return t.size(0); }
int64_t dims(const torch::Tensor& t) { return t.numel() / t.size(0); }

size_t closestGridIndex(double s) {
    auto grid = ParzenWindow::sigmaGrid();
    size_t best = 0;
    for (size_t k = 1; k < grid.size(); ++k)
        if (std::abs(std::log(grid[k] / s)) < std::abs(std::log(grid[best] / s))) best = k;
    return best;
}

// K centres uniform in [0,1]^d; n points = a random centre + N(0, s^2) noise per value.
torch::Tensor around(const torch::Tensor& centres, int64_t n, double s) {
    auto idx = torch::randint(centres.size(0), {n}, torch::kLong);
    return centres.index_select(0, idx) + torch::randn({n, centres.size(1)}) * s;
}

}  // namespace

TEST(ParzenWindow, SigmaGridIsNumpyLogspace) {
    auto g = ParzenWindow::sigmaGrid();
    ASSERT_EQ(g.size(), 10u);
    EXPECT_DOUBLE_EQ(g.front(), 0.1);
    EXPECT_DOUBLE_EQ(g.back(), 1.0);
    for (size_t k = 0; k < g.size(); ++k) EXPECT_NEAR(std::log10(g[k]), -1.0 + k / 9.0, 1e-12);
}

TEST(ParzenWindow, MatchesNumpyReference) {
    if (!hasReferencePython()) GTEST_SKIP() << STREETGAN_PYTHON << " has no numpy";
    TempDir dir;
    torch::manual_seed(7);
    // eval 0: uniform noise images (sigma lands inside the grid); eval 1: real images near the
    // samples (a smaller sigma wins).
    struct EvalCase {
        torch::Tensor samples, val, test;
    };
    std::vector<EvalCase> evals;
    evals.push_back({torch::rand({300, 3, 8, 8}), torch::rand({50, 3, 8, 8}), torch::rand({40, 3, 8, 8})});
    {
        auto s = torch::rand({120, 3, 6, 6});
        evals.push_back({s, around(s.reshape({120, -1}), 45, 0.15).reshape({45, 3, 6, 6}), around(s.reshape({120, -1}), 33, 0.15).reshape({33, 3, 6, 6})});
    }
    // ll cases: several blocks of mu (3000 x 3072 values is above one block), and a small odd one.
    struct LlCase {
        torch::Tensor mu, x;
        double sigma;
        int batch;
    };
    std::vector<LlCase> lls = {
        {torch::rand({3000, 3, 32, 32}), torch::rand({12, 3, 32, 32}), 0.3, 5},
        {torch::rand({20, 5}) * 4 - 2, torch::rand({9, 5}) * 4 - 2, 0.1, 4},
    };

    std::ofstream manifest(dir.file("manifest.txt"));
    for (size_t i = 0; i < evals.size(); ++i) {
        const auto& e = evals[i];
        std::string p = dir.file("eval" + std::to_string(i));
        writeRaw(e.samples, p + ".s.bin");
        writeRaw(e.val, p + ".v.bin");
        writeRaw(e.test, p + ".t.bin");
        manifest << "eval " << p << ".s.bin " << rows(e.samples) << ' ' << p << ".v.bin " << rows(e.val) << ' ' << p << ".t.bin " << rows(e.test) << ' '
                 << dims(e.samples) << ' ' << p << '\n';
    }
    for (size_t i = 0; i < lls.size(); ++i) {
        const auto& c = lls[i];
        std::string p = dir.file("ll" + std::to_string(i));
        writeRaw(c.mu, p + ".mu.bin");
        writeRaw(c.x, p + ".x.bin");
        manifest << "ll " << p << ".mu.bin " << rows(c.mu) << ' ' << p << ".x.bin " << rows(c.x) << ' ' << dims(c.mu) << ' ' << c.sigma << ' ' << p << ".out\n";
    }
    manifest.close();
    std::string cmd = std::string(STREETGAN_PYTHON) + " '" + STREETGAN_TEST_PYTHON_DIR + "/parzen_ref.py' '" + dir.file("manifest.txt") + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

    std::vector<double> chosen;
    for (size_t i = 0; i < evals.size(); ++i) {
        SCOPED_TRACE("eval case " + std::to_string(i));
        const auto& e = evals[i];
        std::string p = dir.file("eval" + std::to_string(i));
        auto sigmas = readDoubles(p + ".sigmas");
        auto scores = readDoubles(p + ".scores");
        auto res = readDoubles(p + ".result");
        auto testLl = readDoubles(p + ".test");
        ASSERT_EQ(sigmas.size(), 10u);
        ASSERT_EQ(res.size(), 3u);

        ParzenResult r = ParzenWindow::evaluate(e.samples, e.val, e.test, 7);
        EXPECT_FALSE(r.cancelled);
        ASSERT_EQ(r.sigmaScores.size(), 10u);
        for (size_t k = 0; k < 10; ++k) {
            EXPECT_TRUE(close(r.sigmaScores[k].first, sigmas[k], 1e-14)) << k;
            EXPECT_TRUE(close(r.sigmaScores[k].second, scores[k])) << k;
        }
        EXPECT_TRUE(close(r.sigma, res[0], 1e-14));
        EXPECT_TRUE(close(r.meanLogLikelihood, res[1]));
        EXPECT_TRUE(close(r.stdError, res[2], 1e-7));
        chosen.push_back(r.sigma);

        auto ll = ParzenWindow::logLikelihood(e.samples, e.test, r.sigma, 7);
        ASSERT_EQ(ll.dtype(), torch::kDouble);
        ASSERT_EQ(ll.numel(), static_cast<int64_t>(testLl.size()));
        for (size_t j = 0; j < testLl.size(); ++j) EXPECT_TRUE(close(ll[static_cast<int64_t>(j)].item<double>(), testLl[j])) << "test row " << j;
    }
    // The two cases pick different sigmas, and neither sits on the grid's edge by accident.
    EXPECT_NE(chosen[0], chosen[1]);
    EXPECT_GT(chosen[0], 0.1);
    EXPECT_LT(chosen[0], 1.0);

    for (size_t i = 0; i < lls.size(); ++i) {
        SCOPED_TRACE("ll case " + std::to_string(i));
        const auto& c = lls[i];
        auto want = readDoubles(dir.file("ll" + std::to_string(i)) + ".out");
        auto got = ParzenWindow::logLikelihood(c.mu, c.x, c.sigma, c.batch);
        ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size()));
        for (size_t j = 0; j < want.size(); ++j) EXPECT_TRUE(close(got[static_cast<int64_t>(j)].item<double>(), want[j])) << "row " << j;
    }
}

TEST(ParzenWindow, ChoosesTheGridSigmaClosestToTheTrueNoise) {
    // Samples are the centres of a mixture; real images are centres plus N(0, s^2) noise. The window
    // with sigma = s is then the true density, so cross-validation must pick the grid value nearest s.
    torch::manual_seed(11);
    const int64_t k = 50, d = 64;
    auto centres = torch::rand({k, d});
    for (double s : {0.1, 0.15, 0.2783, 0.3, 0.5, 0.8, 1.0}) {
        SCOPED_TRACE("noise std " + std::to_string(s));
        auto val = around(centres, 400, s);
        auto test = around(centres, 400, s);
        ParzenResult r = ParzenWindow::evaluate(centres, val, test);
        EXPECT_DOUBLE_EQ(r.sigma, ParzenWindow::sigmaGrid()[closestGridIndex(s)]);
    }
    // On a grid value, the test mean matches the analytic expectation
    // -log K - d log(s sqrt(2 pi)) - d/2 (well-separated centres), and the standard error matches
    // sqrt(d/2) / sqrt(n), the spread of a chi-square with d degrees of freedom halved.
    const double s = ParzenWindow::sigmaGrid()[4];
    const int64_t n = 2000;
    ParzenResult r = ParzenWindow::evaluate(centres, around(centres, 400, s), around(centres, n, s));
    ASSERT_DOUBLE_EQ(r.sigma, s);
    const double expected = -std::log(static_cast<double>(k)) - d * std::log(s * std::sqrt(2 * M_PI)) - d / 2.0;
    const double se = std::sqrt(d / 2.0) / std::sqrt(static_cast<double>(n));
    EXPECT_NEAR(r.meanLogLikelihood, expected, 5 * se);
    EXPECT_NEAR(r.stdError, se, 0.15 * se);
}

TEST(ParzenWindow, FarApartPointsStayFinite) {
    // Squared distances of ~1e9 / (2 * 0.01): exp() of that underflows; logsumexp must not.
    const int64_t d = 10;
    auto mu = torch::stack({torch::zeros({d}), torch::full({d}, 1000.f)});
    auto x = torch::stack({torch::full({d}, 10000.f), torch::full({d}, -5000.f), torch::full({d}, 500.f)});
    for (double sigma : {0.1, 1.0}) {
        auto ll = ParzenWindow::logLikelihood(mu, x, sigma, 2);
        ASSERT_TRUE(torch::isfinite(ll).all().item<bool>()) << ll;
        auto c = std::log(2.0) + d * std::log(sigma * std::sqrt(2 * M_PI));
        // Nearest centre dominates; at 500 both are equally far, so log 2 comes back.
        EXPECT_TRUE(close(ll[0].item<double>(), -d * 9000.0 * 9000.0 / (2 * sigma * sigma) - c));
        EXPECT_TRUE(close(ll[1].item<double>(), -d * 5000.0 * 5000.0 / (2 * sigma * sigma) - c));
        EXPECT_TRUE(close(ll[2].item<double>(), -d * 500.0 * 500.0 / (2 * sigma * sigma) + std::log(2.0) - c));
    }
    ParzenResult r = ParzenWindow::evaluate(mu, x, x);
    EXPECT_TRUE(std::isfinite(r.meanLogLikelihood));
    EXPECT_TRUE(std::isfinite(r.stdError));
    EXPECT_DOUBLE_EQ(r.sigma, 1.0);
}

TEST(ParzenWindow, BatchSizeDoesNotChangeResults) {
    torch::manual_seed(3);
    auto mu = torch::rand({57, 3, 4, 4});
    auto x = torch::rand({23, 3, 4, 4});
    auto ref = ParzenWindow::logLikelihood(mu, x, 0.4, 1);
    for (int b : {2, 7, 23, 100, 100000}) {
        auto ll = ParzenWindow::logLikelihood(mu, x, 0.4, b);
        EXPECT_TRUE(torch::allclose(ll, ref, 1e-12, 1e-10)) << "batch " << b;
    }
    // float64 inputs and a (N, d) layout give the same numbers.
    auto ll64 = ParzenWindow::logLikelihood(mu.to(torch::kDouble).reshape({57, -1}), x.to(torch::kDouble), 0.4, 5);
    EXPECT_TRUE(torch::allclose(ll64, ref, 1e-12, 1e-10));
    auto a = ParzenWindow::evaluate(mu, x, x, 3);
    auto b = ParzenWindow::evaluate(mu, x, x, 1000);
    EXPECT_EQ(a.sigma, b.sigma);
    EXPECT_NEAR(a.meanLogLikelihood, b.meanLogLikelihood, 1e-9);
}

TEST(ParzenWindow, ProgressAndCancel) {
    torch::manual_seed(5);
    auto mu = torch::rand({40, 12});
    auto val = torch::rand({30, 12});
    auto test = torch::rand({20, 12});

    std::vector<double> seen;
    ParzenResult full = ParzenWindow::evaluate(mu, val, test, 4, [&](double f) { seen.push_back(f); });
    ASSERT_FALSE(seen.empty());
    EXPECT_FALSE(full.cancelled);
    EXPECT_DOUBLE_EQ(seen.front(), 0.0);
    EXPECT_DOUBLE_EQ(seen.back(), 1.0);
    for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]);
    EXPECT_EQ(seen.size(), 1u + (30 + 3) / 4 + (20 + 3) / 4);

    std::atomic<bool> cancel{true};
    ParzenResult r = ParzenWindow::evaluate(mu, val, test, 4, {}, &cancel);
    EXPECT_TRUE(r.cancelled);
    EXPECT_TRUE(std::isnan(r.meanLogLikelihood));
    EXPECT_TRUE(r.sigmaScores.empty());

    // Cancelled from the progress callback (as a UI thread would, between batches): no more work.
    cancel = false;
    int calls = 0;
    r = ParzenWindow::evaluate(
        mu, val, test, 4,
        [&](double f) {
            ++calls;
            if (f > 0) cancel = true;
        },
        &cancel);
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(calls, 2);
}

TEST(ParzenWindow, RejectsBadInput) {
    auto mu = torch::rand({10, 3, 4, 4});
    auto x = torch::rand({5, 3, 4, 4});
    EXPECT_THROW(ParzenWindow::evaluate(torch::rand({0, 3, 4, 4}), x, x), DataError);
    EXPECT_THROW(ParzenWindow::evaluate(mu, torch::rand({0, 3, 4, 4}), x), DataError);
    EXPECT_THROW(ParzenWindow::evaluate(mu, x, torch::rand({5, 3, 8, 8})), DataError);
    EXPECT_THROW(ParzenWindow::evaluate(mu, x, x, 0), ConfigError);
    EXPECT_THROW(ParzenWindow::evaluate(mu, (x * 255).to(torch::kByte), x), DataError);
    auto bad = x.clone();
    bad[2][1][0][0] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(ParzenWindow::evaluate(mu, bad, x), DataError);
    auto badMu = mu.clone();
    badMu[0][0][0][0] = std::numeric_limits<float>::infinity();
    EXPECT_THROW(ParzenWindow::evaluate(badMu, x, x), DataError);
    EXPECT_THROW(ParzenWindow::logLikelihood(mu, x, 0.0, 10), ConfigError);
    EXPECT_THROW(ParzenWindow::logLikelihood(mu, x, -1.0, 10), ConfigError);
}
