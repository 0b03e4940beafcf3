#include "ml/train/BatchUpload.h"

#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

namespace streetgan {

struct BatchUpload::Impl {
    const c10::impl::DeviceGuardImplInterface* guard;
    c10::Stream stream;  // a non-blocking stream of c10's pool
    Impl(const c10::impl::DeviceGuardImplInterface* g, torch::Device d) : guard(g), stream(g->getStreamFromGlobalPool(d, false)) {}
};

BatchUpload::BatchUpload(torch::Device device) : device_(device.is_cuda() && !device.has_index() ? torch::Device(device.type(), 0) : device) {
    if (device_.is_cuda()) impl_ = std::make_unique<Impl>(c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA), device_);
}

BatchUpload::~BatchUpload() = default;

DeviceBatch BatchUpload::upload(const Batch& batch, bool channelsLast, double instanceStd) {
    if (!impl_) return DeviceBatch::from(batch, device_, channelsLast, instanceStd);
    const c10::Stream current = impl_->guard->getStream(device_);
    DeviceBatch d;
    c10::Event copied(device_.type());
    {
        c10::StreamGuard onCopyStream(impl_->stream);
        d = DeviceBatch::from(batch, device_, channelsLast, instanceStd);
        copied.record(impl_->stream);
    }
    copied.block(current);
    // Made on the copy stream, read on the current one: freed, the allocator must wait for both.
    for (const torch::Tensor* t : {&d.real, &d.noise, &d.noiseReal, &d.noiseFake})
        if (t->defined()) impl_->guard->recordDataPtrOnStream(t->storage().data_ptr(), current);
    return d;
}

}  // namespace streetgan
