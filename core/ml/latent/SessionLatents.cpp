#include "ml/latent/SessionLatents.h"

#include <string>

#include <ATen/ATen.h>

#include "base/util/Errors.h"
#include "ml/latent/LatentSeed.h"
#include "ml/latent/Truncation.h"

namespace streetgan {

std::vector<at::Tensor> SessionLatents::keyframeLatents(const LatentSession& s, int64_t nz) {
    std::vector<at::Tensor> out;
    for (size_t i = 0; i < s.keyframes.size(); ++i) {
        const auto& k = s.keyframes[i];
        if (k.seed) {
            out.push_back(LatentSeed::draw(*k.seed, nz));
            continue;
        }
        if (static_cast<int64_t>(k.z.size()) != nz)
            throw ConfigError("session key 'keyframes[" + std::to_string(i) + "].z' has " + std::to_string(k.z.size()) +
                              " values but the generator takes nz=" + std::to_string(nz));
        out.push_back(at::tensor(k.z, at::kDouble).to(at::kFloat));
    }
    return out;
}

LatentPath SessionLatents::path(const LatentSession& s, int64_t nz) {
    LatentPath::Options o;
    o.interpolation = s.interpolation;
    o.easing = s.easing;
    o.framesPerSegment = s.framesPerSegment;
    o.loop = s.loop;
    o.range = s.tRange;
    for (size_t i = 0; i < s.keyframes.size(); ++i) {
        o.segmentEasing.push_back(s.segmentEasing(i));
        o.segmentRange.push_back(s.segmentRange(i));
    }
    return LatentPath(keyframeLatents(s, nz), o);
}

at::Tensor SessionLatents::latents(const LatentSession& s, int64_t nz, const PcaDirections* pca) { return finish(path(s, nz).frames(), s, nz, pca); }

at::Tensor SessionLatents::latents(const LatentSession& s, int64_t nz, const PcaDirections* pca, int64_t from, int64_t count) {
    const LatentPath p = path(s, nz);
    const int64_t total = p.frameCount();
    if (count < 1 || from < 0 || from >= total || count > total - from)
        throw ConfigError("latent walk: frames " + std::to_string(from) + ".." + std::to_string(from + count - 1) + " are not within the walk's 0.." +
                          std::to_string(total - 1));
    // LatentPath::frames() fills its rows with frame(i) too.
    at::Tensor z = at::empty({count, nz, 1, 1}, at::kFloat);
    for (int64_t i = 0; i < count; ++i) z[i].copy_(p.frame(from + i).view({nz, 1, 1}));
    return finish(std::move(z), s, nz, pca);
}

at::Tensor SessionLatents::finish(at::Tensor z, const LatentSession& s, int64_t nz, const PcaDirections* pca) {
    if (s.truncation != 1.0) z = Truncation::apply(z, s.truncation);
    if (!s.directions.empty()) {
        if (!pca) throw ConfigError("session key 'directions' needs PCA directions of the checkpoint; compute them first");
        z = pca->apply(z, s.directions);
    }
    if (!s.namedDirections.empty()) z = applyNamed(z, s.namedDirections, nz);
    return z;
}

PcaDirections::Options SessionLatents::pcaOptions(const LatentSession& s, int64_t nz) {
    if (s.pcaComponents > nz)
        throw ConfigError("session key 'pca_components' is " + std::to_string(s.pcaComponents) + " but the generator has nz=" + std::to_string(nz));
    return pcaOptions(s);
}

at::Tensor SessionLatents::applyNamed(const at::Tensor& z, const std::vector<NamedDirectionEdit>& edits, int64_t nz) {
    // The offset is summed in double and added once, so many edits cost one pass over the walk.
    at::Tensor offset = at::zeros({nz}, at::kDouble);
    for (size_t i = 0; i < edits.size(); ++i) {
        const auto& e = edits[i];
        if (static_cast<int64_t>(e.z.size()) != nz)
            throw ConfigError("session key 'named_directions[" + std::to_string(i) + "].z' (\"" + e.name + "\") has " + std::to_string(e.z.size()) +
                              " values but the generator takes nz=" + std::to_string(nz) + ": it was fitted on another checkpoint");
        const at::Tensor d = at::tensor(e.z, at::kDouble);
        const double norm = d.norm().item<double>();
        if (!(norm > 0) || !std::isfinite(norm)) throw ConfigError("session key 'named_directions[" + std::to_string(i) + "].z' has no length");
        offset += d * (e.amount / norm);
    }
    const at::Tensor o = offset.to(z.scalar_type());
    return z + (z.dim() == 4 ? o.view({1, nz, 1, 1}) : z.dim() == 2 ? o.view({1, nz}) : o);
}

}  // namespace streetgan
