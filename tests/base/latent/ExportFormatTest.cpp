// ExportFormat: the one table of a walk's export formats (issue 42 item 1): a path's format by its
// extension in any case, a folder as the PNG sequence, another extension refused; the messages'
// list and the file dialog's filters made from the rows, so another row shows everywhere.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/latent/ExportFormat.h"
#include "support/TempDir.h"

using namespace streetgan;
using Kind = ExportFormat::Kind;

TEST(ExportFormat, APathsFormatComesFromItsExtensionOrItsBeingAFolder) {
    EXPECT_EQ(ExportFormat::forPath("walk.gif"), Kind::Gif);
    EXPECT_EQ(ExportFormat::forPath("/a/b/WALK.GIF"), Kind::Gif);
    EXPECT_EQ(ExportFormat::forPath("grid.Png"), Kind::PngGrid);
    EXPECT_EQ(ExportFormat::forPath("video.mp4"), Kind::Mp4);
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
    for (Kind k : {Kind::Gif, Kind::PngGrid, Kind::Mp4, Kind::PngSequence}) {
        int rows = 0;
        for (const auto& s : ExportFormat::all()) rows += s.kind == k;
        EXPECT_EQ(rows, 1);
        EXPECT_EQ(ExportFormat::of(k).kind, k);
    }
    EXPECT_EQ(ExportFormat::choices(), "FILE.gif, FILE.png, FILE.mp4 or a folder (PNG sequence)");
    EXPECT_EQ(ExportFormat::fileFilters(), "GIF (*.gif);;PNG grid (*.png);;MP4 video (*.mp4)");
    EXPECT_TRUE(ExportFormat::of(Kind::Mp4).needsMp4);
    EXPECT_FALSE(ExportFormat::of(Kind::Gif).needsMp4);
}
