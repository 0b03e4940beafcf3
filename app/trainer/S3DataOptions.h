// The --s3-* options of the commands that read data but do not take train's settings (data stats,
// pack, verify; eval): the same rows of TrainOption's table as `train` has (flag, help, range),
// into a TrainConfig's s3 fields, so that the flags mean the same everywhere.
//
// Thread contract: none (CLI setup on the main thread).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <type_traits>
#include <variant>

#include "base/run/TrainConfig.h"
#include "base/run/TrainOption.h"

namespace streetgan {

class S3DataOptions {
public:
    /// Adds --s3-endpoint, --s3-concurrency, --s3-cache, --s3-cache-gb and --s3-listing-max-age
    /// to `app`, setting `cfg`'s members.
    static void add(CLI::App& app, TrainConfig& cfg) {
        for (const char* key : kKeys) {
            const TrainOption::Spec* o = TrainOption::find(key);
            std::visit(
                [&](auto ref) {
                    auto& value = ref(cfg);
                    CLI::Option* opt = app.add_option(o->flag, value, o->help);
                    using T = std::remove_reference_t<decltype(value)>;
                    if constexpr (std::is_arithmetic_v<T>) opt->check(CLI::Range(static_cast<T>(o->lo), static_cast<T>(o->hi)));
                },
                o->member);
        }
    }
    /// Copies into `to` the s3 settings of `from` whose flags were given on `app`'s command line
    /// (eval: the checkpoint's run says where its data is; a flag given overrides it).
    static void applyGiven(const CLI::App& app, const TrainConfig& from, TrainConfig& to) {
        for (const char* key : kKeys) {
            const TrainOption::Spec* o = TrainOption::find(key);
            if (app.get_option(TrainOption::flagName(*o))->count() == 0) continue;
            std::visit([&](auto ref) { ref(to) = ref(const_cast<TrainConfig&>(from)); }, o->member);
        }
    }

private:
    static constexpr const char* kKeys[] = {"s3_endpoint", "s3_concurrency", "s3_cache", "s3_cache_gb", "s3_listing_max_age"};
};

}  // namespace streetgan
