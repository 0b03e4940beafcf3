// How a front end follows a training run: every event the trainer appends to events.jsonl is
// also handed to the observer, on the trainer's thread (front ends marshal to their own thread).
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace streetgan {

class TrainObserver {
public:
    virtual ~TrainObserver() = default;
    virtual void onEvent(const nlohmann::json& event) = 0;
};

}  // namespace streetgan
