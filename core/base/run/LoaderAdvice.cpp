#include "base/run/LoaderAdvice.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace streetgan {

LoaderAdvice::LoaderAdvice(Setup setup) : setup_(std::move(setup)) {
    setup_.loaderThreads = std::max(1, setup_.loaderThreads);
    setup_.cores = std::max(1, setup_.cores);
}

std::optional<LoaderAdvice::Advice> LoaderAdvice::observe(double seconds, double waitSeconds, double images) {
    if (done_ || seconds <= 0) return std::nullopt;
    seen_ += seconds;
    if (seen_ <= kWarmupSeconds) return std::nullopt;  // threads starting, caches cold, cuDNN choosing
    windowSeconds_ += seconds;
    windowWait_ += waitSeconds;
    windowImages_ += images;
    if (windowSeconds_ < kWindowSeconds) return std::nullopt;
    done_ = true;
    return judge(windowSeconds_, windowWait_, windowImages_);
}

std::optional<LoaderAdvice::Advice> LoaderAdvice::judge(double seconds, double waitSeconds, double images) const {
    if (seconds <= 0 || images <= 0) return std::nullopt;
    Advice a;
    a.dataWait = std::clamp(waitSeconds / seconds, 0.0, 0.99);
    if (a.dataWait < kWaitShare) return std::nullopt;
    a.imagesPerS = images / seconds;
    a.stepImagesPerS = a.imagesPerS / (1 - a.dataWait);
    const double perThread = a.imagesPerS / setup_.loaderThreads;
    a.threadsNeeded = static_cast<int>(std::ceil(a.stepImagesPerS * 1.1 / perThread - 1e-9));  // 77.000...01 is 77
    const int spare = std::max(1, setup_.cores - 1);                                           // one core for the step's own host work
    char head[320];
    std::snprintf(head, sizeof head,
                  "data: the loader holds the step back: it waited %.0f%% of the time; %.0f images/s from %d loader thread%s (about %.0f a thread), "
                  "the step could take about %.0f; ",
                  100 * a.dataWait, a.imagesPerS, setup_.loaderThreads, setup_.loaderThreads == 1 ? "" : "s", perThread, a.stepImagesPerS);
    std::string what;
    if (a.threadsNeeded <= spare) {
        what = "give --loader-threads " + std::to_string(a.threadsNeeded) + " (this machine has " + std::to_string(setup_.cores) + " cores)";
    } else if (setup_.decodesPhotos) {
        what = "decoding photos that fast needs about " + std::to_string(a.threadsNeeded) + " cores, more than this machine's " + std::to_string(setup_.cores) +
               ": pack them once (" + setup_.packCommand + "; later runs on them train from the pack by themselves) or resume this run with --data-path packed";
    } else {
        what = "that needs about " + std::to_string(a.threadsNeeded) + " loader threads, more than this machine's " + std::to_string(setup_.cores) +
               " cores: give --loader-threads " + std::to_string(spare) + " and expect the step to wait";
    }
    a.message = head + what;
    return a;
}

}  // namespace streetgan
