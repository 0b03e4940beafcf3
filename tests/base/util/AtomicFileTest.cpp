// AtomicFile: a write replaces the whole file or nothing, and the temporaries of writes that a
// kill interrupted are found and removed (only those).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

TEST(AtomicFile, WriteReplacesTheFileAndLeavesNoTemporary) {
    TempDir dir;
    const std::string path = dir / "run.json";
    AtomicFile::write(path, std::string("first"));
    AtomicFile::write(path, std::string("second"));
    EXPECT_EQ(AtomicFile::read(path), "second");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
    EXPECT_THROW(AtomicFile::write(dir / "no such folder/x", std::string("x")), IoError);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(AtomicFile, RemovesOnlyTheTemporariesOfInterruptedWrites) {
    TempDir dir;
    const std::set<std::string> stale = {"checkpoint_3.pt.tmp.4242.0", "run.json.tmp.1.17", "step_10.png.tmp.99999.3"};
    const std::set<std::string> kept = {"checkpoint_3.pt", "notes.tmp", "a.tmp.12", "b.tmp.x.1", "c.tmp.1.y", ".tmp.1.2", "d.tmp.1.2.bak"};
    for (const auto& n : stale) std::ofstream(dir / n) << "partial";
    for (const auto& n : kept) std::ofstream(dir / n) << "keep";
    EXPECT_EQ(AtomicFile::removeStaleTemporaries(dir.path().string()), 3);
    std::set<std::string> left;
    for (const auto& e : fs::directory_iterator(dir.path())) left.insert(e.path().filename().string());
    EXPECT_EQ(left, kept);
    EXPECT_EQ(AtomicFile::removeStaleTemporaries(dir / "absent"), 0);
}
