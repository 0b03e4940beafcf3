// parseDouble: std::from_chars's contract for JSON numbers, built twice (tests/base/CMakeLists.txt):
// on std::from_chars, and on the strtod_l path that GCC 10's libstdc++ (the GPU bundle's floor
// build) takes.
#include <gtest/gtest.h>

#include <clocale>
#include <cstring>
#include <string>

#include "base/util/FloatChars.h"

using streetgan::parseDouble;

namespace {

std::from_chars_result parse(const std::string& s, double& v) { return parseDouble(s.data(), s.data() + s.size(), v); }

}  // namespace

TEST(FloatChars, ParsesJsonNumbersExactly) {
    double v = 0;
    for (const auto& [text, want] : std::initializer_list<std::pair<std::string, double>>{
             {"1.5", 1.5}, {"-2.25e-3", -2.25e-3}, {"0.1", 0.1}, {"6.02214076E23", 6.02214076e23}, {"1e308", 1e308}, {"-0.0", -0.0}}) {
        const auto r = parse(text, v);
        EXPECT_EQ(r.ec, std::errc()) << text;
        EXPECT_EQ(r.ptr, text.data() + text.size()) << text;
        EXPECT_EQ(v, want) << text;
    }
}

TEST(FloatChars, StopsAtTheEndGivenAndReportsErrorsLikeFromChars) {
    double v = 7;
    const std::string text = "3.25,4";
    const auto r = parseDouble(text.data(), text.data() + 4, v);  // "3.25"
    EXPECT_EQ(r.ec, std::errc());
    EXPECT_EQ(r.ptr, text.data() + 4);
    EXPECT_EQ(v, 3.25);
    v = 7;
    EXPECT_EQ(parse("x1", v).ec, std::errc::invalid_argument);
    EXPECT_EQ(v, 7);  // untouched on an error
    EXPECT_EQ(parse("1e400", v).ec, std::errc::result_out_of_range);
    EXPECT_EQ(v, 7);
}

TEST(FloatChars, IgnoresTheLocalesDecimalComma) {
    // Under a locale whose decimal point is ',' (where one is installed), JSON's '.' still parses.
    const char* before = std::setlocale(LC_NUMERIC, nullptr);
    const std::string saved = before ? before : "C";
    for (const char* loc : {"de_DE.UTF-8", "fr_FR.UTF-8", "C"})
        if (std::setlocale(LC_NUMERIC, loc)) break;
    double v = 0;
    EXPECT_EQ(parse("2.5", v).ec, std::errc());
    EXPECT_EQ(v, 2.5);
    std::setlocale(LC_NUMERIC, saved.c_str());
}
