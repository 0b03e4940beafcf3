#include "ml/directions/DirectionFitter.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "base/util/Errors.h"
#include "ml/directions/LabelClassifier.h"
#include "ml/export/FrameRenderer.h"
#include "ml/latent/LatentSeed.h"

namespace streetgan {
namespace {

// The boundary's data: the extremes' z, their side, and the seeded train / held-out rows.
struct Extremes {
    at::Tensor z, y, trainIdx, heldIdx;
};

// Balanced held-out accuracy of thresholding the projection on `d` at the midpoint of the two
// sides' mean projections on the training rows.
double projectionAccuracy(const Extremes& e, const at::Tensor& d) {
    const at::Tensor p = e.z.matmul(d);
    const at::Tensor pt = p.index_select(0, e.trainIdx), yt = e.y.index_select(0, e.trainIdx).to(torch::kBool);
    const double mid = 0.5 * (pt.masked_select(yt).mean().item<double>() + pt.masked_select(~yt).mean().item<double>());
    return LogisticFit::balancedAccuracyOf(p.index_select(0, e.heldIdx) > mid, e.y.index_select(0, e.heldIdx));
}

bool names(const NamedDirection& d, const std::string& who) { return d.name == who || d.label == who; }

}  // namespace

void DirectionFitter::Options::validate() const {
    if (samples < 100 || samples > 1000000) throw ConfigError("--samples is " + std::to_string(samples) + "; use 100..1000000");
    if (!(extremePercent >= 0.1 && extremePercent <= 50)) throw ConfigError("--extreme-percent is " + std::to_string(extremePercent) + "; use 0.1..50");
    if (batch < 1 || batch > 65536) throw ConfigError("batch is " + std::to_string(batch) + "; use 1..65536");
    if (extremesPerSide() < kMinExtremes)
        throw ConfigError("--samples " + std::to_string(samples) + " at " + std::to_string(extremePercent) + "% gives " + std::to_string(extremesPerSide()) +
                          " samples a side; at least " + std::to_string(kMinExtremes) + " are needed: raise --samples");
}

int64_t DirectionFitter::Options::extremesPerSide() const { return static_cast<int64_t>(std::llround(static_cast<double>(samples) * extremePercent / 100.0)); }

DirectionFitter::DirectionFitter(Generator g, Discriminator d, Options options) : g_(std::move(g)), d_(std::move(d)), options_(std::move(options)) {
    options_.validate();
    g_->eval();
}

void DirectionFitter::checkInputs(const std::vector<std::string>& keys, const ImageLabels& labels, const std::vector<LabelTarget>& targets,
                                  const Options& options) {
    for (const auto& t : targets) {
        int64_t pos = 0, neg = 0;
        for (const auto& key : keys)
            if (const auto side = t.of(labels, key)) ++(*side ? pos : neg);
        if (std::min(pos, neg) < kMinLabelledPerSide)
            throw DataError(t.spec + ": too few labelled images: " + std::to_string(pos) + " on the '" + t.positive + "' side and " + std::to_string(neg) +
                            " on the other, of " + std::to_string(keys.size()) + " images; a classifier needs " + std::to_string(kMinLabelledPerSide) +
                            " a side: give more labelled images (--images)");
    }
    for (const auto& who : options.orthogonalTo)
        if (std::none_of(targets.begin(), targets.end(), [&](const LabelTarget& t) { return t.name == who || t.label == who; }))
            throw ConfigError("--orthogonal-to " + who + " names no direction being fitted; add it to --labels");
}

at::Tensor DirectionFitter::orthogonalise(const at::Tensor& d, const std::vector<at::Tensor>& others) {
    std::vector<at::Tensor> basis;
    for (const auto& o : others) {
        at::Tensor v = o.to(torch::kDouble).flatten().clone();
        for (const auto& b : basis) v -= v.dot(b) * b;
        const double n = v.norm().item<double>();
        if (n > 1e-6 * std::max(1.0, o.to(torch::kDouble).norm().item<double>())) basis.push_back(v / n);
    }
    at::Tensor v = d.to(torch::kDouble).flatten().clone();
    const double before = v.norm().item<double>();
    for (const auto& b : basis) v -= v.dot(b) * b;
    const double n = v.norm().item<double>();
    if (!(n > 1e-6 * before)) throw DataError("the direction lies within the span of those it is to be orthogonal to: nothing is left of it");
    return (v / n).to(d.scalar_type());
}

std::vector<NamedDirection> DirectionFitter::fit(const LabelledImages& images, const ImageLabels& labels, const std::vector<LabelTarget>& targets,
                                                 const ProgressFn& progress, const std::atomic<bool>* cancel) const {
    torch::NoGradGuard noGrad;
    checkInputs(images.keys, labels, targets, options_);
    auto report = [&](const char* stage, int64_t done, int64_t total) {
        if (progress) progress({stage, done, total});
    };
    auto checkCancel = [&] {
        if (cancel && cancel->load()) throw RenderCancelled("direction fitting cancelled");
    };
    Generator g = g_;  // a copy of the holder (the same module): forward() is not const
    const LabelClassifier classifier(d_);
    // 1. Features of the labelled photos.
    std::vector<at::Tensor> featureRows;
    const int64_t n = images.images.size(0);
    for (int64_t i = 0; i < n; i += options_.batch) {
        checkCancel();
        featureRows.push_back(classifier.features(images.images.narrow(0, i, std::min(options_.batch, n - i))));
        report("labelled features", std::min(n, i + options_.batch), n);
    }
    const at::Tensor labelledFeatures = torch::cat(featureRows, 0);
    // 2. Generated samples and their features.
    const int64_t nz = g->config().nz;
    const at::Tensor z = LatentSeed::draw(options_.seed, nz, options_.samples);
    const auto device = g->parameters().front().device();
    std::vector<at::Tensor> sampleRows;
    for (int64_t i = 0; i < options_.samples; i += options_.batch) {
        checkCancel();
        const at::Tensor x = g->forward(z.narrow(0, i, std::min(options_.batch, options_.samples - i)).to(device));
        sampleRows.push_back(classifier.features(x));
        report("samples", std::min(options_.samples, i + options_.batch), options_.samples);
    }
    const at::Tensor sampleFeatures = torch::cat(sampleRows, 0);
    const at::Tensor zFlat = z.view({options_.samples, nz});
    const int64_t m = options_.extremesPerSide();

    std::vector<NamedDirection> out;
    std::vector<Extremes> extremes;
    for (size_t k = 0; k < targets.size(); ++k) {
        checkCancel();
        report("fitting", static_cast<int64_t>(k), static_cast<int64_t>(targets.size()));
        const LabelTarget& t = targets[k];
        // 3. The classifier on the labelled photos that have this label.
        std::vector<int64_t> rows;
        std::vector<float> side;
        for (int64_t i = 0; i < n; ++i)
            if (const auto s = t.of(labels, images.keys[static_cast<size_t>(i)])) {
                rows.push_back(i);
                side.push_back(*s ? 1.0F : 0.0F);
            }
        const at::Tensor y = torch::tensor(side);
        const at::Tensor feats = labelledFeatures.index_select(0, torch::tensor(rows, torch::kLong));
        LabelClassifier::Trained c;
        try {
            c = LabelClassifier::train(feats, y, options_.seed + k);
        } catch (const DataError& e) {
            throw DataError(t.spec + ": " + e.what());
        }
        // 4. Score the samples; the extremes; the boundary in z.
        const at::Tensor order = c.fit.logits(sampleFeatures).argsort(0, /*descending=*/true);
        Extremes e;
        e.z = torch::cat({zFlat.index_select(0, order.narrow(0, 0, m)), zFlat.index_select(0, order.narrow(0, options_.samples - m, m))}, 0);
        e.y = torch::cat({torch::ones({m}), torch::zeros({m})});
        auto gen = at::make_generator<at::CPUGeneratorImpl>(options_.seed + 1000 + k);
        const at::Tensor perm = torch::randperm(2 * m, gen, torch::TensorOptions().dtype(torch::kLong));
        const int64_t held = std::max<int64_t>(2, (2 * m * 3) / 10);
        e.heldIdx = perm.narrow(0, 0, held);
        e.trainIdx = perm.narrow(0, held, 2 * m - held);
        LogisticFit::Options lo;
        lo.standardise = false;
        const LogisticFit boundary = LogisticFit::fit(e.z.index_select(0, e.trainIdx), e.y.index_select(0, e.trainIdx), lo);
        at::Tensor w = boundary.weightInInputs().to(torch::kDouble);
        w = w / w.norm();

        NamedDirection d;
        d.name = t.name;
        d.label = t.label;
        d.positive = t.positive;
        d.z.assign(w.data_ptr<double>(), w.data_ptr<double>() + nz);
        d.classifierAccuracy = c.heldOutAccuracy;
        d.classifierTrain = c.train;
        d.classifierHeldOut = c.heldOut;
        d.classifierUsedDiscriminator = classifier.usesDiscriminator();
        d.labelledPositives = static_cast<int64_t>(y.sum().item<double>());
        d.labelledNegatives = y.numel() - d.labelledPositives;
        d.samples = options_.samples;
        d.extremesPerSide = m;
        d.boundaryAccuracy = boundary.balancedAccuracy(e.z.index_select(0, e.heldIdx), e.y.index_select(0, e.heldIdx));
        d.boundaryTrain = e.trainIdx.numel();
        d.boundaryHeldOut = held;
        out.push_back(std::move(d));
        extremes.push_back(std::move(e));
    }
    // 5. Orthogonal to the directions named by orthogonalTo (their own vectors stay as fitted).
    if (!options_.orthogonalTo.empty()) {
        std::vector<at::Tensor> basis;
        std::vector<std::string> basisNames;
        for (const auto& d : out)
            for (const auto& who : options_.orthogonalTo)
                if (names(d, who)) {
                    basis.push_back(torch::tensor(d.z, torch::kDouble));
                    basisNames.push_back(d.name);
                    break;
                }
        for (size_t k = 0; k < out.size(); ++k) {
            auto& d = out[k];
            if (std::find(basisNames.begin(), basisNames.end(), d.name) != basisNames.end()) continue;
            const at::Tensor v = torch::tensor(d.z, torch::kDouble);
            for (const auto& b : basis) d.cosineBefore = std::max(d.cosineBefore, std::abs(v.dot(b).item<double>()));
            at::Tensor o;
            try {
                o = orthogonalise(v, basis);
            } catch (const DataError& e) {
                throw DataError(d.name + ": " + e.what());
            }
            d.z.assign(o.data_ptr<double>(), o.data_ptr<double>() + nz);
            d.orthogonalTo = basisNames;
            d.orthogonalAccuracy = projectionAccuracy(extremes[k], o.to(torch::kFloat));
        }
    }
    report("fitting", static_cast<int64_t>(targets.size()), static_cast<int64_t>(targets.size()));
    return out;
}

}  // namespace streetgan
