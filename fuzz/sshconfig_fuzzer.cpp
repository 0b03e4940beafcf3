// Fuzz target: an ~/.ssh/config through SshConfig's own parser, then resolving a few aliases and
// their ProxyJump lists, as `streetgan remote` does before connecting. ConfigError is the correct
// outcome for bad input.
//
// Inputs with an Include directive are skipped: Include globs and reads real files of this machine
// (any path, e.g. `Include /*/*/*`), which would make the fuzzer's behaviour depend on the machine
// and could make it read devices; the included text goes through the same parser anyway.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/remote/SshConfig.h"
#include "base/util/Errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    std::string lowered = text;
    std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lowered.find("include") != std::string::npos) return 0;
    try {
        const streetgan::SshConfig config = streetgan::SshConfig::parse(text, "fuzz ssh config", "/nonexistent-streetgan-fuzz");
        for (const char* alias : {"gpu", "gpu-box.example.org", "jump", "*", ""}) {
            const streetgan::SshHostSettings s = config.resolve(alias);
            (void)s;
        }
    } catch (const streetgan::ConfigError&) {}
    // The first line as a ProxyJump value and as a user@host:port (the --jump option's parser).
    const std::string first = text.substr(0, text.find('\n'));
    try {
        (void)streetgan::JumpSpec::parseList(first);
    } catch (const streetgan::ConfigError&) {}
    try {
        (void)streetgan::SshConfig::expandPath(first, "host", 22, "user");
    } catch (const streetgan::ConfigError&) {}
    return 0;
}
