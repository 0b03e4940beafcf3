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

at::Tensor SessionLatents::latents(const LatentSession& s, int64_t nz, const PcaDirections* pca) {
    at::Tensor z = path(s, nz).frames();
    if (s.truncation != 1.0) z = Truncation::apply(z, s.truncation);
    if (!s.directions.empty()) {
        if (!pca) throw ConfigError("session key 'directions' needs PCA directions of the checkpoint; compute them first");
        z = pca->apply(z, s.directions);
    }
    return z;
}

}  // namespace streetgan
