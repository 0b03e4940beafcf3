// Fuzz target: a bare pickle stream (what data.pkl of a checkpoint holds) through the Unpickler,
// without the zip container around it, so that mutations reach the opcode loop instead of failing
// the zip's CRC. Every storage key loads a 256-byte storage (0..255), so tensor rebuilds and their
// bounds checks run. CheckpointError is the correct outcome for bad input.
#include <ATen/ATen.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/util/Errors.h"
#include "ml/checkpoint/Unpickler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const at::Storage storage = [] {
        at::Tensor t = at::arange(256, at::kByte);
        return t.storage();
    }();
    const std::string file = "fuzz.pkl";
    try {
        streetgan::Unpickler u(reinterpret_cast<const char*>(data), size, file, [](const std::string&) { return storage; });
        const streetgan::PickleValue v = u.parse();
        (void)v.describe();
    } catch (const streetgan::CheckpointError&) {}
    return 0;
}
