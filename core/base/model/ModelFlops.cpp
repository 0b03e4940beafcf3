#include "base/model/ModelFlops.h"

namespace streetgan {
namespace {

// 4x4 kernels throughout: a convolution costs its output positions x Cin x Cout x 16 multiply-adds,
// a transposed one its input positions x Cin x Cout x 16 (each input pixel is spread over 4x4).
double conv(int64_t positions, int64_t cin, int64_t cout) { return 2.0 * 16.0 * static_cast<double>(positions) * static_cast<double>(cin * cout); }

}  // namespace

ModelFlops ModelFlops::of(const ModelConfig& m) {
    ModelFlops f;
    const int stages = m.stages();
    int64_t ch = m.ngf << (stages - 1);
    f.generatorFirstLayer = conv(1, m.nz, ch);  // z is 1x1
    f.generatorForward = f.generatorFirstLayer;
    int64_t edge = 4;  // the input edge of each transposed convolution
    for (int s = 1; s < stages; ++s, edge *= 2, ch /= 2) f.generatorForward += conv(edge * edge, ch, ch / 2);
    f.generatorForward += conv(edge * edge, ch, m.nc);

    ch = m.ndf;
    edge = m.imgSize / 2;  // the output edge of each strided convolution
    f.discriminatorFirstLayer = conv(edge * edge, m.nc, ch);
    f.discriminatorForward = f.discriminatorFirstLayer;
    for (int s = 1; s < stages; ++s, ch *= 2) {
        edge /= 2;
        f.discriminatorForward += conv(edge * edge, ch, ch * 2);
    }
    f.discriminatorForward += conv(1, ch, 1);
    return f;
}

double ModelFlops::stepPerImage(bool dWeightGradsInGPass) const {
    const double d = discriminatorForward;
    const double dPass = d + d + (d - discriminatorFirstLayer);   // forward, weight and input gradients (not the image's)
    const double gPassD = d + d + (dWeightGradsInGPass ? d : 0);  // forward and input gradient (fake needs it)
    const double g = generatorForward;
    return 2 * dPass + gPassD + g + g + (g - generatorFirstLayer);
}

}  // namespace streetgan
