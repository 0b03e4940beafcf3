// The small classifier of a named direction (issue 44 item 2, InterFaceGAN's attribute predictor
// without a downloaded network): image features from the checkpoint itself, a LogisticFit on the
// labelled photos, its held-out accuracy, and scores for generated images.
//
// Features of an image (3, S, S) in [-1, 1]:
// - an 8x8 colour thumbnail (area average; 192 numbers): brightness, sky colour, snow and layout
//   at a glance, and all there is for a generator-only checkpoint (the demos have no D);
// - where the checkpoint has a discriminator, D's own features (DiscriminatorImpl::features), each
//   LeakyReLU stage averaged over its positions (ndf * (1 + 2 + 4 + ...) numbers): what D learnt to
//   tell streets by, AnoGAN's idea, as the inverter uses them.
// The held-out part is a seeded random share of the labelled images (not of the sequences: MSLS
// neighbours look alike, so the figure is optimistic for photos of one sequence).
//
// Thread contract: features() runs D on the calling thread (one thread per module); train() and
// the fitted classifier are as LogisticFit's.
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

#include "ml/directions/LogisticFit.h"
#include "ml/model/Discriminator.h"

namespace streetgan {

class LabelClassifier {
public:
    static constexpr int kThumbnail = 8;

    struct Trained {
        LogisticFit fit;
        double heldOutAccuracy = 0;  ///< balanced (LogisticFit)
        int64_t train = 0, heldOut = 0;
    };

    /// `d` may be null (a generator-only checkpoint): thumbnail features only. D goes in eval mode.
    explicit LabelClassifier(Discriminator d);

    /// images: float (N, 3, S, S) in [-1, 1] (any device); returns float32 (N, F) on the CPU,
    /// computed `batch` images at a time without gradients.
    at::Tensor features(const at::Tensor& images, int64_t batch = 128) const;
    bool usesDiscriminator() const { return !d_.is_empty(); }

    /// Fits on all but a `heldOutFraction` share of the rows (chosen by `seed`) and measures on
    /// that share. DataError when either part lacks a class (too few labelled images).
    static Trained train(const at::Tensor& features, const at::Tensor& y, uint64_t seed, double heldOutFraction = 0.2);

private:
    mutable Discriminator d_;
};

}  // namespace streetgan
