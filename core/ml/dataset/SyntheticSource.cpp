#include "ml/dataset/SyntheticSource.h"

namespace streetgan {

SyntheticSource::SyntheticSource(uint64_t seed, int64_t images) : streets_(seed), images_(images) {}

void SyntheticSource::load(int64_t index, int size, uint64_t /*augmentSeed*/, uint8_t* rgb) const {
    // Scenes vary by construction (camera, weather, season), so no extra augmentation is applied.
    streets_.render(static_cast<uint64_t>(index), size, size, rgb);
}

std::string SyntheticSource::describe() const { return "synthetic streets (" + std::to_string(images_) + " images per epoch)"; }

}  // namespace streetgan
