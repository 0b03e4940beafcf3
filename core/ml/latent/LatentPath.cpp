#include "ml/latent/LatentPath.h"

#include <string>

#include <ATen/ATen.h>

#include "base/util/Errors.h"
#include "ml/latent/Slerp.h"

namespace streetgan {

LatentPath::LatentPath(const std::vector<at::Tensor>& keyframes, Options options) : options_(std::move(options)) {
    if (keyframes.empty()) throw ConfigError("latent path: no keyframes; add at least one seed or z vector");
    if (options_.framesPerSegment < 1 || options_.framesPerSegment > 100000)
        throw ConfigError("latent path: frames_per_segment must be within 1..100000 (got " + std::to_string(options_.framesPerSegment) + ")");
    for (size_t i = 0; i < keyframes.size(); ++i) {
        const at::Tensor& k = keyframes[i];
        if (!k.defined() || k.numel() == 0 || !at::isFloatingType(k.scalar_type()))
            throw ConfigError("latent path: keyframe " + std::to_string(i) + " is not a non-empty floating-point vector");
        if (k.numel() != keyframes.front().numel())
            throw ConfigError("latent path: keyframe " + std::to_string(i) + " has " + std::to_string(k.numel()) + " values but keyframe 0 has " +
                              std::to_string(keyframes.front().numel()) + "; all keyframes need the generator's nz");
        at::Tensor z = k.detach().reshape({-1}).to(at::kCPU, at::kFloat).clone();
        if (!at::isfinite(z).all().item<bool>()) throw DataError("latent path: keyframe " + std::to_string(i) + " holds non-finite values");
        keyframes_.push_back(z);
    }
    WalkRule::checkRange(options_.range, "t_range");
    for (size_t s = 0; s < options_.segmentRange.size(); ++s) WalkRule::checkRange(options_.segmentRange[s], "keyframes[" + std::to_string(s) + "].t_range");
}

int64_t LatentPath::segmentCount() const {
    const auto k = static_cast<int64_t>(keyframes_.size());
    return options_.loop ? k : k - 1;
}

double LatentPath::frameT(int64_t i) const {
    const WalkRule::Place p = WalkRule::place(i, static_cast<int64_t>(keyframes_.size()), options_.framesPerSegment, options_.loop);
    const auto s = static_cast<size_t>(p.segment);
    const Easing::Kind kind = s < options_.segmentEasing.size() ? options_.segmentEasing[s] : options_.easing;
    const WalkRule::TRange& range = s < options_.segmentRange.size() ? options_.segmentRange[s] : options_.range;
    return WalkRule::t(p.u, kind, range);
}

at::Tensor LatentPath::frame(int64_t i) const {
    const WalkRule::Place p = WalkRule::place(i, static_cast<int64_t>(keyframes_.size()), options_.framesPerSegment, options_.loop);
    const at::Tensor& a = keyframes_[static_cast<size_t>(p.from)];
    const at::Tensor& b = keyframes_[static_cast<size_t>(p.to)];
    const double t = frameT(i);
    // Exact keyframes (the formula gives them too, up to rounding).
    if (t == 0.0) return a.clone();
    if (t == 1.0) return b.clone();
    // SLERP needs two directions; a zero keyframe (e.g. the prior's mean) has none: blend linearly.
    const bool zero = !a.ne(0).any().item<bool>() || !b.ne(0).any().item<bool>();
    if (options_.interpolation == Interpolation::Slerp && !zero) return Slerp::interpolate(a, b, t);
    return (a.to(at::kDouble) * (1.0 - t) + b.to(at::kDouble) * t).to(at::kFloat);
}

at::Tensor LatentPath::frames() const {
    const int64_t n = frameCount();
    at::Tensor out = at::empty({n, nz(), 1, 1}, at::kFloat);
    for (int64_t i = 0; i < n; ++i) out[i].copy_(frame(i).view({nz(), 1, 1}));
    return out;
}

}  // namespace streetgan
