// The multi-scale sliced Wasserstein distance (SWD) of Karras et al., "Progressive Growing of GANs"
// (ICLR 2018, section 5 and appendix D), after the official progressive_growing_of_gans/metrics/
// sliced_wasserstein.py: a quality measure in pixel space that needs no pretrained network.
//
//  - Images: 8-bit RGB in [0, 255] as float (N, 3, S, S), as the official code feeds them (the
//    generator's Tanh output mapped with FeatureExtractor::toNetworkInput: round((x + 1) * 127.5)
//    clamped, like decoded photos).
//  - Levels: the Laplacian pyramid (LaplacianPyramid) from S down to 16 px (64 px: 64, 32, 16;
//    128 px: 128, 64, 32, 16); the coarsest is the Gaussian level.
//  - Descriptors: per image and level, nhoodsPerImage (128) 7x7 neighbourhoods of all three
//    channels (7 * 7 * 3 = 147 values), centres uniform over the positions where the whole
//    neighbourhood fits. Unlike the official code's global NumPy RNG, the centres are a fixed
//    function of (seed, level, image index) (positions()), so they do not depend on the batch
//    size or device and real image i and generated image i use the same centres: identical sets
//    give exactly 0 and a run's figures are comparable over time.
//  - Normalisation (finalize()): each set of a level on its own, per colour channel, minus the
//    mean and divided by the standard deviation (population, ddof 0) over all descriptors and
//    their 7x7 positions, as finalize_descriptors does. A channel with no variation is left
//    centred (divided by 1) instead of becoming NaN.
//  - Distance (distance()): dirRepeats (4) times, dirsPerRepeat (128) random unit directions in
//    the 147-dimensional space (directions(): Gaussian, normalised, fixed by (seed, level));
//    both sets projected (matmul), each projection sorted, the mean absolute difference of the
//    sorted projections (the 1-D Wasserstein-1 distance) averaged over directions; then the mean
//    over the repeats. Both sets must hold the same number of descriptors (as in the official
//    code). Reported (SwdEvaluator) per level and as the mean of the levels, times 1e3 as in the
//    paper's tables.
//
// Tensors live on the images' device (matmul and sort run on the GPU too); positions and
// directions are made on the CPU and moved. Stateless apart from the parameters; safe from any
// thread.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

namespace streetgan {

struct SwdParams {
    int64_t nhoodSize = 7;         ///< neighbourhood side (odd)
    int64_t nhoodsPerImage = 128;  ///< neighbourhoods per image and level
    int64_t dirRepeats = 4;        ///< repeats of the random directions
    int64_t dirsPerRepeat = 128;   ///< directions per repeat
    int64_t minResolution = 16;    ///< the coarsest level's size
    uint64_t seed = 0x535744;      ///< neighbourhood centres and directions ("SWD"): the same for every run
    /// The parameters as a cache key part (every member).
    nlohmann::json toJson() const;
};

class SlicedWasserstein {
public:
    /// Throws ConfigError for parameters outside their range.
    explicit SlicedWasserstein(SwdParams params = {});

    /// The level sizes of `imageSize` px images: imageSize, imageSize/2, ... >= minResolution.
    /// Throws DataError when the image is smaller than minResolution or not a power-of-two
    /// multiple of it.
    std::vector<int64_t> resolutions(int64_t imageSize) const;

    /// Centres (y, x) of the neighbourhoods of images [firstImage, firstImage + n) at `level`
    /// (size `resolution`): int64 (n * nhoodsPerImage, 2) on the CPU, each in [h, resolution - 1 - h]
    /// with h = nhoodSize / 2; image i's rows are i * nhoodsPerImage ... (i + 1) * nhoodsPerImage - 1.
    at::Tensor positions(int level, int64_t resolution, int64_t firstImage, int64_t n) const;
    /// Descriptors of a batch: images float (N, 3, S, S) in [0, 255] whose first is image
    /// `firstImage` of its set -> one tensor per level, float32 (N * nhoodsPerImage, 3, k, k) on the
    /// images' device (k = nhoodSize), not yet normalised.
    std::vector<at::Tensor> descriptors(const at::Tensor& images, int64_t firstImage) const;
    /// One level's descriptors of a whole set (M, 3, k, k) -> normalised (M, 3 * k * k) float32.
    static at::Tensor finalize(const at::Tensor& descriptors);
    /// The random directions of `level`: float32 (dirRepeats, 3 * k * k, dirsPerRepeat) on the CPU,
    /// each column of unit length.
    at::Tensor directions(int level) const;
    /// The sliced Wasserstein distance of two finalised sets (M, D) of one level (not scaled).
    /// Throws DataError when their shapes differ.
    double distance(const at::Tensor& a, const at::Tensor& b, int level) const;

    const SwdParams& params() const { return p_; }

private:
    SwdParams p_;
};

}  // namespace streetgan
