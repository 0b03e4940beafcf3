// The sliced Wasserstein distance (eval/LaplacianPyramid, SlicedWasserstein, SwdEvaluator,
// RealDescriptorCache): its properties on image sets made here, a cross-check against an
// independent NumPy implementation written from the paper (tests/python/swd_ref.py) given the same
// neighbourhood centres and directions, the evaluator on a tiny generator and the synthetic
// streets with its cache, the metric event's SWD fields and the TrainConfig key.
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "MetricsTestUtil.h"
#include "base/model/Presets.h"
#include "base/run/Events.h"
#include "base/run/TrainConfig.h"
#include "base/util/Errors.h"
#include "ml/eval/FeatureMetrics.h"
#include "ml/eval/LaplacianPyramid.h"
#include "ml/eval/RealDescriptorCache.h"
#include "ml/eval/SlicedWasserstein.h"
#include "ml/eval/SwdEvaluator.h"
#include "ml/eval/TrainingMetrics.h"

using namespace streetgan;
using namespace streetgan::test;
namespace fs = std::filesystem;

namespace {

// Street-like test images in [0, 255]: smooth random fields (a coarse grid upsampled) plus some
// pixel noise, quantised to 8 bits; drawn from a private generator.
torch::Tensor images(int64_t n, int64_t size, uint64_t seed) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    auto coarse = at::rand({n, 3, size / 8, size / 8}, gen, torch::TensorOptions().dtype(torch::kFloat)) * 200.0 + 20.0;
    auto fine = torch::nn::functional::interpolate(
        coarse, torch::nn::functional::InterpolateFuncOptions().size(std::vector<int64_t>{size, size}).mode(torch::kBilinear).align_corners(false));
    return (fine + at::randn(fine.sizes(), gen, fine.options()) * 8.0).round().clamp(0, 255);
}

double meanSwd(const SlicedWasserstein& swd, const torch::Tensor& a, const torch::Tensor& b) {
    const auto da = swd.descriptors(a, 0), db = swd.descriptors(b, 0);
    double sum = 0;
    for (size_t l = 0; l < da.size(); ++l) sum += swd.distance(SlicedWasserstein::finalize(da[l]), SlicedWasserstein::finalize(db[l]), static_cast<int>(l));
    return sum / static_cast<double>(da.size());
}

TrainConfig tinyRun() {
    TrainConfig cfg;
    cfg.model = Presets::get("tiny-32");
    cfg.syntheticImages = 48;
    cfg.seed = 3;
    return cfg;
}

Generator tinyGenerator() {
    torch::manual_seed(17);
    return Generator(Presets::get("tiny-32"));
}

MetricOptions swdOptions(const std::string& cacheDir) {
    MetricOptions o;
    o.metrics = {"swd"};
    o.swdSamples = 24;
    o.batch = 10;
    o.cacheDir = cacheDir;
    return o;
}

}  // namespace

TEST(LaplacianPyramid, LevelsAddBackToTheImageAndKeepConstants) {
    const auto x = images(2, 32, 1);
    const auto p = LaplacianPyramid::build(x, 3);
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(p[0].sizes(), x.sizes());
    EXPECT_EQ(p[1].size(2), 16);
    EXPECT_EQ(p[2].size(2), 8);
    // Reconstruction (pyrUp and add, coarse to fine) gives the image back.
    auto r = p[2];
    for (int l = 1; l >= 0; --l) r = LaplacianPyramid::pyrUp(r) + p[static_cast<size_t>(l)];
    EXPECT_LT((r - x).abs().max().item<double>(), 1e-3);
    // A constant image: the blur, pyrDown and pyrUp keep it (mirror boundaries), so its band-pass
    // levels are zero.
    const auto c = torch::full({1, 3, 16, 16}, 77.0);
    EXPECT_LT((LaplacianPyramid::pyrUp(LaplacianPyramid::pyrDown(c)) - c).abs().max().item<double>(), 1e-4);
    EXPECT_THROW(LaplacianPyramid::build(torch::zeros({1, 3, 14, 14}), 3), DataError);  // 7 px is odd
}

TEST(SlicedWasserstein, LevelsFollowTheImageSize) {
    const SlicedWasserstein swd;
    EXPECT_EQ(swd.resolutions(64), (std::vector<int64_t>{64, 32, 16}));
    EXPECT_EQ(swd.resolutions(128), (std::vector<int64_t>{128, 64, 32, 16}));
    EXPECT_EQ(swd.resolutions(16), (std::vector<int64_t>{16}));
    EXPECT_THROW(swd.resolutions(48), DataError);
    EXPECT_THROW(swd.resolutions(8), DataError);
    const auto d = swd.descriptors(images(3, 64, 2), 0);
    ASSERT_EQ(d.size(), 3u);
    for (const auto& level : d) EXPECT_EQ(level.sizes(), (std::vector<int64_t>{3 * 128, 3, 7, 7}));
    EXPECT_EQ(SlicedWasserstein::finalize(d[0]).sizes(), (std::vector<int64_t>{3 * 128, 147}));
    const auto dirs = swd.directions(0);
    EXPECT_EQ(dirs.sizes(), (std::vector<int64_t>{4, 147, 128}));
    EXPECT_LT((dirs.square().sum(1) - 1).abs().max().item<double>(), 1e-5);  // unit directions
}

TEST(SlicedWasserstein, CentresAreFixedPerImageWhateverTheBatches) {
    const SlicedWasserstein swd;
    const auto x = images(6, 32, 3);
    const auto whole = swd.descriptors(x, 0);
    const auto first = swd.descriptors(x.narrow(0, 0, 4), 0), rest = swd.descriptors(x.narrow(0, 4, 2), 4);
    for (size_t l = 0; l < whole.size(); ++l) EXPECT_TRUE(torch::equal(whole[l], torch::cat({first[l], rest[l]})));
    const auto pos = swd.positions(1, 16, 10, 2);
    EXPECT_TRUE(torch::equal(pos, swd.positions(1, 16, 10, 2)));
    EXPECT_FALSE(torch::equal(pos, swd.positions(1, 16, 12, 2)));
    EXPECT_GE(pos.min().item<int64_t>(), 3);
    EXPECT_LE(pos.max().item<int64_t>(), 12);
}

TEST(SlicedWasserstein, IdenticalSetsAreZeroAndAShiftIsFartherThanNoise) {
    const SlicedWasserstein swd;
    const auto real = images(16, 32, 4);
    EXPECT_EQ(meanSwd(swd, real, real.clone()), 0.0);
    auto gen = at::make_generator<at::CPUGeneratorImpl>(9);
    const auto noisy = (real + at::randn(real.sizes(), gen, real.options()) * 2.0).round().clamp(0, 255);
    // Brighter with a colour cast: red lifted by 90 and saturating, green mixed into blue.
    auto shifted = real.clone();
    shifted.select(1, 0).add_(90).clamp_(0, 255);
    shifted.select(1, 2).copy_((real.select(1, 2) * 0.5 + real.select(1, 1) * 0.5).round());
    const double dNoisy = meanSwd(swd, real, noisy), dShifted = meanSwd(swd, real, shifted);
    EXPECT_GT(dNoisy, 0.0);
    EXPECT_GT(dShifted, 2.0 * dNoisy) << "noisy " << dNoisy << ", shifted " << dShifted;
    // Each set is normalised per channel on its own (as the official code does): a global contrast
    // change and offset that saturate nothing are invisible at every level.
    EXPECT_LT(meanSwd(swd, real, (real * 0.5 + 10.0)), 1e-4);
}

TEST(SlicedWasserstein, AgreesWithTheNumPyReference) {
    if (!pythonHas("numpy")) GTEST_SKIP() << STREETGAN_PYTHON << " has no numpy";
    TempDir dir;
    const SlicedWasserstein swd;
    const int64_t n = 6, size = 64;
    const auto a = images(n, size, 5);
    auto gen = at::make_generator<at::CPUGeneratorImpl>(6);
    const auto b = (images(n, size, 7) * 0.8 + at::rand({n, 3, 1, 1}, gen) * 40.0).round().clamp(0, 255);
    writeRaw(a, dir / "a.bin");
    writeRaw(b, dir / "b.bin");
    const auto res = swd.resolutions(size);
    std::vector<double> ours;
    const auto da = swd.descriptors(a, 0), db = swd.descriptors(b, 0);
    for (size_t l = 0; l < res.size(); ++l) {
        const auto pos = swd.positions(static_cast<int>(l), res[l], 0, n).contiguous();
        std::ofstream(dir / ("pos_" + std::to_string(l) + ".bin"), std::ios::binary)
            .write(reinterpret_cast<const char*>(pos.data_ptr<int64_t>()), static_cast<std::streamsize>(pos.numel() * 8));
        writeRaw(swd.directions(static_cast<int>(l)), dir / ("dirs_" + std::to_string(l) + ".bin"));
        ours.push_back(swd.distance(SlicedWasserstein::finalize(da[l]), SlicedWasserstein::finalize(db[l]), static_cast<int>(l)));
    }
    ASSERT_TRUE(runPython("swd_ref.py " + dir.file("a.bin") + " " + dir.file("b.bin") + " " + std::to_string(n) + " " + std::to_string(size) + " " +
                          std::to_string(res.size()) + " 128 " + dir.path().string() + " " + dir.file("ref.bin")));
    const auto ref = readDoubles(dir / "ref.bin");
    ASSERT_EQ(ref.size(), res.size());
    double oursMean = 0, refMean = 0;
    for (size_t l = 0; l < res.size(); ++l) {
        EXPECT_GT(ref[l], 0.0);
        EXPECT_TRUE(relClose(ours[l] / ref[l], 1.0, 0.01)) << "level " << res[l] << " px: ours " << ours[l] << ", NumPy " << ref[l];
        oursMean += ours[l] / static_cast<double>(res.size());
        refMean += ref[l] / static_cast<double>(res.size());
    }
    EXPECT_TRUE(relClose(oursMean / refMean, 1.0, 0.01)) << "ours " << oursMean << ", NumPy " << refMean;
}

TEST(SwdEvaluator, LevelsOfTheModelAndTheCacheGivesTheSameNumbers) {
    TempDir dir;
    const TrainConfig cfg = tinyRun();
    const RealImageSource real = FeatureMetrics::realSource("synthetic", cfg);
    Generator g = tinyGenerator();
    std::vector<std::string> warnings;
    MetricCallbacks cb;
    cb.warn = [&](const std::string& w) { warnings.push_back(w); };

    FeatureMetrics first(swdOptions(dir.path().string()), torch::kCPU);
    const auto miss = first.evaluate(g, real, cb);
    ASSERT_TRUE(miss.has_value());
    EXPECT_EQ((*miss)["swd_real_cache"], "miss");
    EXPECT_EQ((*miss)["swd_samples"], 24);
    ASSERT_EQ((*miss)["swd_levels"].size(), 2u);  // 32 and 16 px
    const double l32 = (*miss)["swd_levels"]["32"], l16 = (*miss)["swd_levels"]["16"];
    EXPECT_GT(l32, 0.0);
    EXPECT_DOUBLE_EQ((*miss)["swd"].get<double>(), (l32 + l16) / 2);
    EXPECT_FALSE(miss->contains("fid"));  // not asked for

    const auto memo = first.evaluate(g, real, cb);  // the same object: the in-memory copy
    EXPECT_EQ((*memo)["swd_real_cache"], "hit");
    FeatureMetrics second(swdOptions(dir.path().string()), torch::kCPU);  // a new process: the file
    const auto hit = second.evaluate(g, real, cb);
    EXPECT_EQ((*hit)["swd_real_cache"], "hit");
    EXPECT_EQ((*hit)["swd"], (*miss)["swd"]);
    EXPECT_EQ((*hit)["swd_levels"], (*miss)["swd_levels"]);
    EXPECT_EQ((*memo)["swd_levels"], (*miss)["swd_levels"]);
    EXPECT_TRUE(warnings.empty());

    // A corrupt file is a warning and a miss with the same numbers.
    const RealDescriptorCache cache(dir.path().string());
    const std::string path = cache.pathFor(RealDescriptorCache::key(real.identity, 32, 24, SwdParams{}));
    ASSERT_TRUE(fs::exists(path));
    fs::resize_file(path, fs::file_size(path) - 5);
    FeatureMetrics third(swdOptions(dir.path().string()), torch::kCPU);
    const auto again = third.evaluate(g, real, cb);
    EXPECT_EQ((*again)["swd_real_cache"], "miss");
    EXPECT_EQ((*again)["swd_levels"], (*miss)["swd_levels"]);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("unusable"), std::string::npos) << warnings[0];

    // Fewer real images than samples: both sides use as many as the source has.
    TrainConfig small = cfg;
    small.syntheticImages = 10;
    const auto capped = FeatureMetrics(swdOptions(dir.path().string()), torch::kCPU).evaluate(g, FeatureMetrics::realSource("synthetic", small));
    EXPECT_EQ((*capped)["swd_samples"], 10);
}

TEST(SwdEvaluator, TrainingEventByDefaultLeavesTrainingUntouched) {
    TempDir dir;
    TrainConfig cfg = tinyRun();
    cfg.metricSwdSamples = 16;
    cfg.metricCacheDir = dir.path().string();
    TrainingMetrics tm(cfg, torch::kCPU);
    EXPECT_TRUE(tm.enabled());  // on by default, at every checkpoint
    EXPECT_TRUE(tm.due(1));
    Generator g = tinyGenerator();
    g->train();
    torch::manual_seed(99);
    const auto e = tm.evaluate(g, 50);
    const auto afterEval = torch::randn({4});
    torch::manual_seed(99);
    EXPECT_TRUE(torch::equal(afterEval, torch::randn({4})));  // the default generator was not drawn from
    EXPECT_TRUE(g->is_training());
    EXPECT_TRUE(e["swd"].is_number()) << e.dump();
    EXPECT_EQ(e["swd_levels"].size(), 2u);
    EXPECT_EQ(e["swd_samples"], 16);
    EXPECT_TRUE(e["fid"].is_null());  // no feature model: the reason, never a number
    EXPECT_EQ(e["fid_unavailable"], FeatureMetrics::noFeatureModelReason());
    // The event reads back into its typed fields.
    const MetricEvent typed = e.get<MetricEvent>();
    ASSERT_TRUE(typed.swd.has_value());
    EXPECT_EQ(*typed.swd, e["swd"].get<double>());
    EXPECT_EQ(typed.swdLevels.size(), 2u);
    EXPECT_EQ(typed.swdSamples, 16);
    EXPECT_EQ(typed.swdRealCache, "miss");
    EXPECT_TRUE(typed.extra.is_null() || typed.extra.empty()) << typed.extra.dump();
    EXPECT_EQ(nlohmann::json(typed), e);
    // Same z at every checkpoint: an unchanged generator gets the same numbers.
    const auto again = tm.evaluate(g, 100);
    EXPECT_EQ(again["swd"], e["swd"]);
    EXPECT_EQ(again["swd_real_cache"], "hit");

    // Cancelled: null with the reason.
    std::atomic<bool> stop{true};
    cfg.metricCacheDir = (dir.path() / "other").string();
    const auto c = TrainingMetrics(cfg, torch::kCPU).evaluate(g, 150, &stop);
    EXPECT_TRUE(c["swd"].is_null());
    EXPECT_NE(c["swd_unavailable"].get<std::string>().find("cancelled"), std::string::npos);
}

TEST(SwdEvaluator, MetricEventFieldsRoundTrip) {
    const nlohmann::json line = {{"kind", "metric"},
                                 {"t", 5.0},
                                 {"step", 40},
                                 {"swd", 12.5},
                                 {"swd_samples", 512},
                                 {"swd_real_cache", "hit"},
                                 {"swd_levels", {{"64", 10.0}, {"32", 12.0}, {"16", 15.5}}}};
    const MetricEvent e = line.get<MetricEvent>();
    EXPECT_EQ(e.swd, 12.5);
    EXPECT_EQ(e.swdLevels.at("16"), 15.5);
    EXPECT_EQ(e.swdSamples, 512);
    EXPECT_EQ(nlohmann::json(e), line);
    const nlohmann::json unavailable = {{"kind", "metric"}, {"step", 1}, {"swd", nullptr}, {"swd_unavailable", "cancelled"}};
    const MetricEvent u = unavailable.get<MetricEvent>();
    EXPECT_TRUE(u.swd && std::isnan(*u.swd));
    EXPECT_EQ(nlohmann::json(u), unavailable);
    // A levels member of another form stays as read.
    const nlohmann::json odd = {{"kind", "metric"}, {"swd_levels", {1, 2}}};
    EXPECT_EQ(nlohmann::json(odd.get<MetricEvent>()), odd);
}

TEST(TrainConfig, SwdDefaultsAndKeyRoundTrip) {
    TrainConfig cfg;
    EXPECT_EQ(cfg.metricEveryCheckpoints, 1);
    EXPECT_EQ(cfg.metricSwdSamples, TrainConfig::kDefaultSwdSamples);
    EXPECT_EQ(cfg.metrics, (std::vector<std::string>{"fid", "kid", "pr", "swd"}));
    cfg.metricSwdSamples = 1000;
    cfg.metrics = {"swd"};
    const nlohmann::json j = cfg.toJson();
    EXPECT_EQ(j["metric_swd_samples"], 1000);
    TrainConfig back;
    back.merge(j);
    EXPECT_EQ(back.metricSwdSamples, 1000);
    EXPECT_EQ(back.metrics, cfg.metrics);
    EXPECT_EQ(back.toJson(), j);
    back.validate();
    TrainConfig bad;
    bad.merge({{"metric_swd_samples", 1}});
    EXPECT_THROW(bad.validate(), ConfigError);
}
