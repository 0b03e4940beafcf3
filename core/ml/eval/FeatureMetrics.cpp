#include "ml/eval/FeatureMetrics.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "base/run/QualityMetric.h"
#include "base/run/TrainConfig.h"
#include "base/util/Errors.h"
#include "ml/dataset/DataSources.h"
#include "ml/eval/FeatureExtractor.h"
#include "ml/eval/FeatureMetric.h"
#include "ml/eval/FrechetDistance.h"
#include "ml/eval/SwdEvaluator.h"

namespace streetgan {
namespace {

bool cancelled(const MetricCallbacks& cb) { return cb.cancel && cb.cancel->load(std::memory_order_relaxed); }

// Puts the generator in eval mode for the scope, restoring train mode afterwards (also on throw).
class EvalModeGuard {
public:
    explicit EvalModeGuard(Generator& g) : g_(g), wasTraining_(g->is_training()) { g_->eval(); }
    ~EvalModeGuard() {
        if (wasTraining_) g_->train();
    }
    EvalModeGuard(const EvalModeGuard&) = delete;
    EvalModeGuard& operator=(const EvalModeGuard&) = delete;

private:
    Generator& g_;
    bool wasTraining_;
};

std::string formatNumber(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

}  // namespace

FeatureMetrics::FeatureMetrics(MetricOptions options, c10::Device device) : opt_(std::move(options)), device_(device) {
    checkNames(opt_.metrics);
    if (opt_.samples < 2) throw ConfigError("metric samples " + std::to_string(opt_.samples) + " is too small: use at least 2 (2000+ for stable FID)");
    if (opt_.realSamples < 0) throw ConfigError("real samples must be 0 (same as samples) or more");
    if (opt_.batch < 1) throw ConfigError("metric batch size must be at least 1");
    if (opt_.kidSubsets < 1) throw ConfigError("KID subsets must be at least 1");
    if (opt_.kidSubsetSize < 2) throw ConfigError("KID subset size must be at least 2");
    if (opt_.prK < 1) throw ConfigError("precision/recall k must be at least 1");
    if (wants(QualityMetric::kSwd)) swd_ = std::make_unique<SwdEvaluator>(opt_, device_);
}

FeatureMetrics::~FeatureMetrics() = default;

std::vector<std::string> FeatureMetrics::parseList(const std::string& commaSeparated) {
    std::vector<std::string> out;
    std::stringstream ss(commaSeparated);
    for (std::string item; std::getline(ss, item, ',');) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty() && std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
    }
    checkNames(out);
    return out;
}

void FeatureMetrics::checkNames(const std::vector<std::string>& metrics) {
    QualityMetric::check(metrics);
    for (const std::string& m : metrics)
        if (QualityMetric::find(m)->needs == QualityMetric::Needs::FeatureModel && !FeatureMetric::find(m))
            throw ConfigError("metric '" + m + "' has no evaluator in this streetgan-trainer: core/ml/CMakeLists.txt's STREETGAN_FEATURE_METRICS must list it");
}

std::string FeatureMetrics::noFeatureModelReason() { return "no feature model: pass --features inception-2015-12-05.pt (clean-fid's TorchScript Inception)"; }

nlohmann::json FeatureMetrics::unavailable(const std::vector<std::string>& metrics, const std::string& reason) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& m : metrics) {
        if (const QualityMetric::Spec* spec = QualityMetric::find(m))
            for (const char* figure : spec->figures) j[figure] = nullptr;
        j[m + "_unavailable"] = reason;
    }
    return j;
}

RealImageSource FeatureMetrics::realSource(const std::string& spec, const TrainConfig& run) {
    TrainConfig plain = run;
    plain.maxShift = 0;
    plain.augNoise = 0;
    plain.flip = false;
    RealImageSource r;
    r.source = DataSources::open(spec, plain);
    r.imageSize = static_cast<int>(run.model.imgSize);
    r.identity = r.source->describe();
    if (spec == "synthetic")
        r.identity += ", seed " + std::to_string(run.seed);
    else
        r.identity += ", crop factor " + formatNumber(run.cropFactor);
    return r;
}

at::Tensor RealImageSource::loadEvenlySpaced(int64_t from, int64_t n, int64_t count) const {
    const int64_t available = source->size();
    const int64_t bytesPerImage = int64_t{imageSize} * imageSize * 3;
    at::Tensor bytes = at::empty({n, imageSize, imageSize, 3}, at::TensorOptions().dtype(at::kByte));
    uint8_t* base = bytes.data_ptr<uint8_t>();
    // ImageSource::load is thread-safe: decode the batch on torch's intra-op threads.
    at::parallel_for(0, n, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
            const int64_t index = (from + i) * available / count;  // evenly spaced over the source
            source->load(index, imageSize, 0, base + i * bytesPerImage);
        }
    });
    return bytes;
}

bool FeatureMetrics::generate(Generator& g, int64_t count, int64_t limit, uint64_t seed, int batch, const MetricCallbacks& cb,
                              const std::function<void(const at::Tensor& images, int64_t first)>& consume) {
    torch::NoGradGuard noGrad;
    EvalModeGuard evalMode(g);
    const ModelConfig& mc = g->config();
    const auto params = g->parameters();
    const c10::Device gDevice = params.empty() ? c10::Device(c10::kCPU) : params.front().device();
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    const at::Tensor z = at::randn({count, mc.nz, 1, 1}, gen, at::TensorOptions().dtype(at::kFloat));
    for (int64_t s = 0; s < std::min(limit, count); s += batch) {
        if (cancelled(cb)) return false;
        const int64_t b = std::min<int64_t>(batch, std::min(limit, count) - s);
        consume(g->forward(z.narrow(0, s, b).to(gDevice)).to(at::kFloat), s);
    }
    return true;
}

bool FeatureMetrics::wants(const char* metric) const { return std::find(opt_.metrics.begin(), opt_.metrics.end(), metric) != opt_.metrics.end(); }

bool FeatureMetrics::wantsFeatures() const { return QualityMetric::anyNeedsFeatures(opt_.metrics); }

std::string FeatureMetrics::featureModelProblem() {
    if (extractor_) return {};
    if (opt_.features.empty()) return noFeatureModelReason();
    if (!loadProblem_.empty()) return loadProblem_;
    try {
        extractor_ = std::make_unique<FeatureExtractor>(opt_.features, device_);
    } catch (const std::exception& e) {
        loadProblem_ = e.what();
    }
    return loadProblem_;
}

std::optional<RealFeatures> FeatureMetrics::realFeatures(const RealImageSource& real, const MetricCallbacks& cb, std::string& cacheState) {
    const int64_t available = real.source->size();
    const int64_t want = opt_.realSamples > 0 ? opt_.realSamples : opt_.samples;
    const int64_t count = std::min(available, want);
    if (count < 2) throw DataError("the real image source has " + std::to_string(available) + " images: metrics need at least 2");
    const nlohmann::json key = RealFeatureCache::key(real.identity, real.imageSize, count, extractor_->sha256());
    if (realMemo_ && realKey_ == key) {
        cacheState = "hit";
        return realMemo_;
    }
    RealFeatureCache cache(opt_.cacheDir);
    if (opt_.cache) {
        if (auto hit = cache.load(key, cb.warn)) {
            cacheState = "hit";
            realKey_ = key;
            realMemo_ = std::move(hit);
            return realMemo_;
        }
    }
    cacheState = opt_.cache ? "miss" : "off";

    at::Tensor feats;
    for (int64_t s = 0; s < count; s += opt_.batch) {
        if (cancelled(cb)) return std::nullopt;
        const int64_t b = std::min<int64_t>(opt_.batch, count - s);
        const at::Tensor bytes = real.loadEvenlySpaced(s, b, count);
        at::Tensor f = extractor_->features(FeatureExtractor::fromBytes(bytes), opt_.batch);
        if (!feats.defined()) feats = at::empty({count, f.size(1)}, f.options());
        feats.narrow(0, s, b).copy_(f);
        if (cb.progress) cb.progress("real features", static_cast<double>(s + b) / static_cast<double>(count));
    }
    RealFeatures out;
    out.features = feats;
    out.stats = FrechetDistance::statistics(feats);
    if (opt_.cache) {
        try {
            cache.store(key, out);
        } catch (const Error& e) {
            if (cb.warn) cb.warn(std::string(e.what()) + " (continuing without the cache)");
        }
    }
    realKey_ = key;
    realMemo_ = out;
    return out;
}

std::optional<nlohmann::json> FeatureMetrics::evaluate(Generator& g, const RealImageSource& real, const MetricCallbacks& cb) {
    const auto t0 = std::chrono::steady_clock::now();
    nlohmann::json j = nlohmann::json::object();
    if (wantsFeatures()) {
        auto f = featureMetrics(g, real, cb);
        if (!f) return std::nullopt;
        j.update(*f);
    }
    if (swd_) {
        auto s = swd_->evaluate(g, real, cb);
        if (!s) return std::nullopt;
        j.update(*s);
    }
    j["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return j;
}

std::optional<nlohmann::json> FeatureMetrics::featureMetrics(Generator& g, const RealImageSource& real, const MetricCallbacks& cb) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::string> featureList;
    for (const auto& m : opt_.metrics)
        if (QualityMetric::find(m)->needs == QualityMetric::Needs::FeatureModel) featureList.push_back(m);
    if (const std::string problem = featureModelProblem(); !problem.empty()) {
        nlohmann::json j = unavailable(featureList, problem);
        j["samples"] = opt_.samples;
        return j;
    }
    const ModelConfig& mc = g->config();
    if (mc.imgSize != real.imageSize)
        throw DataError("the generator makes " + std::to_string(mc.imgSize) + " px images but the real images were opened at " +
                        std::to_string(real.imageSize) + " px: open them at the model's size");

    auto since = [](std::chrono::steady_clock::time_point t) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count(); };
    std::string cacheState;
    std::optional<RealFeatures> realF = realFeatures(real, cb, cacheState);
    if (!realF) return std::nullopt;
    const double realSeconds = since(t0);
    const auto t1 = std::chrono::steady_clock::now();

    // Generated features, batch by batch; z drawn at once so the set does not depend on the batch.
    at::Tensor fake;
    const bool done = FeatureMetrics::generate(g, opt_.samples, opt_.samples, opt_.seed, opt_.batch, cb, [&](const at::Tensor& images, int64_t s) {
        const int64_t b = images.size(0);
        at::Tensor f = extractor_->features(FeatureExtractor::toNetworkInput(images), opt_.batch);
        if (!fake.defined()) fake = at::empty({opt_.samples, f.size(1)}, f.options());
        fake.narrow(0, s, b).copy_(f);
        if (cb.progress) cb.progress("generated features", static_cast<double>(s + b) / static_cast<double>(opt_.samples));
    });
    if (!done) return std::nullopt;
    if (fake.size(1) != realF->features.size(1))
        throw DataError("cached real features have " + std::to_string(realF->features.size(1)) + " dimensions but the feature model gives " +
                        std::to_string(fake.size(1)) + ": delete the cache folder '" + RealFeatureCache(opt_.cacheDir).dir() + "'");

    const double generatedSeconds = since(t1);
    const auto t2 = std::chrono::steady_clock::now();
    nlohmann::json j = nlohmann::json::object();
    for (const std::string& m : featureList) j.update(FeatureMetric::find(m)->compute(*realF, fake, opt_));  // checked in the constructor
    j["features"] = opt_.features;
    j["features_sha256"] = extractor_->sha256();
    j["feature_dim"] = fake.size(1);
    j["samples"] = opt_.samples;
    j["real_samples"] = realF->features.size(0);
    j["real_cache"] = cacheState;
    j["timing"] = {{"real_features", realSeconds}, {"generated_features", generatedSeconds}, {"metrics", since(t2)}};
    j["seconds"] = since(t0);
    return j;
}

}  // namespace streetgan
