// The arithmetic of a DCGAN training step, per image, from the architecture alone: the model FLOPs
// that MFU (model FLOPs utilisation: achieved FLOP/s over the chip's peak) is measured against.
// Only the convolutions count (2 FLOPs per multiply-add); BatchNorm, activations, the loss and the
// optimiser are memory-bound and left out, as MFU conventionally does.
//
// A convolution's backward pass is two convolutions of its forward's size: the gradient with
// respect to its input (skipped for the first layer of a pass whose input needs none) and with
// respect to its weight (skipped where the weights take no gradient).
#pragma once

#include "base/model/ModelConfig.h"

namespace streetgan {

struct ModelFlops {
    double generatorForward = 0;      ///< FLOPs of one image through G
    double discriminatorForward = 0;  ///< FLOPs of one image through D
    double generatorFirstLayer = 0;   ///< of G's first layer (z has no gradient)
    double discriminatorFirstLayer = 0;

    static ModelFlops of(const ModelConfig& model);
    /// FLOPs of one training step per image as TrainStep runs it: D forward on real and fake with
    /// weight and input gradients (the images need none), D forward again in G's pass with input
    /// gradients only (and weight gradients too when `dWeightGradsInGPass`, as PyTorch's reference
    /// step computes and discards them), G forward and backward.
    double stepPerImage(bool dWeightGradsInGPass = false) const;
};

}  // namespace streetgan
