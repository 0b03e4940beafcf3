#include "base/util/ResampleWeights.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>

#include "base/util/Errors.h"

namespace streetgan {
namespace {

// Keys' cubic convolution kernel with OpenCV's a = -0.75.
double cubic(double x) {
    constexpr double a = -0.75;
    x = std::abs(x);
    if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0;
}

// Appends the (input index, weight) pairs of output o to t; an index may repeat (a replicated border).
void appendTaps(std::vector<std::pair<int, double>>& t, int o, int in, int out, ResampleWeights::Filter filter) {
    const double scale = static_cast<double>(in) / out;
    switch (filter) {
        case ResampleWeights::Filter::Nearest: {
            // OpenCV's resizeNN: ifx = 1 / fx in double, then floor(x * ifx).
            const double ifx = 1.0 / (static_cast<double>(out) / in);
            t.emplace_back(std::min(static_cast<int>(std::floor(o * ifx)), in - 1), 1.0);
            break;
        }
        case ResampleWeights::Filter::Linear: {
            const double src = std::max(0.0, (o + 0.5) * scale - 0.5);
            int i0 = static_cast<int>(std::floor(src));
            double frac = src - i0;
            if (i0 >= in - 1) i0 = in - 1, frac = 0;
            t.emplace_back(i0, 1 - frac);
            if (frac > 0) t.emplace_back(i0 + 1, frac);
            break;
        }
        case ResampleWeights::Filter::Cubic: {
            const double src = (o + 0.5) * scale - 0.5;
            const int base = static_cast<int>(std::floor(src));
            for (int k = -1; k <= 2; ++k) t.emplace_back(std::clamp(base + k, 0, in - 1), cubic(src - (base + k)));
            break;
        }
        case ResampleWeights::Filter::Area: {
            // An enlargement (scale < 1) covers part of one or two pixels, which this also weights by overlap.
            const double from = o * scale, to = (o + 1) * scale;
            for (int i = static_cast<int>(std::floor(from)); i < std::min(in, static_cast<int>(std::ceil(to))); ++i) {
                const double overlap = std::min<double>(to, i + 1) - std::max<double>(from, i);
                if (overlap > 0) t.emplace_back(i, overlap / scale);
            }
            break;
        }
    }
}

}  // namespace

ResampleWeights::Axis ResampleWeights::axis(int in, int out, Filter filter) {
    if (in < 1 || out < 1 || in > kMaxSide || out > kMaxSide)
        throw DataError("resize: sizes must be within 1.." + std::to_string(kMaxSide) + " (got " + std::to_string(in) + " -> " + std::to_string(out) + ")");
    // Every output's pairs in one list, output o's from start[o] (the loader calls this per image:
    // a few allocations, not one per output).
    std::vector<std::pair<int, double>> all;
    std::vector<size_t> start(static_cast<size_t>(out) + 1, 0);
    int taps = 1;
    for (int o = 0; o < out; ++o) {
        appendTaps(all, o, in, out, filter);
        start[static_cast<size_t>(o) + 1] = all.size();
        const auto [lo, hi] = std::minmax_element(all.begin() + static_cast<std::ptrdiff_t>(start[static_cast<size_t>(o)]), all.end());
        taps = std::max(taps, hi->first - lo->first + 1);
    }
    Axis a;
    a.in = in;
    a.out = out;
    a.taps = taps;
    a.first.resize(static_cast<size_t>(out));
    a.weights.assign(static_cast<size_t>(out) * static_cast<size_t>(taps), 0.f);
    std::vector<double> w(static_cast<size_t>(taps));
    for (int o = 0; o < out; ++o) {
        const auto from = all.begin() + static_cast<std::ptrdiff_t>(start[static_cast<size_t>(o)]);
        const auto to = all.begin() + static_cast<std::ptrdiff_t>(start[static_cast<size_t>(o) + 1]);
        int first = std::min_element(from, to)->first;
        first = std::min(first, in - taps);  // keep the window inside the input; the weights move with it
        a.first[static_cast<size_t>(o)] = first;
        // Summed in double, rounded once: the same float weights PixelResize had before.
        std::fill(w.begin(), w.end(), 0.0);
        for (auto it = from; it != to; ++it) w[static_cast<size_t>(it->first - first)] += it->second;
        for (int k = 0; k < taps; ++k)
            a.weights[static_cast<size_t>(o) * static_cast<size_t>(taps) + static_cast<size_t>(k)] = static_cast<float>(w[static_cast<size_t>(k)]);
    }
    return a;
}

}  // namespace streetgan
