// One step's inputs on the training device, from either form of Batch (Batch.h): the host-ready
// float tensors are copied as they are; the device-side form's uint8 pixels are copied (a quarter
// of the bytes) and normalised there, and the per-pixel draws (augmentation and instance noise)
// are made there from the batch's seed, so a resumed run draws the same values at the same step.
// z comes with the batch in both forms (the loader draws it: a CPU and a GPU run of one seed
// train on the same z).
#pragma once

#include <cstdint>

#include <torch/types.h>

#include "ml/dataset/Batch.h"

namespace streetgan {

struct DeviceBatch {
    torch::Tensor real;       ///< (B, 3, S, S) float32 on the device, channels-last when asked
    torch::Tensor noise;      ///< (B, nz, 1, 1) float32 on the device
    torch::Tensor noiseReal;  ///< instance noise already scaled by instanceStd, or undefined
    torch::Tensor noiseFake;

    /// `instanceStd` > 0 scales the batch's instance noise (drawn here in the device-side form).
    static DeviceBatch from(const Batch& batch, torch::Device device, bool channelsLast, double instanceStd);
};

}  // namespace streetgan
