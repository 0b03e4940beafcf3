#include "base/model/ModelConfig.h"

#include "base/util/Errors.h"

namespace streetgan {

int ModelConfig::stages() const {
    int s = 0;
    for (int64_t e = 4; e < imgSize; e *= 2) ++s;
    return s;
}

void ModelConfig::validate() const {
    auto bad = [](const std::string& what) { throw ConfigError(what); };
    if (imgSize != 32 && imgSize != 64 && imgSize != 128 && imgSize != 256)
        bad("img_size " + std::to_string(imgSize) + " is not supported: use 32, 64, 128 or 256");
    if (nz < 1 || nz > 4096) bad("nz " + std::to_string(nz) + " is out of range: use 1..4096");
    if (ngf < 1 || ngf > 4096) bad("ngf " + std::to_string(ngf) + " is out of range: use 1..4096");
    if (ndf < 1 || ndf > 4096) bad("ndf " + std::to_string(ndf) + " is out of range: use 1..4096");
    if (nc != 1 && nc != 3) bad("nc " + std::to_string(nc) + " is not supported: use 1 or 3");
}

}  // namespace streetgan
