// A data set the loader draws from: `size()` images per epoch, each produced on demand as
// 8-bit RGB at the model's resolution. Implementations must be thread-safe (many loader workers
// call load() concurrently) and deterministic for a given (index, augmentSeed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace streetgan {

class ImageSource {
public:
    virtual ~ImageSource() = default;
    /// Images per epoch.
    virtual int64_t size() const = 0;
    /// Writes image `index` (0 <= index < size()) as size*size*3 bytes, HWC, RGB.
    /// `augmentSeed` drives any random augmentation (same seed: same bytes). Throws DataError.
    virtual void load(int64_t index, int size, uint64_t augmentSeed, uint8_t* rgb) const = 0;
    /// One line for logs and run.json, e.g. "synthetic streets (16384 images)".
    virtual std::string describe() const = 0;
    /// Std of the Gaussian noise the loader adds after converting load()'s bytes to [-1, 1]
    /// (the reference augmentation adds it to float pixels), in [0, 1] pixel units.
    virtual double noiseStd() const { return 0.0; }
    /// True when load() decodes a photo (CPU-heavy: LoaderAdvice suggests the packed cache).
    virtual bool decodesPhotos() const { return false; }
    /// Images skipped as bad input so far, by reason (thread-safe snapshot).
    virtual std::map<std::string, int64_t> skipped() const { return {}; }
    /// How many images ahead of the one it loads the loader should announce through prefetch()
    /// (BatchLoader does, from its per-epoch order); 0: the source gains nothing from it (local
    /// data).
    virtual int64_t prefetchWindow() const { return 0; }
    /// The indices load() will be asked for soon, in that order: a source whose reads are round
    /// trips (S3) starts fetching them. A hint only: what load() gives never depends on it, so the
    /// loader's determinism holds whatever was announced. Any thread; must not block long.
    virtual void prefetch(const int64_t* indices, size_t n) const {
        (void)indices;
        (void)n;
    }
};

}  // namespace streetgan
