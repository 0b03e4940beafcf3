// The device a command computes on, from its --device value: shared by training, sampling,
// rendering, evaluation, benchmarks and the explore worker (none of which needs the trainer).
#pragma once

#include <string>

#include <c10/core/Device.h>

namespace streetgan {

class DeviceChoice {
public:
    /// Picks the device for "auto" | "cpu" | "cuda" | "cuda:N" and makes cuda:N the process's
    /// current device; throws ConfigError when absent.
    static c10::Device select(const std::string& name);
};

}  // namespace streetgan
