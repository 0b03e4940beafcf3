// Fuzz target: a latent-explorer session file through LatentSession::read (JSON, then every key
// checked), then what the explorer computes from a valid one: its frame count, where a few frames
// lie, and the file written back. ConfigError / IoError are the correct outcomes for bad input.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "FuzzSupport.h"
#include "base/latent/LatentSession.h"
#include "base/util/Errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = streetgan::fuzz::writeScratch("session.json", data, size);
    try {
        const streetgan::LatentSession s = streetgan::LatentSession::read(path);
        const int64_t frames = s.frameCount();
        for (const int64_t i : {int64_t{0}, frames / 2, frames - 1}) {
            if (i < 0) continue;
            (void)s.framePlace(i);
            (void)s.frameT(i);
        }
        (void)s.toJson().dump();
        (void)streetgan::LatentSession::fromJson(s.toJson());  // what is written must read back
        (void)s.hashWarning("model.pt", std::string(64, '0'));
    } catch (const streetgan::Error&) {}
    return 0;
}
