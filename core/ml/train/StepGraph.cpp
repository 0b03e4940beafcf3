#include "ml/train/StepGraph.h"

#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "base/util/Errors.h"

// STREETGAN_HAVE_CUDA: set by the build for this file alone where LibTorch has CUDA (the `cuda`
// preset). ATen/cuda/CUDAGraph.h needs the CUDA toolkit's headers; everything else here goes
// through c10's device-generic streams and events, so the trainer calls CUDA only through
// libtorch_cuda and libc10_cuda (no libcudart of its own).
#ifdef STREETGAN_HAVE_CUDA
#include <ATen/cuda/CUDAGraph.h>
#endif

namespace streetgan {

#ifdef STREETGAN_HAVE_CUDA

struct StepGraph::Impl {
    torch::Device device;
    c10::Stream stream;  // a non-blocking stream of c10's pool: a graph is never captured on the default stream
    std::unique_ptr<at::cuda::CUDAGraph> graph;
    bool captured = false;

    explicit Impl(torch::Device d) : device(d), stream(c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->getStreamFromGlobalPool(d, false)) {}
    c10::Stream current() const { return c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->getStream(device); }
    // Runs `body` on `stream`, after what the current stream has queued and before what it queues next.
    void onSideStream(const std::function<void()>& body) {
        const c10::Stream cur = current();
        c10::Event before(c10::DeviceType::CUDA);
        before.record(cur);
        before.block(stream);
        {
            c10::StreamGuard guard(stream);
            body();
        }
        c10::Event after(c10::DeviceType::CUDA);
        after.record(stream);
        after.block(cur);
    }
};

bool StepGraph::available(torch::Device device) { return device.is_cuda(); }

StepGraph::StepGraph(torch::Device device) {
    if (!available(device)) throw ConfigError("--cuda-graph needs a CUDA device (device " + device.str() + "): leave it out on the CPU");
    impl_ = std::make_unique<Impl>(device.has_index() ? device : torch::Device(device.type(), 0));
}

void StepGraph::runEager(const std::function<void()>& body) { impl_->onSideStream(body); }

void StepGraph::capture(const std::function<void()>& body) {
    reset();
    // Nothing of the eager steps may still be running when the capture starts (as torch.cuda.graph).
    impl_->current().synchronize();
    impl_->stream.synchronize();
    impl_->graph = std::make_unique<at::cuda::CUDAGraph>();
    impl_->onSideStream([&] {
        // Thread-local capture mode: the data loader's threads allocate pinned memory meanwhile,
        // which the global mode would count as an illegal call inside the capture.
        impl_->graph->capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
        try {
            body();
        } catch (...) {
            try {
                impl_->graph->capture_end();
            } catch (...) {  // the body's error is the one to report
            }
            impl_->graph.reset();
            throw;
        }
        impl_->graph->capture_end();
    });
    impl_->captured = true;
}

void StepGraph::replay() {
    if (!impl_->captured) throw std::logic_error("StepGraph::replay before capture");
    impl_->graph->replay();
}

bool StepGraph::captured() const { return impl_->captured; }

void StepGraph::reset() {
    impl_->graph.reset();
    impl_->captured = false;
}

#else  // no CUDA in this LibTorch

struct StepGraph::Impl {};

bool StepGraph::available(torch::Device) { return false; }

StepGraph::StepGraph(torch::Device device) {
    throw ConfigError("--cuda-graph needs a CUDA build of the trainer on a CUDA device (device " + device.str() +
                      ", a LibTorch without CUDA): leave it out, or build the `cuda` preset");
}

void StepGraph::runEager(const std::function<void()>& body) { body(); }
void StepGraph::capture(const std::function<void()>&) {}
void StepGraph::replay() {}
bool StepGraph::captured() const { return false; }
void StepGraph::reset() {}

#endif

StepGraph::~StepGraph() = default;

}  // namespace streetgan
