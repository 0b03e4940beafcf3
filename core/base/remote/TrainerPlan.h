// How to get streetgan-trainer onto a host, chosen from what the host is (HostPlatform) and what
// the app carries (prebuilt bundles, the Debian 12 package): the rule of docs/remote-setup.md,
// "Which set-up", in one place. The set-up dialog preselects it and shows its reason.
//
// Value types; any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/remote/HostPlatform.h"

namespace streetgan {

/// A prebuilt trainer folder for one torch minor version (packaging/gpu-bundle.sh --tar), found by
/// its file name: streetgan-trainer-bundle-torch<MAJOR.MINOR>-glibc<FLOOR>[-glibcxx<FLOOR>]-x86_64.tar.gz.
struct TrainerBundle {
    std::string path;        ///< the local file
    std::string torchMinor;  ///< "2.11"
    std::string glibc;       ///< the highest GLIBC_ any of its files needs (packaging/check-floor.sh)
    std::string glibcxx;     ///< the highest GLIBCXX_ the host's libstdc++ must have; empty: it carries its own

    static std::optional<TrainerBundle> fromFileName(const std::string& path);
    /// Every bundle in `dir` (not recursive), the newest torch first; none when `dir` is missing.
    static std::vector<TrainerBundle> findIn(const std::string& dir);
    /// "streetgan-trainer-bundle-torch2.11-glibc2.28-x86_64.tar.gz" (with "-glibcxx3.4.30" before
    /// "-x86_64" when `glibcxx` is given)
    static std::string fileName(const std::string& torchMinor, const std::string& glibc, const std::string& glibcxx = {});
    /// Empty when it runs on `platform`; else why not ("needs glibc 2.34 and HOST has 2.31").
    std::string misfit(const HostPlatform& platform, const std::string& host) const;
};

struct TrainerPlan {
    enum class Kind { Bundle, HostBuild, Deb, Unsupported };
    Kind kind = Kind::Unsupported;
    std::string python;     ///< Bundle, HostBuild: the interpreter whose torch the trainer uses
    std::string torch;      ///< its torch version
    TrainerBundle bundle;   ///< Bundle: which one
    std::string reason;     ///< one line: what was chosen and why, or what is missing and what to do
    std::string gpuAdvice;  ///< one line when the host's GPU and its torch do not fit; else empty

    /// The oldest torch the trainer builds and runs against, and the oldest glibc (pip's torch
    /// wheels are manylinux_2_28).
    static constexpr const char* kMinTorch = "2.9";
    static constexpr const char* kMinGlibc = "2.28";

    /// `host`: its name in the texts. `bundles`: what the app can upload. `haveDeb`: the app has
    /// the Debian 12 package.
    static TrainerPlan choose(const HostPlatform& platform, const std::vector<TrainerBundle>& bundles, bool haveDeb, const std::string& host);
    /// The one line for a GPU that `python`'s torch cannot drive (too old for its CUDA build, or a
    /// CPU build of torch on a GPU host); empty when it fits or there is no GPU.
    static std::string gpuAdviceFor(const HostPlatform& platform, const HostPython& python);
};

}  // namespace streetgan
