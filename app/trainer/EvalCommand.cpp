#include "trainer/EvalCommand.h"

#include <unistd.h>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <vector>

#include "base/run/QualityMetric.h"
#include "base/run/TrainConfig.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/dataset/DataSources.h"
#include "ml/dataset/SyntheticSource.h"
#include "ml/eval/FeatureMetrics.h"
#include "ml/eval/ParzenWindow.h"
#include "ml/util/DeviceChoice.h"
#include "trainer/GeneratorOption.h"
#include "trainer/S3DataOptions.h"

namespace streetgan {
namespace {

// Real images in [0, 1], (n, 3, S, S), from `first` on.
torch::Tensor realImages(const ImageSource& src, int64_t first, int64_t n, int size) {
    auto out = torch::empty({n, size, size, 3}, torch::kUInt8);
    const int64_t bytes = static_cast<int64_t>(size) * size * 3;
    for (int64_t i = 0; i < n; ++i) src.load(first + i, size, 0, out.data_ptr<uint8_t>() + i * bytes);
    return out.permute({0, 3, 1, 2}).to(torch::kFloat32).div_(255.0);
}

}  // namespace

CLI::App* EvalCommand::setup(CLI::App& parent) {
    auto* a =
        parent.add_subcommand("eval", "Evaluate a checkpoint: Parzen-window log-likelihood (default), FID, KID, precision/recall, sliced Wasserstein distance");
    a->add_option("--checkpoint", checkpoint_, "StreetGAN or reference checkpoint")->required();
    dataOption_ = a->add_option("--data", data_,
                                "Real images: synthetic, a folder, an archive or s3://bucket/prefix (parzen: its held-out split; fid/kid/pr: the "
                                "training selection); default: the data the checkpoint was trained on, else synthetic");
    S3DataOptions::add(*a, s3_);
    app_ = a;
    a->add_option("--metric", metric_, std::string("parzen, ") + QualityMetric::namesText() + ", or several: " + QualityMetric::namesCsv());
    a->add_option("--features", features_, "TorchScript feature model for fid/kid/pr (clean-fid's inception-2015-12-05.pt)");
    a->add_option("--samples", samples_, "Generated samples")->check(CLI::Range(int64_t{1}, int64_t{1000000}));
    a->add_option("--real-samples", realSamples_, "fid/kid/pr: real images (default: --samples, capped at the data set)")
        ->check(CLI::Range(int64_t{0}, int64_t{10000000}));
    a->add_option("--validation", validation_, "parzen: real images that choose sigma")->check(CLI::Range(int64_t{1}, int64_t{1000000}));
    a->add_option("--test", test_, "parzen: held-out real images scored")->check(CLI::Range(int64_t{1}, int64_t{1000000}));
    a->add_option("--kid-subsets", kidSubsets_, "KID: subsets averaged")->check(CLI::Range(int64_t{1}, int64_t{100000}));
    a->add_option("--kid-subset-size", kidSubsetSize_, "KID: images per subset (clamped to the sample counts)")
        ->check(CLI::Range(int64_t{2}, int64_t{1000000}));
    a->add_option("--pr-k", prK_, "precision/recall: k of the k-NN manifolds")->check(CLI::Range(int64_t{1}, int64_t{1000}));
    a->add_option("--swd-samples", swdSamples_, "swd: generated (and real) images (capped at the data set)")->check(CLI::Range(int64_t{2}, int64_t{1000000}));
    a->add_option("--cache-dir", cacheDir_, "Real-feature and SWD descriptor cache folder (default $STREETGAN_FID_CACHE or ~/.cache/streetgan/fid)");
    a->add_flag("--no-cache", noCache_, "Neither read nor write the real-feature and SWD descriptor caches");
    a->add_option("--seed", seed_, "Seed of the generated samples");
    a->add_option("--batch", batch_, "parzen: rows per batch (memory only)")->check(CLI::Range(1, 100000));
    a->add_option("--feature-batch", featureBatch_, "fid/kid/pr: images per generator and feature-model call")->check(CLI::Range(1, 100000));
    a->add_option("--device", device_, "cpu | cuda | auto");
    addGeneratorOption(a, generator_);
    a->add_flag("--json", json_, "One JSON document on stdout");
    return a;
}

int EvalCommand::execute() {
    // Which metrics: parzen and/or the feature metrics, each once, in the order given.
    std::vector<std::string> asked, featureMetrics;
    bool parzen = false;
    {
        std::stringstream ss(metric_);
        for (std::string m; std::getline(ss, m, ',');) {
            m.erase(0, m.find_first_not_of(" \t"));
            m.erase(m.find_last_not_of(" \t") + 1);
            if (m.empty() || std::find(asked.begin(), asked.end(), m) != asked.end()) continue;
            if (m != "parzen" && !QualityMetric::find(m))
                throw ConfigError("--metric '" + m + "' is unknown: use parzen, " + QualityMetric::namesText() + " or several, e.g. " +
                                  QualityMetric::namesCsv());
            asked.push_back(m);
            if (m == "parzen")
                parzen = true;
            else
                featureMetrics.push_back(m);
        }
        if (asked.empty()) throw ConfigError("--metric is empty: use parzen, " + QualityMetric::namesText() + " or several, e.g. " + QualityMetric::namesCsv());
    }
    std::string metricList;
    for (const auto& m : asked) metricList += (metricList.empty() ? "" : ",") + m;

    const CheckpointData ck = Checkpoint::load(checkpoint_);
    const torch::Device device = DeviceChoice::select(device_);
    Generator g = ModelLoader::generator(ck, checkpoint_, "", device, ModelLoader::parseChoice(generator_));
    const int size = static_cast<int>(ck.model.imgSize);
    TrainConfig run;
    if (!ck.configJson.empty()) run.merge(nlohmann::json::parse(ck.configJson));
    run.model.imgSize = ck.model.imgSize;
    S3DataOptions::applyGiven(*app_, s3_, run);
    if (dataOption_->count() == 0 && !ck.configJson.empty()) data_ = run.data;  // judge a model on its own data
    const bool tty = ::isatty(STDERR_FILENO) != 0;

    nlohmann::json j = {{"metric", metricList}, {"checkpoint", checkpoint_}, {"data", data_}};
    // --samples is the generated count of parzen and fid/kid/pr; swd alone reports its own swd_samples.
    const bool samplesUsed = parzen || std::any_of(featureMetrics.begin(), featureMetrics.end(),
                                                   [](const std::string& m) { return QualityMetric::find(m)->needs == QualityMetric::Needs::FeatureModel; });
    if (samplesUsed) j["samples"] = samples_;
    if (!featureMetrics.empty()) {
        MetricOptions o;
        o.metrics = featureMetrics;
        o.features = features_;
        o.samples = samples_;
        o.realSamples = realSamples_;
        o.seed = seed_;
        o.batch = featureBatch_;
        o.kidSubsets = kidSubsets_;
        o.kidSubsetSize = kidSubsetSize_;
        o.prK = prK_;
        o.cacheDir = cacheDir_;
        o.cache = !noCache_;
        o.swdSamples = swdSamples_;
        const bool swd = std::find(featureMetrics.begin(), featureMetrics.end(), QualityMetric::kSwd) != featureMetrics.end();
        if (samples_ < 2 && featureMetrics.size() > (swd ? 1u : 0u))
            throw ConfigError("--samples " + std::to_string(samples_) + " is too small for fid/kid/pr: use at least 2 (2000+ for stable FID)");
        FeatureMetrics metrics(o, device);
        // A model given but unusable is an error here (the user asked for it); no model at all is
        // reported as unavailable.
        if (!features_.empty()) {
            if (const std::string problem = metrics.featureModelProblem(); !problem.empty()) throw ConfigError(problem);
        }
        MetricCallbacks cb;
        cb.warn = [](const std::string& w) { std::cerr << "streetgan-trainer: warning: " << w << std::endl; };
        cb.progress = [&](const std::string& phase, double f) {
            if (tty) std::fprintf(stderr, "\r\033[K%s %3.0f%%", phase.c_str(), f * 100.0);
        };
        std::optional<nlohmann::json> r;
        if (features_.empty() && !swd)
            r = FeatureMetrics::unavailable(featureMetrics, FeatureMetrics::noFeatureModelReason());
        else
            r = metrics.evaluate(g, FeatureMetrics::realSource(data_, run), cb);
        if (tty) std::fprintf(stderr, "\r\033[K");
        if (r) j.update(*r);
    }
    if (parzen) {
        // Held-out real images, never trained on: for the synthetic set the scenes past the run's
        // epoch; for photos the validation split by key hash.
        torch::Tensor validation, test;
        if (data_ == "synthetic") {
            SyntheticSource src(run.seed, run.syntheticImages + validation_ + test_);
            validation = realImages(src, run.syntheticImages, validation_, size);
            test = realImages(src, run.syntheticImages + validation_, test_, size);
        } else {
            const auto src = DataSources::openHeldOut(data_, run);
            if (src->size() < validation_ + test_)
                throw DataError("held-out split of '" + data_ + "' has " + std::to_string(src->size()) + " images, fewer than --validation " +
                                std::to_string(validation_) + " + --test " + std::to_string(test_) + ": lower them");
            validation = realImages(*src, 0, validation_, size);
            test = realImages(*src, validation_, test_, size);
        }

        torch::Tensor samples = torch::empty({samples_, ck.model.nc, size, size});
        {
            torch::NoGradGuard noGrad;
            auto gen = at::make_generator<at::CPUGeneratorImpl>(seed_);
            for (int64_t i = 0; i < samples_; i += 256) {
                const int64_t n = std::min<int64_t>(256, samples_ - i);
                auto z = torch::randn({n, ck.model.nz, 1, 1}, gen);
                samples.narrow(0, i, n).copy_(g->forward(z.to(device)).to(torch::kCPU).add(1.0).div(2.0));
            }
        }
        auto progress = [&](double f) {
            if (tty) std::fprintf(stderr, "\r\033[Kparzen window %3.0f%%", f * 100.0);
        };
        const ParzenResult r = ParzenWindow::evaluate(samples, validation, test, batch_, progress);
        if (tty) std::fprintf(stderr, "\r\033[K");
        j.update({{"sigma", r.sigma},
                  {"log_likelihood", r.meanLogLikelihood},
                  {"std_error", r.stdError},
                  {"samples", samples_},
                  {"validation", validation_},
                  {"test", test_},
                  {"sigma_scores", nlohmann::json::array()}});
        for (const auto& [s, ll] : r.sigmaScores) j["sigma_scores"].push_back({s, ll});
    }

    if (json_) {
        std::cout << j.dump() << "\n";
        return 0;
    }
    auto reason = [&](const std::string& m) { return j.value(m + "_unavailable", std::string("not computed")); };
    for (const auto& m : asked) {
        if (m == "parzen") {
            std::printf("Parzen log-likelihood %.2f +- %.2f nats (sigma %.4f, %lld samples, %lld test images)\n", j["log_likelihood"].get<double>(),
                        j["std_error"].get<double>(), j["sigma"].get<double>(), static_cast<long long>(samples_), static_cast<long long>(test_));
        } else if (m == QualityMetric::kFid) {
            if (j["fid"].is_null())
                std::printf("FID unavailable: %s\n", reason(QualityMetric::kFid).c_str());
            else
                std::printf("FID %.4f (%lld generated, %lld real images)\n", j["fid"].get<double>(), static_cast<long long>(samples_),
                            static_cast<long long>(j.value("real_samples", int64_t{0})));
        } else if (m == QualityMetric::kKid) {
            if (j["kid"].is_null())
                std::printf("KID unavailable: %s\n", reason(QualityMetric::kKid).c_str());
            else
                std::printf("KID %.6f +- %.6f (%lld subsets of %lld)\n", j["kid"].get<double>(), j["kid_std"].get<double>(),
                            static_cast<long long>(j.value("kid_subsets", int64_t{0})), static_cast<long long>(j.value("kid_subset_size", int64_t{0})));
        } else if (m == QualityMetric::kPr) {
            if (j["precision"].is_null())
                std::printf("precision/recall unavailable: %s\n", reason(QualityMetric::kPr).c_str());
            else
                std::printf("precision %.4f, recall %.4f (k = %lld)\n", j["precision"].get<double>(), j["recall"].get<double>(),
                            static_cast<long long>(j.value("pr_k", int64_t{3})));
        } else if (m == QualityMetric::kSwd) {
            if (j["swd"].is_null()) {
                std::printf("SWD unavailable: %s\n", reason(QualityMetric::kSwd).c_str());
            } else {
                std::printf("SWD x 1e3 %.4f (%lld images each side); per level:", j["swd"].get<double>(),
                            static_cast<long long>(j.value("swd_samples", int64_t{0})));
                // Finest level first, as the paper's tables list them.
                std::vector<std::pair<int64_t, double>> levels;
                for (const auto& [res, v] : j["swd_levels"].items()) levels.emplace_back(std::stoll(res), v.get<double>());
                std::sort(levels.begin(), levels.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
                for (const auto& [res, v] : levels) std::printf(" %lld px %.4f", static_cast<long long>(res), v);
                std::printf("\n");
            }
        } else if (const QualityMetric::Spec* spec = QualityMetric::find(m)) {  // any other: its label and figures
            if (j.value(spec->figures.front(), nlohmann::json()).is_null()) {
                std::printf("%s unavailable: %s\n", spec->label, reason(m).c_str());
                continue;
            }
            std::string line = spec->label;
            for (size_t i = 0; i < spec->figures.size(); ++i)
                line += (i == 0 ? " " : ", ") + std::string(spec->figures[i]) + " " + std::to_string(j.value(spec->figures[i], 0.0));
            std::printf("%s\n", line.c_str());
        }
    }
    if (j.contains("features") && !j["features"].get<std::string>().empty())
        std::printf("features: %s (sha256 %s, %lld dims), %.1f s\n", j["features"].get<std::string>().c_str(),
                    j.value("features_sha256", std::string()).substr(0, 12).c_str(), static_cast<long long>(j.value("feature_dim", int64_t{0})),
                    j.value("seconds", 0.0));
    return 0;
}

}  // namespace streetgan
