// One edit of a latent walk along a PCA direction (GANSpace): session key "directions" (LatentSession),
// applied to tensors by ml/latent/PcaDirections. A plain value type.
#pragma once

namespace streetgan {

struct DirectionEdit {
    int index = 0;      ///< direction, 0 = most variance
    double amount = 0;  ///< in units of that direction's sigma
    bool operator==(const DirectionEdit& o) const { return index == o.index && amount == o.amount; }
};

}  // namespace streetgan
