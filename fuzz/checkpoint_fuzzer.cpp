// Fuzz target: a torch.save checkpoint as bytes (the zip container and the pickle inside it),
// through TorchPickleReader::loadBytes, then a walk over the whole value tree as Checkpoint does.
// CheckpointError is the correct outcome for bad input; anything else escaping is a bug.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/util/Errors.h"
#include "ml/checkpoint/TorchPickleReader.h"

namespace {

size_t walk(const streetgan::PickleValue& v, int depth) {
    using K = streetgan::PickleValue::Kind;
    size_t n = v.describe().size();
    if (depth > 200) return n;  // the reader limits depth itself; this only keeps the walk finite
    if (v.kind() == K::List || v.kind() == K::Tuple)
        for (const auto& c : v.items()) n += walk(c, depth + 1);
    if (v.kind() == K::Dict)
        for (const auto& e : v.entries()) n += walk(e.first, depth + 1) + walk(e.second, depth + 1);
    if (v.kind() == K::Tensor && v.asTensor().numel() > 0 && v.asTensor().numel() < 4096) n += static_cast<size_t>(v.asTensor().sum().item<double>() != 0);
    return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::vector<char> bytes(reinterpret_cast<const char*>(data), reinterpret_cast<const char*>(data) + size);
    try {
        const streetgan::PickleValue v = streetgan::TorchPickleReader::loadBytes(bytes, "fuzz.pt");
        (void)walk(v, 0);
        if (v.isDict()) (void)v.find("generator");
    } catch (const streetgan::CheckpointError&) {}
    return 0;
}
