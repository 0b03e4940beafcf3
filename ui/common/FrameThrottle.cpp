#include "common/FrameThrottle.h"

#include <algorithm>
#include <utility>

namespace streetgan::ui {

FrameThrottle::FrameThrottle(int intervalMs, std::function<void()> run, QObject* parent) : QObject(parent), interval_(intervalMs), run_(std::move(run)) {
    timer_.setSingleShot(true);
    connect(&timer_, &QTimer::timeout, this, [this] { fire(); });
}

void FrameThrottle::request() {
    if (!last_.isValid() || last_.elapsed() >= interval_) {
        fire();
        return;
    }
    pending_ = true;
    if (!timer_.isActive()) timer_.start(static_cast<int>(std::max<qint64>(0, interval_ - last_.elapsed())));
}

void FrameThrottle::flush() {
    if (pending_) fire();
}

void FrameThrottle::fire() {
    pending_ = false;
    timer_.stop();
    last_.restart();
    run_();
}

}  // namespace streetgan::ui
