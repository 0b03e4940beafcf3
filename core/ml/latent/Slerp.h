// Spherical linear interpolation between latent vectors, as the reference project computes it
// (shared/DESIGN.md, "Reference SLERP"):
//   z0n = z0 / |z0|, z1n = z1 / |z1|, omega = acos(clamp(<z0n, z1n>, -1, 1)),
//   z(t) = sin((1 - t) omega) / sin(omega) * z0 + sin(t omega) / sin(omega) * z1.
// The endpoints themselves are NOT normalised, so z(0) = z0, z(1) = z1 and the norm along the path
// moves between |z0| and |z1| (for unit vectors it stays 1 and the angle grows at a constant rate).
// Where sin(omega) is ~0 (omega < 1e-6 rad, parallel vectors, or omega > pi - 1e-6, opposite
// vectors, where no single great circle joins them) the path falls back to linear interpolation
// (1 - t) z0 + t z1, which the formula also tends to for parallel vectors.
//
// Vectors may have any shape (the dot product runs over all elements, so (nz), (1, nz, 1, 1) and
// (nz, 1, 1) all work); z0 and z1 must have the same shape. The weights are computed in double
// precision and the result has z0's dtype and device. Stateless and thread-safe.
#pragma once

#include <vector>

#include <ATen/core/Tensor.h>

namespace streetgan {

class Slerp {
public:
    /// z(t) for one t (any real t; t outside [0, 1] extrapolates along the great circle), shaped like
    /// z0. Throws DataError when the shapes differ, a vector is empty, not floating point, or has a
    /// zero (or non-finite) norm.
    static at::Tensor interpolate(const at::Tensor& z0, const at::Tensor& z1, double t);

    /// Batched over t: returns (T, *z0.shape) with row i = z(ts[i]). T may be 0.
    static at::Tensor interpolate(const at::Tensor& z0, const at::Tensor& z1, const std::vector<double>& ts);

    /// `frames` evenly spaced points t = i / (frames - 1), i = 0..frames-1 (both endpoints included);
    /// frames == 1 gives z0 alone. Returns (frames, *z0.shape). Throws ConfigError for frames < 1.
    static at::Tensor path(const at::Tensor& z0, const at::Tensor& z1, int frames);

    /// omega in radians, in [0, pi]: the angle between z0 and z1 (same checks as interpolate).
    static double angle(const at::Tensor& z0, const at::Tensor& z1);
};

}  // namespace streetgan
