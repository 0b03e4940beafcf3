// ExportFormat: the one table of a walk's export formats (issue 42 item 1): a path's format by its
// extension in any case, a folder as the PNG sequence, another extension refused; the messages'
// list and the file dialog's filters made from the rows, so another row shows everywhere.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/latent/ExportFormat.h"
#include "base/util/Errors.h"
#include "support/TempDir.h"

using namespace streetgan;
using Kind = ExportFormat::Kind;

TEST(ExportFormat, APathsFormatComesFromItsExtensionOrItsBeingAFolder) {
    EXPECT_EQ(ExportFormat::forPath("walk.gif"), Kind::Gif);
    EXPECT_EQ(ExportFormat::forPath("/a/b/WALK.GIF"), Kind::Gif);
    EXPECT_EQ(ExportFormat::forPath("grid.Png"), Kind::PngGrid);
    EXPECT_EQ(ExportFormat::forPath("video.mp4"), Kind::Mp4);
    EXPECT_EQ(ExportFormat::forPath("walk.WebP"), Kind::Webp);
    EXPECT_EQ(ExportFormat::forPath("frames"), Kind::PngSequence);
    EXPECT_EQ(ExportFormat::forPath("frames.v2/"), Kind::PngSequence);
    test::TempDir tmp;
    const std::string folder = (tmp.path() / "out.d").string();
    std::filesystem::create_directories(folder);
    EXPECT_EQ(ExportFormat::forPath(folder), Kind::PngSequence);  // a folder with a dot in its name
    EXPECT_EQ(ExportFormat::forPath("walk.webm"), std::nullopt);
    EXPECT_EQ(ExportFormat::forPath(""), std::nullopt);
}

TEST(ExportFormat, EveryKindHasOneRowAndTheListsAreMadeFromThem) {
    for (Kind k : {Kind::Gif, Kind::PngGrid, Kind::Mp4, Kind::Webp, Kind::PngSequence}) {
        int rows = 0;
        for (const auto& s : ExportFormat::all()) rows += s.kind == k;
        EXPECT_EQ(rows, 1);
        EXPECT_EQ(ExportFormat::of(k).kind, k);
    }
    EXPECT_EQ(ExportFormat::choices(), "FILE.gif, FILE.png, FILE.mp4, FILE.webp or a folder (PNG sequence)");
    EXPECT_EQ(ExportFormat::fileFilters(), "GIF (*.gif);;PNG grid (*.png);;MP4 video (*.mp4);;WebP animation (*.webp)");
    EXPECT_EQ(ExportFormat::names(), "GIF, PNG grid, MP4, WebP or PNG sequence");
    // What a build may leave out, and what the dialog enables for each format.
    EXPECT_STREQ(ExportFormat::of(Kind::Mp4).option, "STREETGAN_WITH_MP4");
    EXPECT_STREQ(ExportFormat::of(Kind::Gif).option, "");
    for (const auto& s : ExportFormat::all()) {
        EXPECT_EQ((s.uses & ExportFormat::kLoops) != 0, s.kind == Kind::Gif || s.kind == Kind::Webp) << s.name;
        EXPECT_EQ(s.still, s.kind == Kind::PngGrid) << s.name;
        EXPECT_EQ(*s.needs == 0, *s.option == 0) << s.name;  // a left-out format says what it needs and which option
    }
    EXPECT_EQ(ExportFormat::of(Kind::Gif).delayStepMs, 10);  // GIF stores centiseconds
    EXPECT_EQ(ExportFormat::of(Kind::Webp).delayStepMs, 1);  // WebP, milliseconds
    EXPECT_STREQ(ExportFormat::of(Kind::Webp).option, "STREETGAN_WITH_WEBP");
}

TEST(ExportFormat, ALeftOutFormatIsOneLineNamingTheOptionAndWhatThisBuildWrites) {
    try {
        ExportFormat::missing(Kind::Mp4, "/tmp/w.mp4", {Kind::Gif, Kind::PngSequence});
        FAIL() << "no error";
    } catch (const ConfigError& e) {
        EXPECT_STREQ(e.what(),
                     "MP4 export to '/tmp/w.mp4' needs MP4 support (FFmpeg), which this streetgan-trainer was built without (STREETGAN_WITH_MP4=OFF, as "
                     "in the GPU bundle): write GIF or PNG sequence instead, or render on a full build");
    }
}
