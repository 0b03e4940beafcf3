// The training options, in one table: each row is the one place an option is declared, with its
// run.json key, its command-line flag, the TrainConfig member it sets, its range or choices, its
// help and whether a resumed run may change it. From it come run.json's read (TrainConfig::merge),
// write (toJson) and validation (validate), the range and resume checks, `train`/`start`'s flags
// (TrainCommand: CLI11 options, their checks and help, and which given flag sets what) and the New
// run dialog's limits and tips. Another option is a row here, its member in TrainConfig and the code
// that uses it.
// Plain data; any thread.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace streetgan {

struct TrainConfig;

class TrainOption {
public:
    /// The member an option sets, as a function of the config (captureless lambdas in the table).
    template <class T>
    using Ref = T& (*)(TrainConfig&);
    using Member = std::variant<Ref<int64_t>, Ref<int>, Ref<uint64_t>, Ref<double>, Ref<bool>, Ref<std::string>, Ref<std::vector<std::string>>,
                                Ref<std::array<double, 2>>>;

    struct Spec {
        const char* key;   ///< run.json's "config" key: "lr"
        const char* flag;  ///< "--lr"; a bool's may name its negation ("--channels-last,!--no-channels-last"); "" for run.json only
        Member member;
        double lo, hi;        ///< allowed values of a number (each element of a pair); lo > hi: none (the seed), or ModelConfig's (the sizes)
        const char* choices;  ///< a string's (each list element's) allowed values, "off,bf16,fp16"; "" for any
        const char* help;
        /// nullptr: a resumed run may change it, and the change takes effect from the resume on
        /// (recorded in run.json's resumes[].changed); else why a resume keeps the run's value.
        const char* keptOnResume;
    };

    /// Every option, in run.json's order (the model's shape first).
    static const std::vector<Spec>& all();
    /// The option of a run.json key, or nullptr.
    static const Spec* find(std::string_view key);
    /// The option's first flag name ("--channels-last"), "" when it has none.
    static std::string flagName(const Spec& spec);
    /// The option's choices, split ("off,bf16,fp16" -> off, bf16, fp16).
    static std::vector<std::string> choices(const Spec& spec);
};

}  // namespace streetgan
