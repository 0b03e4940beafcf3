// One edit of a latent walk along a named direction learnt from labels (issue 44 item 2,
// ml/latent/DirectionFitter: "night", "sideways", "winter", "berlin"): session key
// "named_directions" (LatentSession), applied to tensors by ml/latent/SessionLatents after the PCA
// edits. The direction travels in the session itself (not only its name), so `render` replays it
// without the directions file it came from. A plain value type.
#pragma once

#include <string>
#include <vector>

namespace streetgan {

struct NamedDirectionEdit {
    std::string name;       ///< what the slider is called ("night"); not required to be unique
    std::vector<double> z;  ///< the direction in z (nz numbers, not all 0); normalised when applied
    double amount = 0;      ///< how far to move, in z units along the unit direction (prior sigmas)
    bool operator==(const NamedDirectionEdit& o) const { return name == o.name && z == o.z && amount == o.amount; }
};

}  // namespace streetgan
