// The program's version, the same everywhere: `--version` of both programs, the About box, run.json
// and the Debian packages. It comes from `git describe` at build time (cmake/StreetganVersion.cmake
// writes the definition into the build directory), e.g. "0.1.0+git412.g51274aa".
// Thread-safe (a constant).
#pragma once

namespace streetgan {

class Version {
public:
    /// The version string (never empty).
    static const char* text();
    /// The app <-> trainer protocol: what `streetgan-trainer version --json` reports and the app
    /// compares on probe and attach (docs/remote-setup.md). Bump it when a change to the trainer's
    /// commands or outputs (attach lines, ls --json, start --detach) would break an older app or
    /// trainer. A trainer without the `version` command is protocol 0.
    static constexpr int kProtocol = 1;
};

}  // namespace streetgan
