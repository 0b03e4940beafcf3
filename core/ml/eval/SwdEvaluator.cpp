#include "ml/eval/SwdEvaluator.h"

#include <algorithm>
#include <chrono>

#include <ATen/ATen.h>

#include "base/util/Errors.h"
#include "base/util/SeedHash.h"
#include "ml/eval/FeatureExtractor.h"
#include "ml/eval/RealDescriptorCache.h"

namespace streetgan {
namespace {

constexpr double kScale = 1e3;  // the paper's tables report SWD x 10^3

bool cancelled(const MetricCallbacks& cb) { return cb.cancel && cb.cancel->load(std::memory_order_relaxed); }

// Per level, the descriptors of a whole set, filled batch by batch.
struct DescriptorSet {
    std::vector<at::Tensor> levels;
    void add(const std::vector<at::Tensor>& batch, int64_t firstRow, int64_t total) {
        if (levels.empty())
            for (const auto& b : batch) levels.push_back(at::empty({total, b.size(1), b.size(2), b.size(3)}, b.options()));
        for (size_t l = 0; l < batch.size(); ++l) levels[l].narrow(0, firstRow, batch[l].size(0)).copy_(batch[l]);
    }
    std::vector<at::Tensor> finalized() const {
        std::vector<at::Tensor> out;
        for (const auto& l : levels) out.push_back(SlicedWasserstein::finalize(l));
        return out;
    }
};

}  // namespace

SwdEvaluator::SwdEvaluator(const MetricOptions& options, c10::Device device, SwdParams params) : opt_(options), device_(device), swd_(params) {
    if (opt_.swdSamples < 2)
        throw ConfigError("SWD samples " + std::to_string(opt_.swdSamples) + " is too small: use at least 2 (hundreds for stable figures)");
    if (opt_.batch < 1) throw ConfigError("metric batch size must be at least 1");
}

nlohmann::json SwdEvaluator::unavailable(const std::string& reason) { return {{"swd", nullptr}, {"swd_unavailable", reason}}; }

uint64_t SwdEvaluator::zSeed(uint64_t metricSeed) { return SeedHash::of(metricSeed, 0x737764); }  // "swd"

std::optional<std::vector<at::Tensor>> SwdEvaluator::realDescriptors(const RealImageSource& real, int64_t count, const MetricCallbacks& cb,
                                                                     std::string& cacheState) {
    const nlohmann::json key = RealDescriptorCache::key(real.identity, real.imageSize, count, swd_.params());
    if (realMemo_ && realKey_ == key) {
        cacheState = "hit";
        return realMemo_;
    }
    RealDescriptorCache cache(opt_.cacheDir);
    if (opt_.cache) {
        if (auto hit = cache.load(key, cb.warn)) {
            cacheState = "hit";
            realKey_ = key;
            realMemo_ = std::move(hit);
            return realMemo_;
        }
    }
    cacheState = opt_.cache ? "miss" : "off";
    DescriptorSet set;
    for (int64_t s = 0; s < count; s += opt_.batch) {
        if (cancelled(cb)) return std::nullopt;
        const int64_t b = std::min<int64_t>(opt_.batch, count - s);
        const at::Tensor images = FeatureExtractor::fromBytes(real.loadEvenlySpaced(s, b, count)).to(device_);
        set.add(swd_.descriptors(images, s), s * swd_.params().nhoodsPerImage, count * swd_.params().nhoodsPerImage);
        if (cb.progress) cb.progress("real SWD descriptors", static_cast<double>(s + b) / static_cast<double>(count));
    }
    std::vector<at::Tensor> levels;
    for (const auto& l : set.finalized()) levels.push_back(l.to(at::kCPU));
    if (opt_.cache) {
        try {
            cache.store(key, levels);
        } catch (const Error& e) {
            if (cb.warn) cb.warn(std::string(e.what()) + " (continuing without the cache)");
        }
    }
    realKey_ = key;
    realMemo_ = levels;
    return levels;
}

std::optional<nlohmann::json> SwdEvaluator::evaluate(Generator& g, const RealImageSource& real, const MetricCallbacks& cb) {
    const ModelConfig& mc = g->config();
    if (mc.imgSize != real.imageSize)
        throw DataError("the generator makes " + std::to_string(mc.imgSize) + " px images but the real images were opened at " +
                        std::to_string(real.imageSize) + " px: open them at the model's size");
    const std::vector<int64_t> res = swd_.resolutions(mc.imgSize);
    const int64_t available = real.source->size();
    const int64_t n = std::min(available, opt_.swdSamples);
    if (n < 2) throw DataError("the real image source has " + std::to_string(available) + " images: SWD needs at least 2");

    std::string cacheState;
    std::optional<std::vector<at::Tensor>> realD = realDescriptors(real, n, cb, cacheState);
    if (!realD) return std::nullopt;

    DescriptorSet fake;
    const int64_t rows = n * swd_.params().nhoodsPerImage;
    auto consume = [&](const at::Tensor& images, int64_t first) {
        fake.add(swd_.descriptors(FeatureExtractor::toNetworkInput(images), first), first * swd_.params().nhoodsPerImage, rows);
        if (cb.progress) cb.progress("generated SWD descriptors", static_cast<double>(first + images.size(0)) / static_cast<double>(n));
    };
    const bool done = FeatureMetrics::generate(g, opt_.swdSamples, n, zSeed(opt_.seed), opt_.batch, cb, consume);
    if (!done) return std::nullopt;
    const std::vector<at::Tensor> fakeD = fake.finalized();

    nlohmann::json levels = nlohmann::json::object();
    double sum = 0;
    for (size_t l = 0; l < res.size(); ++l) {
        const double d = swd_.distance((*realD)[l].to(fakeD[l].device()), fakeD[l], static_cast<int>(l)) * kScale;
        levels[std::to_string(res[l])] = d;
        sum += d;
    }
    return nlohmann::json{{"swd", sum / static_cast<double>(res.size())}, {"swd_levels", levels}, {"swd_samples", n}, {"swd_real_cache", cacheState}};
}

}  // namespace streetgan
