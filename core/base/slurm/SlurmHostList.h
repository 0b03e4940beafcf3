// Slurm's compressed host lists, as SLURM_JOB_NODELIST and SLURM_STEP_NODELIST carry them:
// names separated by commas, each with any number of bracketed ranges that expand in order
// ("gpu[01-03,07],login" -> gpu01 gpu02 gpu03 gpu07 login; "r[1-2]n[1-2]" -> r1n1 r1n2 r2n1
// r2n2). A range's numbers keep the width of its first bound's digits ("[08-10]" -> 08 09 10,
// "[8-10]" -> 8 9 10), as `scontrol show hostnames` prints them. Malformed lists (unbalanced or
// nested brackets, empty names or ranges, a descending range, letters in a range) are a
// ConfigError naming where the list came from.
//
// Thread contract: pure functions.
#pragma once

#include <string>
#include <vector>

namespace streetgan {

class SlurmHostList {
public:
    /// Every host of `list` in Slurm's order. `what` names the list in errors (e.g.
    /// "SLURM_STEP_NODELIST"). A list of more than kMaxHosts names is refused.
    static std::vector<std::string> expand(const std::string& list, const std::string& what = "the host list");
    /// The first host of `list` (what expand()[0] is), after checking the whole list's syntax.
    static std::string first(const std::string& list, const std::string& what = "the host list");

    static constexpr size_t kMaxHosts = 1 << 20;
};

}  // namespace streetgan
