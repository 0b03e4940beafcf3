// The G and D losses of every logged step of a run, as the reference Python project keeps them in
// its checkpoints ({"_G": [...], "_D": [...]}, one entry per logged step, oldest first). A run
// appends one pair per metrics event and saves the whole history in each checkpoint, so a resumed
// run (ours or the reference's) continues the history instead of restarting it.
// A plain value; not synchronised (the training thread owns its copy).
#pragma once

#include <cstddef>
#include <vector>

namespace streetgan {

struct LossHistory {
    std::vector<double> g;  ///< "_G": generator loss per logged step
    std::vector<double> d;  ///< "_D": discriminator loss per logged step

    void append(double lossG, double lossD) {
        g.push_back(lossG);
        d.push_back(lossD);
    }
    bool empty() const { return g.empty() && d.empty(); }
    bool operator==(const LossHistory& o) const { return g == o.g && d == o.d; }
};

}  // namespace streetgan
