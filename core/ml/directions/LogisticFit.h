// A class-balanced, L2-regularised logistic regression in LibTorch: the one linear fit behind both
// steps of a named direction (ml/latent/DirectionFitter): the label classifier on image features
// and InterFaceGAN's boundary in z. InterFaceGAN fits a linear SVM; a logistic fit gives the same
// kind of separating hyperplane (the normal is what is used) and needs no extra solver.
//
// - Balanced: each class carries half the loss whatever its share (MSLS has ~10% night images), so
//   the boundary is not pushed into the smaller class; accuracies are reported balanced too (the
//   mean of the per-class hit rates), so "always day" scores 50%, not 90%.
// - Standardise (optional): features are centred and scaled by the training set's mean and
//   standard deviation before the fit (image features mix scales); weightInInputs() maps the
//   weight back to the input coordinates. The z boundary is fitted without it (z is N(0, I)).
// - Optimiser: full-batch Adam for a fixed number of steps from w = 0 (deterministic on one device
//   and thread count; no random state).
//
// Thread contract: fit() runs on the calling thread; a fitted LogisticFit is immutable and its
// const members may be called from any thread.
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

namespace streetgan {

class LogisticFit {
public:
    struct Options {
        int steps = 400;
        double lr = 0.05;
        double l2 = 1e-3;  ///< weight decay on w (not on the bias), per sample-averaged loss
        bool standardise = true;
    };

    /// x: float (N, D); y: (N) bool or 0/1. Throws DataError when a class is missing or the shapes
    /// disagree.
    static LogisticFit fit(const at::Tensor& x, const at::Tensor& y, const Options& options);
    /// The logit of each row of x (N, D): float32 (N), positive on the positive side.
    at::Tensor logits(const at::Tensor& x) const;
    /// Balanced accuracy of sign(logits) against y (see above), 0..1.
    double balancedAccuracy(const at::Tensor& x, const at::Tensor& y) const;
    /// The normal of the boundary in input coordinates: float32 (D).
    at::Tensor weightInInputs() const;

    /// Balanced accuracy of a prediction (bool (N)) against y.
    static double balancedAccuracyOf(const at::Tensor& predicted, const at::Tensor& y);

private:
    at::Tensor mean_, scale_, w_, b_;  // logits = ((x - mean) / scale) . w + b
};

}  // namespace streetgan
