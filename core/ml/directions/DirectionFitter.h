// Named directions learnt from labels, as InterFaceGAN does for a DCGAN (issue 44 item 2), with
// nothing but the checkpoint and the labelled photos:
// 1. a LabelClassifier per label (LabelTarget) on the labelled photos' features; its balanced
//    held-out accuracy is reported;
// 2. `samples` latents z = LatentSeed::draw(seed, nz, samples), their images G(z) and the
//    classifier's score of each (generated once, scored for every label);
// 3. the most and the least typical `extremePercent` of the samples (InterFaceGAN's 2%) as the
//    positive and negative side; a LogisticFit in z (no standardising: z is N(0, I)) on a seeded
//    70% of them, its balanced accuracy on the other 30% reported;
// 4. the boundary's unit normal, pointing to the positive side, is the direction;
// 5. on request (`orthogonalTo`: names or labels of directions fitted in the same call), every
//    other direction is made orthogonal to those (Gram-Schmidt: InterFaceGAN's conditional
//    manipulation, "change night without changing city") and its held-out accuracy is measured
//    again along the new normal (threshold: the midpoint of the two sides' mean projections on
//    the training part).
// Deterministic per seed on one device and thread count.
//
// Thread contract: fit() runs on the calling thread (never the GUI's: seconds to minutes) and
// runs the modules given to the constructor, which no other thread may run meanwhile. `cancel`
// is polled before every batch (RenderCancelled); `progress` is called on the calling thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "base/dataset/ImageLabels.h"
#include "base/latent/NamedDirection.h"
#include "ml/directions/LabelTarget.h"
#include "ml/directions/LabelledImages.h"
#include "ml/model/Discriminator.h"
#include "ml/model/Generator.h"

namespace streetgan {

class DirectionFitter {
public:
    struct Options {
        int64_t samples = 10000;      ///< generated samples scored, 100..1000000
        double extremePercent = 2.0;  ///< share of them taken from each end, 0.1..50
        uint64_t seed = 0;            ///< latents, splits
        int64_t batch = 256;          ///< generator batch
        std::vector<std::string> orthogonalTo;
        /// ConfigError naming the option out of range, or too few extremes (< kMinExtremes a side).
        void validate() const;
        int64_t extremesPerSide() const;
    };
    static constexpr int64_t kMinExtremes = 10;
    /// Labelled images each side of a label needs among those loaded (the classifier holds out 20%).
    static constexpr int64_t kMinLabelledPerSide = 10;

    struct Progress {
        std::string stage;  ///< "labelled features", "samples", "fitting"
        int64_t done = 0, total = 0;
    };
    using ProgressFn = std::function<void(const Progress&)>;

    /// `d` may be null (generator-only checkpoint: thumbnail features only).
    DirectionFitter(Generator g, Discriminator d, Options options);

    /// One direction per target, in order. `images` are the labelled photos; `labels` give each
    /// key's side per target. DataError when a target has too few labelled images on a side;
    /// ConfigError when orthogonalTo names no direction of `targets`.
    std::vector<NamedDirection> fit(const LabelledImages& images, const ImageLabels& labels, const std::vector<LabelTarget>& targets,
                                    const ProgressFn& progress = {}, const std::atomic<bool>* cancel = nullptr) const;

    /// What fit() refuses before any work, one line each: DataError when fewer than
    /// kMinLabelledPerSide of `keys` are on either side of a target; ConfigError when
    /// options.orthogonalTo names no target. Callers may check before loading the images.
    static void checkInputs(const std::vector<std::string>& keys, const ImageLabels& labels, const std::vector<LabelTarget>& targets, const Options& options);

    /// `d` minus its projections on `others` (orthonormalised in order; ones that are (nearly)
    /// dependent on earlier ones are skipped), normalised. DataError when `d` lies within their span.
    static at::Tensor orthogonalise(const at::Tensor& d, const std::vector<at::Tensor>& others);

    const Options& options() const { return options_; }

private:
    Generator g_;
    Discriminator d_;
    Options options_;
};

}  // namespace streetgan
