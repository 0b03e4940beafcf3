#include "ml/latent/PcaDirections.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include <ATen/ATen.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"
#include "ml/latent/LatentSeed.h"

namespace streetgan {

PcaDirections::PcaDirections(const at::Tensor& directions, const at::Tensor& sigma) {
    if (!directions.defined() || directions.dim() != 2 || !sigma.defined() || sigma.dim() != 1 || sigma.size(0) != directions.size(0) || directions.size(0) < 1)
        throw DataError("latent directions: expected directions (k, nz) and sigma (k)");
    directions_ = directions.detach().to(at::kCPU, at::kFloat).contiguous();
    sigma_ = sigma.detach().to(at::kCPU, at::kFloat).contiguous();
}

at::Tensor PcaDirections::firstBlockActivations(const Generator& g, const at::Tensor& z) {
    std::map<std::string, at::Tensor> p;
    for (const auto& kv : g->named_parameters(true)) p[kv.key()] = kv.value();
    for (const auto& kv : g->named_buffers(true)) p[kv.key()] = kv.value();
    for (const char* k : {"main.0.weight", "main.1.weight", "main.1.bias", "main.1.running_mean", "main.1.running_var"})
        if (!p.count(k)) throw ConfigError(std::string("latent directions: the generator has no ") + k + "; it is not a DCGAN generator");
    torch::NoGradGuard noGrad;
    const at::Tensor& w = p["main.0.weight"];  // (nz, C, 4, 4)
    const int64_t nz = w.size(0);
    if (z.numel() % nz != 0) throw DataError("latent directions: latents do not have nz=" + std::to_string(nz) + " values each");
    at::Tensor zz = z.detach().reshape({-1, nz, 1, 1}).to(w.device(), at::kFloat);
    at::Tensor x = at::conv_transpose2d(zz, w);
    x = at::batch_norm(x, p["main.1.weight"], p["main.1.bias"], p["main.1.running_mean"], p["main.1.running_var"], false, 0.1, 1e-5, false);
    return at::relu(x).reshape({zz.size(0), -1}).to(at::kCPU, at::kFloat);
}

PcaDirections PcaDirections::fromSamples(const at::Tensor& activations, const at::Tensor& z, int components) {
    if (!activations.defined() || activations.dim() != 2) throw DataError("latent directions: activations must be (N, D)");
    const int64_t n = activations.size(0), d = activations.size(1);
    if (!z.defined() || z.size(0) != n) throw DataError("latent directions: the latents and activations have different row counts");
    at::Tensor zc = z.detach().reshape({n, -1}).to(at::kCPU, at::kDouble);
    const int64_t nz = zc.size(1);
    if (components < 1 || components > nz || components >= n)
        throw ConfigError("latent directions: components must be within 1.." + std::to_string(std::min(nz, n - 1)) + " (got " + std::to_string(components) +
                          ")");
    torch::NoGradGuard noGrad;
    at::Tensor a = activations.detach().to(at::kCPU, at::kDouble);
    a = a - a.mean(0, true);
    zc = zc - zc.mean(0, true);
    at::Tensor x;  // (N, k): PCA coordinates, columns orthogonal, decreasing variance
    if (d <= n) {
        auto [evals, evecs] = at::linalg_eigh(at::matmul(a.t(), a));  // ascending
        at::Tensor v = evecs.flip({1}).narrow(1, 0, components);      // (D, k)
        x = at::matmul(a, v);
    } else {
        auto [evals, evecs] = at::linalg_eigh(at::matmul(a, a.t()));
        at::Tensor u = evecs.flip({1}).narrow(1, 0, components);  // (N, k)
        at::Tensor s = evals.flip({0}).narrow(0, 0, components).clamp_min(0).sqrt();
        x = u * s.unsqueeze(0);
    }
    // Least squares z ≈ x_k u_k per component (orthogonal columns: the joint solution decouples).
    at::Tensor denom = (x * x).sum(0).clamp_min(1e-300);        // (k)
    at::Tensor u = at::matmul(x.t(), zc) / denom.unsqueeze(1);  // (k, nz)
    auto [q, r] = at::linalg_qr(u.t(), "reduced");              // q (nz, k)
    at::Tensor dirs = q.t().contiguous();                       // (k, nz)
    at::Tensor sign = (dirs * u).sum(1).sign();
    sign = at::where(sign == 0, at::ones_like(sign), sign);
    dirs = dirs * sign.unsqueeze(1);
    at::Tensor proj = at::matmul(z.detach().reshape({n, -1}).to(at::kCPU, at::kDouble), dirs.t());  // (N, k)
    at::Tensor sigma = proj.std(0);
    return PcaDirections(dirs.to(at::kFloat), sigma.to(at::kFloat));
}

PcaDirections PcaDirections::compute(const Generator& g, const Options& options) {
    const int64_t nz = g->config().nz;
    if (options.samples < 2 || options.samples > 100000)
        throw ConfigError("latent directions: samples must be within 2..100000 (got " + std::to_string(options.samples) + ")");
    const at::Tensor z = LatentSeed::draw(options.seed, nz, options.samples).reshape({options.samples, nz});
    at::Tensor acts = firstBlockActivations(g, z);
    return fromSamples(acts, z, options.components);
}

std::string PcaDirections::defaultCacheDir() { return Paths::cacheDir("directions"); }

PcaDirections PcaDirections::cached(const Generator& g, const std::string& checkpointSha256, const Options& options, const std::string& cacheDir) {
    const std::string dir = cacheDir.empty() ? defaultCacheDir() : cacheDir;
    const std::string name = "pca-" + checkpointSha256.substr(0, 32) + "-n" + std::to_string(options.samples) + "-k" + std::to_string(options.components) +
                             "-s" + std::to_string(options.seed) + ".pt";
    const std::string path = (std::filesystem::path(dir) / name).string();
    std::error_code ec;
    if (!checkpointSha256.empty() && std::filesystem::is_regular_file(path, ec)) {
        try {
            PcaDirections d = load(path);
            if (d.nz() == g->config().nz && d.components() == options.components) return d;
        } catch (const Error&) {
            // a damaged cache entry is recomputed and overwritten
        }
    }
    PcaDirections d = compute(g, options);
    if (!checkpointSha256.empty()) {
        try {
            std::filesystem::create_directories(dir, ec);
            d.save(path);
        } catch (const Error&) {
            // an unwritable cache only costs the recomputation next time
        }
    }
    return d;
}

at::Tensor PcaDirections::apply(const at::Tensor& z, const std::vector<DirectionEdit>& edits) const {
    if (edits.empty()) return z.clone();
    const int64_t k = components();
    at::Tensor offset = at::zeros({nz()}, at::kDouble);
    for (const auto& e : edits) {
        if (e.index < 0 || e.index >= k)
            throw ConfigError("'directions' index " + std::to_string(e.index) + " is out of range; use 0.." + std::to_string(k - 1));
        if (!std::isfinite(e.amount)) throw ConfigError("'directions' amount for index " + std::to_string(e.index) + " is not finite");
        offset += directions_[e.index].to(at::kDouble) * (e.amount * sigma_[e.index].item<double>());
    }
    const bool nchw = z.dim() == 4;
    const int64_t zn = nchw ? z.size(1) : z.size(-1);
    if (zn != nz()) throw DataError("latent directions: latents have nz=" + std::to_string(zn) + " but the directions " + std::to_string(nz()));
    at::Tensor o = offset.to(z.device(), z.scalar_type()).reshape(nchw ? std::vector<int64_t>{1, zn, 1, 1} : std::vector<int64_t>{zn});
    return z + o;
}

void PcaDirections::save(const std::string& path) const {
    c10::impl::GenericList list(c10::AnyType::get());
    list.push_back(directions_);
    list.push_back(sigma_);
    const std::vector<char> bytes = torch::jit::pickle_save(c10::IValue(list));
    AtomicFile::write(path, bytes.data(), bytes.size());
}

PcaDirections PcaDirections::load(const std::string& path) {
    const std::string bytes = AtomicFile::read(path);
    try {
        const c10::IValue v = torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
        const auto list = v.toList();
        if (list.size() != 2) throw DataError("bad layout");
        return PcaDirections(list.get(0).toTensor(), list.get(1).toTensor());
    } catch (const std::exception& e) {
        throw DataError("latent directions file '" + path + "' cannot be read (" + e.what() + "); delete it to recompute");
    }
}

}  // namespace streetgan
