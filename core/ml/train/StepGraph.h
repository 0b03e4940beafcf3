// A training step as a CUDA graph (train --cuda-graph): the step's few hundred kernel launches
// are captured once and replayed as one, which takes the host's launch cost out of every step.
// The captured kernels read and write the same tensors at every replay: the caller keeps its
// inputs in fixed tensors (copying each step's batch into them), and captures again where
// anything the kernels depend on changes (learning rate, batch shape, a restored checkpoint).
// Exists in CUDA builds of the trainer; elsewhere available() is false and the constructor throws.
#pragma once

#include <functional>
#include <memory>

#include <torch/types.h>

namespace streetgan {

class StepGraph {
public:
    /// True where this build has CUDA graphs and `device` is a CUDA device.
    static bool available(torch::Device device);
    /// Throws ConfigError where !available(device).
    explicit StepGraph(torch::Device device);
    ~StepGraph();
    StepGraph(const StepGraph&) = delete;
    StepGraph& operator=(const StepGraph&) = delete;

    /// Runs `body` eagerly on the stream the capture uses, ordered after and before the current
    /// stream's work: the warm-up steps, in which cuDNN benchmarks its algorithms and autograd and
    /// the optimiser make their lazily created state (none of which may happen while capturing).
    void runEager(const std::function<void()>& body);
    /// Records `body`'s kernels (they do not run: replay() runs them), replacing an earlier capture.
    void capture(const std::function<void()>& body);
    /// Runs the captured kernels on the current stream. Needs captured().
    void replay();
    bool captured() const;
    /// Drops the capture (and its memory pool once nothing else holds its tensors).
    void reset();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace streetgan
