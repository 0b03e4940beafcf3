// TensorBoardDiscovery on real folders (LocalEventFiles): the usual places, the reference's
// RUNS/NAME/events layout, a deep project log folder, what is not searched (hidden folders, our
// own runs, venvs, conda envs), the grouping into watch folders, their order, and the budget.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/time.h>

#include <filesystem>
#include <fstream>

#include "base/follow/TensorBoardDiscovery.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/util/Errors.h"
#include "support/TempDir.h"

using namespace streetgan;
namespace fs = std::filesystem;

namespace {

/// An event file (its content does not matter to discovery) modified at `mtime`.
void eventFile(const fs::path& folder, int64_t mtime, const std::string& name = "events.out.tfevents.1700000000.box.1.0") {
    fs::create_directories(folder);
    const fs::path f = folder / name;
    std::ofstream(f) << "x";
    const timeval times[2] = {{static_cast<time_t>(mtime), 0}, {static_cast<time_t>(mtime), 0}};
    ASSERT_EQ(::utimes(f.c_str(), times), 0);
}

/// Counts the folders listed (each is one SFTP round trip on a host).
class CountingFiles : public LocalEventFiles {
public:
    std::vector<Entry> list(const std::string& folder) override {
        ++lists;
        return LocalEventFiles::list(folder);
    }
    int lists = 0;
};

std::vector<std::string> paths(const TensorBoardDiscovery::Result& r) {
    std::vector<std::string> out;
    for (const auto& f : r.folders) out.push_back(f.path);
    return out;
}

}  // namespace

TEST(TensorBoardDiscovery, FindsTheUsualPlacesAndNamesRunsAsTensorBoardUsersKnowThem) {
    test::TempDir tmp;
    const std::string home = tmp.path().string();
    eventFile(tmp.path() / "runs/dcgan-msls/events", 1000);  // the reference's layout
    eventFile(tmp.path() / "runs/wgan/events", 3000);
    eventFile(tmp.path() / "lightning_logs/version_0", 2000);
    eventFile(tmp.path() / "lightning_logs/version_1", 2500);
    eventFile(tmp.path() / "projects/exp/logs/seed1", 1500);  // 4 below home: past the default depth
    LocalEventFiles files;
    const auto r = TensorBoardDiscovery::find(files, home);
    ASSERT_EQ(r.folders.size(), 2u) << ::testing::PrintToString(paths(r));
    EXPECT_EQ(r.folders[0].path, home + "/runs");  // newest first
    EXPECT_EQ(r.folders[0].runs, (std::vector<std::string>{"dcgan-msls", "wgan"}));
    EXPECT_EQ(r.folders[0].newest, 3000);
    EXPECT_EQ(r.folders[1].path, home + "/lightning_logs");
    EXPECT_EQ(r.folders[1].runs, (std::vector<std::string>{"version_0", "version_1"}));
    EXPECT_FALSE(r.cut);

    // Deeper home search finds the project's logs folder, watched as TensorBoard users point at it.
    TensorBoardDiscovery::Limits deeper;
    deeper.homeDepth = 4;
    const auto d = TensorBoardDiscovery::find(files, home, deeper);
    ASSERT_EQ(d.folders.size(), 3u) << ::testing::PrintToString(paths(d));
    EXPECT_EQ(d.folders[2].path, home + "/projects/exp/logs");
    EXPECT_EQ(d.folders[2].runs, std::vector<std::string>{"seed1"});
}

TEST(TensorBoardDiscovery, RunsOutsideTheUsualPlacesAreWatchedFromTheFolderHoldingThem) {
    EXPECT_EQ(TensorBoardDiscovery::watchFolderOf(""), "");
    EXPECT_EQ(TensorBoardDiscovery::watchFolderOf("dcgan/events"), "");  // ~/dcgan/events: run dcgan, under home
    EXPECT_EQ(TensorBoardDiscovery::watchFolderOf("work/gan/runs/a/events"), "work/gan/runs");
    EXPECT_EQ(TensorBoardDiscovery::watchFolderOf("work/exp/logs/seed1"), "work/exp/logs");
    EXPECT_EQ(TensorBoardDiscovery::watchFolderOf("runs/a/b/c"), "runs");
    EXPECT_EQ(TensorBoardDiscovery::watchFolderOf("logs"), "logs");  // event files right in ~/logs
    // Deeper than a listing of the usual place reaches (RunStatus::kTensorBoardDepth): its parent.
    EXPECT_EQ(TensorBoardDiscovery::watchFolderOf("runs/a/b/c/d/e"), "runs/a/b/c/d");
}

TEST(TensorBoardDiscovery, SkipsHiddenFoldersOurRunsAndPythonEnvironments) {
    test::TempDir tmp;
    const std::string home = tmp.path().string();
    eventFile(tmp.path() / ".cache/tb/run", 100);
    eventFile(tmp.path() / "venv/lib/python3.11/site-packages/tensorboard/testdata", 100);
    std::ofstream(tmp.path() / "venv/pyvenv.cfg") << "home = /usr/bin\n";
    eventFile(tmp.path() / "miniconda3/envs/torch/pkgs/x", 100);
    fs::create_directories(tmp.path() / "miniconda3/envs/torch/conda-meta");
    eventFile(tmp.path() / "streetgan-runs/mine/tb", 100);
    std::ofstream(tmp.path() / "streetgan-runs/mine/run.json") << "{}";
    eventFile(tmp.path() / "node_modules/pkg/fixtures", 100);
    LocalEventFiles files;
    TensorBoardDiscovery::Limits deep;
    deep.homeDepth = 8;
    const auto r = TensorBoardDiscovery::find(files, home, deep);
    EXPECT_TRUE(r.folders.empty()) << ::testing::PrintToString(paths(r));
    // The home folder itself must be readable: a one-line error, not an empty answer.
    EXPECT_THROW(TensorBoardDiscovery::find(files, home + "/no-such-folder"), IoError);
}

TEST(TensorBoardDiscovery, TheBudgetBoundsTheFoldersListedAndTheUsualPlacesGoFirst) {
    test::TempDir tmp;
    const std::string home = tmp.path().string();
    for (int i = 0; i < 60; ++i) fs::create_directories(tmp.path() / ("aaa-data/shard" + std::to_string(i)));  // listed first by name
    eventFile(tmp.path() / "runs/late/events", 500);
    CountingFiles files;
    TensorBoardDiscovery::Limits small;
    small.maxFolders = 10;
    const auto r = TensorBoardDiscovery::find(files, home, small);
    EXPECT_EQ(files.lists, 10);
    EXPECT_EQ(r.listed, 10);
    EXPECT_TRUE(r.cut);
    ASSERT_EQ(r.folders.size(), 1u);  // ~/runs was searched before the 60 data shards
    EXPECT_EQ(r.folders[0].path, home + "/runs");
    EXPECT_EQ(r.folders[0].runs, std::vector<std::string>{"late"});
}
