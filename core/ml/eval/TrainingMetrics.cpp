#include "ml/eval/TrainingMetrics.h"

#include <chrono>
#include <string>
#include <vector>

#include "base/util/Errors.h"
#include "base/util/SeedHash.h"

namespace streetgan {
namespace {

MetricOptions optionsFrom(const TrainConfig& cfg) {
    MetricOptions o;
    o.metrics = cfg.metrics;
    o.features = cfg.metricFeatures;
    o.samples = cfg.metricSamples;
    o.seed = SeedHash::of(cfg.seed, 0x6d6574726963ULL);  // "metric": the same z at every checkpoint
    o.cacheDir = cfg.metricCacheDir;
    return o;
}

}  // namespace

TrainingMetrics::TrainingMetrics(const TrainConfig& cfg, c10::Device device)
    : cfg_(cfg), every_(cfg.metricEveryCheckpoints), metrics_(optionsFrom(cfg), device) {}

TrainingMetrics::~TrainingMetrics() = default;

MetricEvent TrainingMetrics::evaluateEvent(Generator& g, int64_t step, const std::atomic<bool>* cancel) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::string> warnings;
    MetricCallbacks cb;
    cb.warn = [&](const std::string& w) { warnings.push_back(w); };
    cb.cancel = cancel;
    nlohmann::json body;
    try {
        const std::string problem = metrics_.featureModelProblem();
        if (!problem.empty()) {
            body = FeatureMetrics::unavailable(cfg_.metrics, problem);
        } else {
            if (!real_) real_ = FeatureMetrics::realSource(cfg_.data, cfg_);
            if (auto r = metrics_.evaluate(g, *real_, cb))
                body = std::move(*r);
            else
                body = FeatureMetrics::unavailable(cfg_.metrics, "cancelled: the run is stopping");
        }
    } catch (const std::exception& e) {
        body = FeatureMetrics::unavailable(cfg_.metrics, e.what());
    }
    MetricEvent event = body.get<MetricEvent>();  // FeatureMetrics' members; any it adds later stay in `extra`
    event.step = step;
    if (!event.samples) event.samples = cfg_.metricSamples;
    if (!event.features) event.features = cfg_.metricFeatures;
    event.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    event.warnings = std::move(warnings);
    return event;
}

nlohmann::json TrainingMetrics::evaluate(Generator& g, int64_t step, const std::atomic<bool>* cancel) { return toJson(evaluateEvent(g, step, cancel)); }

}  // namespace streetgan
