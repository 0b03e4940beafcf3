#include "ml/latent/Slerp.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <ATen/ATen.h>

#include "base/util/Errors.h"
#include "ml/util/ShapeText.h"

namespace streetgan {
namespace {

constexpr double kDegenerate = 1e-6;  // radians from 0 or pi where sin(omega) is treated as 0

struct Prepared {
    at::Tensor a, b;  // flattened, double, CPU
    double omega = 0;
};

Prepared prepare(const at::Tensor& z0, const at::Tensor& z1) {
    if (!z0.defined() || !z1.defined()) throw DataError("SLERP: a latent vector is undefined; pass two tensors of the same shape");
    if (z0.sizes() != z1.sizes())
        throw DataError("SLERP: the latent vectors differ in shape: " + shapeText(z0) + " and " + shapeText(z1) + "; pass two vectors of the same shape");
    if (z0.numel() == 0) throw DataError("SLERP: the latent vectors " + shapeText(z0) + " are empty");
    if (!at::isFloatingType(z0.scalar_type()) || !at::isFloatingType(z1.scalar_type()))
        throw DataError("SLERP: latent vectors must be floating point; convert them with .to(kFloat)");
    Prepared p;
    p.a = z0.detach().reshape({-1}).to(at::kCPU, at::kDouble);
    p.b = z1.detach().reshape({-1}).to(at::kCPU, at::kDouble);
    const double na = p.a.norm().item<double>(), nb = p.b.norm().item<double>();
    if (!(na > 0) || !std::isfinite(na)) throw DataError("SLERP: z0 has norm " + std::to_string(na) + "; its direction is undefined");
    if (!(nb > 0) || !std::isfinite(nb)) throw DataError("SLERP: z1 has norm " + std::to_string(nb) + "; its direction is undefined");
    const double dot = (p.a / na).dot(p.b / nb).item<double>();
    p.omega = std::acos(std::clamp(dot, -1.0, 1.0));
    return p;
}

// Weights (w0, w1) of z0 and z1 at t.
void weights(double omega, double t, double& w0, double& w1) {
    if (omega < kDegenerate || omega > M_PI - kDegenerate) {
        w0 = 1.0 - t;
        w1 = t;
        return;
    }
    const double so = std::sin(omega);
    w0 = std::sin((1.0 - t) * omega) / so;
    w1 = std::sin(t * omega) / so;
}

}  // namespace

double Slerp::angle(const at::Tensor& z0, const at::Tensor& z1) { return prepare(z0, z1).omega; }

at::Tensor Slerp::interpolate(const at::Tensor& z0, const at::Tensor& z1, double t) { return interpolate(z0, z1, std::vector<double>{t}).squeeze(0); }

at::Tensor Slerp::interpolate(const at::Tensor& z0, const at::Tensor& z1, const std::vector<double>& ts) {
    const Prepared p = prepare(z0, z1);
    const int64_t n = static_cast<int64_t>(ts.size());
    at::Tensor w0 = at::empty({n, 1}, at::kDouble), w1 = at::empty({n, 1}, at::kDouble);
    auto a0 = w0.accessor<double, 2>(), a1 = w1.accessor<double, 2>();
    for (int64_t i = 0; i < n; ++i) weights(p.omega, ts[static_cast<size_t>(i)], a0[i][0], a1[i][0]);
    at::Tensor out = w0 * p.a.unsqueeze(0) + w1 * p.b.unsqueeze(0);  // (T, numel)
    std::vector<int64_t> shape{n};
    for (int64_t s : z0.sizes()) shape.push_back(s);
    return out.reshape(shape).to(z0.device(), z0.scalar_type());
}

at::Tensor Slerp::path(const at::Tensor& z0, const at::Tensor& z1, int frames) {
    if (frames < 1) throw ConfigError("SLERP path: frames must be at least 1 (got " + std::to_string(frames) + ")");
    std::vector<double> ts(static_cast<size_t>(frames));
    for (int i = 0; i < frames; ++i) ts[static_cast<size_t>(i)] = frames == 1 ? 0.0 : static_cast<double>(i) / (frames - 1);
    return interpolate(z0, z1, ts);
}

}  // namespace streetgan
