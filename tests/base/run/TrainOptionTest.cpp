// The training options' table (base/run/TrainOption.h), row by row: every run.json key is a row
// and round-trips; each row's range and choices are what validate() enforces, at both ends; each
// row says whether a resume may change it, and checkResume refuses exactly the kept ones in one
// line naming the key.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

#include "base/model/Presets.h"
#include "base/run/TrainConfig.h"
#include "base/run/TrainOption.h"
#include "base/util/Errors.h"

using namespace streetgan;
using nlohmann::json;

namespace {

TrainConfig tiny() {
    TrainConfig c;
    c.model = Presets::get("tiny-32");
    c.steps = 10;
    return c;
}

// The message of validate() on `c`, "" when it passes.
std::string validation(const TrainConfig& c) {
    try {
        c.validate();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

// Another valid value of the option (its type's: a whole number one up, a number inside its
// range, the other bool, another choice).
struct Changed {
    const TrainOption::Spec& o;
    template <class T>
    void operator()(T& v) const {
        if constexpr (std::is_same_v<T, bool>)
            v = !v;
        else if constexpr (std::is_same_v<T, std::string>) {
            const auto choices = TrainOption::choices(o);
            v = std::string(o.key) == "preset" ? (v == "naive-64" ? "tiny-32" : "naive-64")
                : choices.empty()              ? v + "x"
                                               : (v == choices[1] ? choices[0] : choices[1]);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>)
            v = TrainOption::choices(o).empty() ? std::vector<std::string>{"x"} : std::vector<std::string>{TrainOption::choices(o).back()};
        else if constexpr (std::is_same_v<T, std::array<double, 2>>)
            v = {o.lo + (o.hi - o.lo) / 3, o.lo + (o.hi - o.lo) / 4};
        else if constexpr (std::is_same_v<T, double>)
            v = v == (o.lo + o.hi) / 2 ? o.lo : (o.lo + o.hi) / 2;
        else
            v = v + 1;
    }
};

}  // namespace

TEST(TrainOption, EveryRunJsonKeyIsOneRowWithAFlagOrAReasonAndEveryChangedValueRoundTrips) {
    std::set<std::string> keys, flags;
    for (const TrainOption::Spec& o : TrainOption::all()) {
        EXPECT_TRUE(keys.insert(o.key).second) << o.key << " twice";
        if (*o.flag) {
            EXPECT_TRUE(flags.insert(TrainOption::flagName(o)).second) << o.flag;
        }
        EXPECT_STRNE(o.help, "") << o.key;
        EXPECT_EQ(TrainOption::find(o.key), &o);
    }
    const json j = tiny().toJson();
    std::set<std::string> written;
    for (const auto& [k, v] : j.items()) written.insert(k);
    EXPECT_EQ(written, keys);
    // each option changed alone is read back as written (but the model's shape: merge() relabels a
    // preset whose sizes changed "custom", tested in TrainOptions)
    const std::set<std::string> shape = {"preset", "nz", "ngf", "ndf", "nc", "img_size"};
    for (const TrainOption::Spec& o : TrainOption::all()) {
        if (shape.count(o.key)) continue;
        TrainConfig c = tiny();
        std::visit([&](auto ref) { Changed{o}(ref(c)); }, o.member);
        TrainConfig back = tiny();
        back.merge(c.toJson());
        EXPECT_EQ(back.toJson(), c.toJson()) << o.key;
        EXPECT_NE(c.toJson(), tiny().toJson()) << o.key << ": the change did not reach run.json";
    }
    EXPECT_EQ(TrainOption::find("no_such_key"), nullptr);
    EXPECT_THROW(tiny().merge(json{{"no_such_key", 1}}), ConfigError);
}

TEST(TrainOption, ValidateEnforcesEachRowsRangeAtBothEndsAndItsChoices) {
    int ranged = 0;
    for (const TrainOption::Spec& o : TrainOption::all()) {
        if (o.lo > o.hi) continue;
        std::visit(
            [&](auto ref) {
                using T = std::remove_reference_t<decltype(ref(std::declval<TrainConfig&>()))>;
                if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
                    ++ranged;
                    const bool whole = std::is_integral_v<T>;
                    for (const double ok : {o.lo, o.hi}) {
                        TrainConfig c = tiny();
                        ref(c) = static_cast<T>(ok);
                        EXPECT_EQ(validation(c), "") << o.key << " = " << ok;
                    }
                    const double below = whole ? o.lo - 1 : (o.lo > 0 ? o.lo / 2 : o.lo - 0.5);
                    const double above = whole ? o.hi + 1 : o.hi * 2 + 1;
                    for (const double bad : {below, above}) {
                        if (bad < 0 && std::is_unsigned_v<T>) continue;
                        TrainConfig c = tiny();
                        ref(c) = static_cast<T>(bad);
                        const std::string why = validation(c);
                        EXPECT_NE(why.find(std::string(o.key) + " "), std::string::npos) << o.key << " = " << bad << ": " << why;
                        EXPECT_NE(why.find("is out of range"), std::string::npos) << why;
                    }
                } else if constexpr (std::is_same_v<T, std::array<double, 2>>) {
                    ++ranged;
                    TrainConfig c = tiny();
                    ref(c) = {o.lo, o.hi};
                    EXPECT_EQ(validation(c), "") << o.key;
                    ref(c) = {o.lo, o.hi + 1};
                    EXPECT_NE(validation(c).find(std::string(o.key) + " "), std::string::npos) << validation(c);
                }
            },
            o.member);
    }
    EXPECT_GE(ranged, 30);
    TrainConfig c = tiny();
    c.amp = "fp8";
    EXPECT_EQ(validation(c), "amp 'fp8' is unknown: use off, bf16 or fp16");
    c = tiny();
    c.metrics = {"swd", "is"};
    EXPECT_NE(validation(c).find("metrics 'is' is unknown: use "), std::string::npos) << validation(c);
    c.metrics = {};
    EXPECT_NE(validation(c).find("metrics is empty"), std::string::npos) << validation(c);
}

TEST(TrainOption, EachRowSaysWhetherAResumeMayChangeItAndCheckResumeRefusesExactlyTheKeptOnes) {
    int kept = 0, applied = 0;
    for (const TrainOption::Spec& o : TrainOption::all()) {
        EXPECT_EQ(TrainConfig::resumeRefusal(o.key), o.keptOnResume ? o.keptOnResume : "") << o.key;
        TrainConfig before = tiny();
        before.model.preset = "tiny-32";
        TrainConfig after = before;
        std::visit([&](auto ref) { Changed{o}(ref(after)); }, o.member);
        if (o.keptOnResume) {
            ++kept;
            try {
                after.checkResume(before.toJson(), "r/run.json");
                ADD_FAILURE() << "a resume changed " << o.key;
            } catch (const ConfigError& e) {
                const std::string why = e.what();
                EXPECT_NE(why.find("cannot change " + std::string(o.key) + " from"), std::string::npos) << why;
                EXPECT_EQ(why.find('\n'), std::string::npos) << why;
            }
        } else {
            ++applied;
            EXPECT_NO_THROW(after.checkResume(before.toJson(), "r/run.json")) << o.key;
            EXPECT_TRUE(TrainConfig::changes(before.toJson(), after.toJson()).contains(o.key)) << o.key << ": the change is not recorded";
        }
    }
    EXPECT_EQ(kept, 8);  // preset, nz, ngf, ndf, nc, img_size, seed, fixed_noise
    EXPECT_GT(applied, 30);
}
