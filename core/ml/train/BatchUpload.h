// A step's batch moved to the training device on a stream of its own (CUDA), so that the copy of
// the next batch's pinned pixels and its normalisation run while the GPU is still busy with the
// step before: the host queues a step and returns long before the GPU has run it, and the copy it
// then queues for the next batch would otherwise wait behind that step on the same stream. The
// current stream waits for the copy (an event), and the batch's memory is marked as used by it so
// that the caching allocator does not hand it to the next copy early. The same values as
// DeviceBatch::from on the current stream (which the CPU, and any other device, uses).
#pragma once

#include <memory>

#include <torch/types.h>

#include "ml/dataset/Batch.h"
#include "ml/train/DeviceBatch.h"

namespace streetgan {

class BatchUpload {
public:
    explicit BatchUpload(torch::Device device);
    ~BatchUpload();
    BatchUpload(const BatchUpload&) = delete;
    BatchUpload& operator=(const BatchUpload&) = delete;

    /// As DeviceBatch::from(batch, device, channelsLast, instanceStd); usable by the current stream.
    DeviceBatch upload(const Batch& batch, bool channelsLast, double instanceStd);
    /// Whether copies run on a stream of their own (CUDA) rather than the current one.
    bool aside() const { return impl_ != nullptr; }

private:
    struct Impl;
    torch::Device device_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace streetgan
