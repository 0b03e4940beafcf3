// Says once, with the figures, when the data loader holds a training run back, and what to do
// about it: more loader threads where the machine has the cores for them, else (for photos, which
// are decoded image by image) the packed cache, which a GPU step fast enough to outrun JPEG
// decoding on every core needs (naive-64 at 60,000 images/s would take about 45 cores).
//
// Fed the trainer's logged intervals (data wait = the share of the step loop's time spent waiting
// for a batch): after a warm-up of kWarmupSeconds it judges the next kWindowSeconds at once, and
// advises when the loader made the step wait at least kWaitShare of that time. The estimate: the
// loader is the bottleneck, so each of its threads delivers rate / threads images a second, and
// the step alone would take rate / (1 - wait); the threads that rate needs follow, with 10% spare.
//
// Thread contract: one thread (the trainer's).
#pragma once

#include <optional>
#include <string>

namespace streetgan {

class LoaderAdvice {
public:
    static constexpr double kWarmupSeconds = 10;
    static constexpr double kWindowSeconds = 20;
    static constexpr double kWaitShare = 0.10;

    struct Setup {
        std::string packCommand;  ///< the `data pack` command for the run's photos and settings (DataSources::packCommand)
        bool decodesPhotos = false;
        int loaderThreads = 1;
        int cores = 1;  ///< the machine's (hardware threads)
    };

    /// What the judged window showed, once advice is due.
    struct Advice {
        double dataWait = 0;        ///< share of the window's time
        double imagesPerS = 0;      ///< delivered
        double stepImagesPerS = 0;  ///< the step's rate unfed, estimated
        int threadsNeeded = 0;
        std::string message;  ///< one line
    };

    explicit LoaderAdvice(Setup setup);

    /// One logged interval of `seconds` with `waitSeconds` spent waiting for data and `images`
    /// trained. Returns the advice the first time it is due, never again.
    std::optional<Advice> observe(double seconds, double waitSeconds, double images);

    /// The advice for a window with these figures, or nullopt when the loader kept up.
    std::optional<Advice> judge(double seconds, double waitSeconds, double images) const;

private:
    Setup setup_;
    double seen_ = 0;
    double windowSeconds_ = 0, windowWait_ = 0, windowImages_ = 0;
    bool done_ = false;
};

}  // namespace streetgan
