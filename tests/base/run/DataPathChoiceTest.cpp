// DataPathChoice: each rule of --data-path, the lines it says, and the pack size estimate.
#include <gtest/gtest.h>

#include <string>

#include "base/run/DataPathChoice.h"
#include "base/util/Errors.h"

using namespace streetgan;
using Kind = DataPathChoice::Kind;
using Mode = DataPathChoice::Mode;

namespace {

DataPathChoice::Inputs inputs(Mode mode) {
    DataPathChoice::Inputs in;
    in.mode = mode;
    in.spec = "/data/msls";
    in.packCommand = "streetgan-trainer data pack /data/msls --size 64";
    in.packDir = "/home/u/.cache/streetgan/packs/0123abcd";
    in.epochs = 10;
    in.packBytes = 20'000'000'000;
    in.freeBytes = 500'000'000'000;
    return in;
}

bool says(const DataPathChoice::Choice& c, const std::string& what) { return c.message.find(what) != std::string::npos; }

}  // namespace

TEST(DataPathChoice, ModesParseAndOthersAreRefused) {
    EXPECT_EQ(DataPathChoice::parseMode("auto"), Mode::Auto);
    EXPECT_EQ(DataPathChoice::parseMode("photos"), Mode::Photos);
    EXPECT_EQ(DataPathChoice::parseMode("packed"), Mode::Packed);
    EXPECT_THROW(DataPathChoice::parseMode("pack"), ConfigError);
}

TEST(DataPathChoice, PhotosAlwaysDecodesQuietlyEvenWithAPack) {
    auto in = inputs(Mode::Photos);
    in.matchDir = "/p";
    in.cuda = true;
    const auto c = DataPathChoice::decide(in);
    EXPECT_EQ(c.kind, Kind::Photos);
    EXPECT_TRUE(c.message.empty());
}

TEST(DataPathChoice, AMatchingPackIsUsedAndSaid) {
    for (const Mode m : {Mode::Auto, Mode::Packed}) {
        auto in = inputs(m);
        in.matchDir = "/packs/msls-64";
        in.worldSize = 8;  // ranks may all read a pack that is there
        const auto c = DataPathChoice::decide(in);
        EXPECT_EQ(c.kind, Kind::UsePack);
        EXPECT_TRUE(says(c, "data: training from the packed cache '/packs/msls-64'")) << c.message;
        EXPECT_TRUE(says(c, "--data-path photos decodes them instead")) << c.message;
    }
}

TEST(DataPathChoice, AutoOnTheCpuDecodesAndMentionsOnlyAStalePack) {
    auto in = inputs(Mode::Auto);
    EXPECT_EQ(DataPathChoice::decide(in).kind, Kind::Photos);
    EXPECT_TRUE(DataPathChoice::decide(in).message.empty());
    in.staleDir = "/packs/old";
    const auto c = DataPathChoice::decide(in);
    EXPECT_EQ(c.kind, Kind::Photos);
    EXPECT_TRUE(says(c, "'/packs/old' was made of other photos or with other settings (streetgan-trainer data pack /data/msls --size 64 packs them"))
        << c.message;
}

TEST(DataPathChoice, AutoOnAGpuPacksFirstWhenItPaysAndFits) {
    auto in = inputs(Mode::Auto);
    in.cuda = true;
    auto c = DataPathChoice::decide(in);
    EXPECT_EQ(c.kind, Kind::PackFirst);
    EXPECT_TRUE(says(c, "reads them 10 times; about 20.0 GB into '/home/u/.cache/streetgan/packs/0123abcd'")) << c.message;

    in.epochs = 1.5;  // read less than twice: packing is a pass of its own
    c = DataPathChoice::decide(in);
    EXPECT_EQ(c.kind, Kind::Photos);
    EXPECT_TRUE(c.message.empty()) << c.message;

    in.epochs = 2;
    in.freeBytes = 79'000'000'000;  // the pack would take over a quarter of the free space
    c = DataPathChoice::decide(in);
    EXPECT_EQ(c.kind, Kind::Photos);
    EXPECT_TRUE(says(c, "would need about 20.0 GB and '/home/u/.cache/streetgan/packs/0123abcd' has 79.0 GB free")) << c.message;
    EXPECT_TRUE(says(c, "--out DIR packs them elsewhere")) << c.message;
    in.freeBytes = 80'000'000'000;
    EXPECT_EQ(DataPathChoice::decide(in).kind, Kind::PackFirst);
    in.freeBytes = -1;  // unknown: not held against packing
    EXPECT_EQ(DataPathChoice::decide(in).kind, Kind::PackFirst);

    in.worldSize = 2;
    c = DataPathChoice::decide(in);
    EXPECT_EQ(c.kind, Kind::Photos);
    EXPECT_TRUE(says(c, "the ranks of a distributed run do not pack by themselves")) << c.message;
    EXPECT_TRUE(says(c, "(streetgan-trainer data pack /data/msls --size 64)")) << c.message;
}

TEST(DataPathChoice, PackedPacksOrSaysWhyItCannot) {
    auto in = inputs(Mode::Packed);
    in.epochs = 1;  // asked for: packed whatever the run's length or device
    auto c = DataPathChoice::decide(in);
    EXPECT_EQ(c.kind, Kind::PackFirst);
    EXPECT_TRUE(says(c, "(--data-path packed), about 20.0 GB")) << c.message;
    in.freeBytes = 20'000'000'000;  // fits, just
    EXPECT_EQ(DataPathChoice::decide(in).kind, Kind::PackFirst);
    in.freeBytes = 19'000'000'000;
    try {
        DataPathChoice::decide(in);
        FAIL() << "no error";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("needs about 20.0 GB and '/home/u/.cache/streetgan/packs/0123abcd' has 19.0 GB free"), std::string::npos)
            << e.what();
    }
    in.freeBytes = -1;
    in.worldSize = 4;
    EXPECT_THROW(DataPathChoice::decide(in), ConfigError);
}

TEST(DataPathChoice, PackBytesFollowTheMarginsOfTheShift) {
    // 64 px, no shift: 64 x 64 x 3 a photo.
    EXPECT_EQ(DataPathChoice::estimatePackBytes(1000, 64, 0.0, 2.5), 1000 * 64 * 64 * 3);
    // 640-px-wide photos cropped to 256 (crop factor 4 at 64 px), shift 0.2: margins of 32 px.
    EXPECT_EQ(DataPathChoice::estimatePackBytes(1000, 64, 0.2, 640.0 / 256), 1000 * 64 * 128 * 3);
}
