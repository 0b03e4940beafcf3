// The synthetic street scenes as an ImageSource: `images` scenes per epoch, scene i of a run
// with seed s is SyntheticStreets(s).render(i). Thread-safe.
#pragma once

#include "base/synthetic/SyntheticStreets.h"
#include "ml/dataset/ImageSource.h"

namespace streetgan {

class SyntheticSource : public ImageSource {
public:
    SyntheticSource(uint64_t seed, int64_t images);
    int64_t size() const override { return images_; }
    void load(int64_t index, int size, uint64_t augmentSeed, uint8_t* rgb) const override;
    std::string describe() const override;

private:
    SyntheticStreets streets_;
    int64_t images_;
};

}  // namespace streetgan
