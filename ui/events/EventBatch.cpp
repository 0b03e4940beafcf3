#include "events/EventBatch.h"

#include <iterator>

namespace streetgan::ui {

void MetricColumns::append(const MetricColumns& other) {
    t.insert(t.end(), other.t.begin(), other.t.end());
    step.insert(step.end(), other.step.begin(), other.step.end());
    epoch.insert(epoch.end(), other.epoch.begin(), other.epoch.end());
    for (size_t i = 0; i < values.size(); ++i) values[i].insert(values[i].end(), other.values[i].begin(), other.values[i].end());
}

void MetricColumns::clear() {
    t.clear();
    step.clear();
    epoch.clear();
    for (auto& v : values) v.clear();
}

bool EventBatch::empty() const { return lines == 0 && endOffset < 0 && !live && !ended && replies.empty(); }

void EventBatch::merge(EventBatch&& later) {
    if (metrics.size() == 0)
        metrics = std::move(later.metrics);
    else
        metrics.append(later.metrics);
    scalars.insert(scalars.end(), std::make_move_iterator(later.scalars.begin()), std::make_move_iterator(later.scalars.end()));
    system.insert(system.end(), later.system.begin(), later.system.end());
    samples.insert(samples.end(), later.samples.begin(), later.samples.end());
    checkpoints.insert(checkpoints.end(), later.checkpoints.begin(), later.checkpoints.end());
    if (!later.state.empty()) state = later.state;
    if (!later.device.empty()) device = later.device;
    if (later.totalSteps >= 0) totalSteps = later.totalSteps;
    if (later.stepsPerEpoch >= 0) stepsPerEpoch = later.stepsPerEpoch;
    if (later.lastStep >= 0) lastStep = later.lastStep;
    if (firstT == 0) firstT = later.firstT;
    errors.insert(errors.end(), later.errors.begin(), later.errors.end());
    if (!later.loaderAdvice.empty()) loaderAdvice = later.loaderAdvice;
    replies.insert(replies.end(), later.replies.begin(), later.replies.end());
    if (later.endOffset >= 0) endOffset = later.endOffset;
    live = live || later.live;
    if (!later.liveState.empty()) liveState = later.liveState;
    if (later.ended) {
        ended = true;
        endState = later.endState;
    }
    lines += later.lines;
}

}  // namespace streetgan::ui
