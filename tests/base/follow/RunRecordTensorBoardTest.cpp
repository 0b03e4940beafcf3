// RunRecordReader on TensorBoard runs with hparams, as PyTorch's SummaryWriter.add_hparams and
// TensorBoard's own hparams API write them (tests/python/make_tensorboard_hparams.py): settings
// from the session start's hparams, scalar statistics of the tags, add_hparams' time.time()
// sub-folder folded into its parent run (also when the parent holds no event file of its own),
// hparams of other types kept as text with a problem line. Checked against the script's
// expected.json.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/follow/RunRecordCache.h"
#include "base/follow/RunRecordReader.h"
#include "base/follow/RunStatus.h"
#include "base/follow/TensorBoardDiscovery.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "support/TempDir.h"

using namespace streetgan;
namespace fs = std::filesystem;

namespace {

const std::string kRuns = STREETGAN_TEST_TB_HPARAMS;

nlohmann::json expected() {
    std::ifstream in(kRuns + "/expected.json");
    return nlohmann::json::parse(in);
}

// A numeric hparam reads back as a double (google.protobuf.Value has one number type).
bool sameSetting(const nlohmann::json& a, const nlohmann::json& b) {
    if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
    return a == b;
}

}  // namespace

TEST(RunRecordTensorBoard, HParamsSubFoldersAreFoldedIntoTheirParentRun) {
    LocalEventFiles files;
    const auto found = TensorBoardRun::find(files, kRuns, RunStatus::kTensorBoardDepth);
    const std::vector<std::string> want = {"pytorch/hparams-only", "pytorch/sweep-a", "pytorch/sweep-b", "tbapi/trial-1", "tbapi/trial-2"};
    EXPECT_EQ(found, want);
    EXPECT_TRUE(TensorBoardRun::isRun(kRuns + "/pytorch/hparams-only"));  // only its sub-folder holds events
    EXPECT_TRUE(TensorBoardRun::isHParamsFolderName("1795995218.1613114"));
    EXPECT_FALSE(TensorBoardRun::isHParamsFolderName("run-1.5"));
    EXPECT_FALSE(TensorBoardRun::isHParamsFolderName("17959952181613114"));
    EXPECT_FALSE(TensorBoardRun::isHParamsFolderName("1795995218."));
    // The app's discovery of TensorBoard folders names the same runs.
    std::vector<std::string> discovered;
    for (const auto& folder : TensorBoardDiscovery::find(files, kRuns).folders)
        for (const auto& run : folder.runs) discovered.push_back(folder.path.substr(kRuns.size()) + "/" + run);
    std::sort(discovered.begin(), discovered.end());
    EXPECT_EQ(discovered, (std::vector<std::string>{"/pytorch/hparams-only", "/pytorch/sweep-a", "/pytorch/sweep-b", "/tbapi/trial-1", "/tbapi/trial-2"}));
}

TEST(RunRecordTensorBoard, SettingsAndScalarsAreWhatTheWritersWrote) {
    const nlohmann::json want = expected();
    const auto records = RunRecordReader::list(kRuns);
    ASSERT_EQ(records.size(), want.size());
    for (const RunRecord& r : records) {
        SCOPED_TRACE(r.info.name);
        ASSERT_TRUE(want.contains(r.info.name));
        const nlohmann::json& w = want.at(r.info.name);
        EXPECT_EQ(r.kind, "tensorboard");
        EXPECT_EQ(r.info.state, "tensorboard");
        EXPECT_EQ(r.settings.size(), w.at("settings").size()) << r.settings.dump();
        for (auto it = w.at("settings").begin(); it != w.at("settings").end(); ++it) {
            ASSERT_TRUE(r.settings.contains(it.key())) << it.key();
            EXPECT_TRUE(sameSetting(r.settings.at(it.key()), *it)) << it.key() << ": " << r.settings.at(it.key()) << " vs " << *it;
        }
        EXPECT_EQ(r.problems.size(), w.at("problems").get<size_t>()) << nlohmann::json(r.problems).dump();
        EXPECT_EQ(r.scalars.size(), w.at("scalars").size());
        for (auto it = w.at("scalars").begin(); it != w.at("scalars").end(); ++it) {
            ASSERT_EQ(r.scalars.count(it.key()), 1u) << it.key();
            const ScalarStats& s = r.scalars.at(it.key());
            EXPECT_EQ(s.count, it->at("count").get<int64_t>()) << it.key();
            EXPECT_DOUBLE_EQ(s.last, it->at("last").get<double>()) << it.key();
            EXPECT_DOUBLE_EQ(s.min, it->at("min").get<double>()) << it.key();
            EXPECT_DOUBLE_EQ(s.max, it->at("max").get<double>()) << it.key();
        }
    }
    const auto trial2 = std::find_if(records.begin(), records.end(), [](const RunRecord& r) { return r.info.name == "tbapi/trial-2"; });
    ASSERT_NE(trial2, records.end());
    EXPECT_NE(nlohmann::json(trial2->problems).dump().find("hparam 'sizes' is a list, kept as its JSON text"), std::string::npos);
    const auto trial1 = std::find_if(records.begin(), records.end(), [](const RunRecord& r) { return r.info.name == "tbapi/trial-1"; });
    EXPECT_DOUBLE_EQ(trial1->startTime, 1700000000.0);  // the session's start time
}

TEST(RunRecordTensorBoard, ACopyReadAgainFoldsOnlyWhatItGained) {
    streetgan::test::TempDir root;
    fs::copy(kRuns + "/pytorch", root / "pytorch", fs::copy_options::recursive);
    RunRecordCache cache;
    const auto first = cache.list(root.path().string());
    EXPECT_GT(cache.lastBytesRead(), 0u);
    const auto again = cache.list(root.path().string());
    EXPECT_EQ(cache.lastBytesRead(), 0u);
    ASSERT_EQ(first.size(), again.size());
    for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i].toJson(), again[i].toJson());
    const auto fresh = RunRecordReader::list(root.path().string());
    for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(fresh[i].toJson(), again[i].toJson());
}

// A host without our trainer (its files read over SFTP, through an EventFileSource): the same
// runs, names and records as the local listing, and a second listing reads only what they gained.
TEST(RunRecordTensorBoard, ListedThroughAnEventSourceAsListedHere) {
    streetgan::test::TempDir root;
    fs::copy(kRuns + "/pytorch", root / "pytorch", fs::copy_options::recursive);
    fs::copy(kRuns + "/tbapi", root / "tbapi", fs::copy_options::recursive);
    LocalEventFiles files;
    RunRecordCache cache;
    const auto first = cache.listTensorBoard(files, root.path().string());
    EXPECT_GT(cache.lastBytesRead(), 0u);
    const auto here = RunRecordReader::list(root.path().string());
    ASSERT_EQ(first.size(), here.size());
    for (size_t i = 0; i < here.size(); ++i) {
        SCOPED_TRACE(here[i].info.name);
        EXPECT_EQ(first[i].info.name, here[i].info.name);
        EXPECT_EQ(first[i].info.path, here[i].info.path);
        EXPECT_EQ(first[i].toJson(), here[i].toJson());
    }
    const auto again = cache.listTensorBoard(files, root.path().string());
    EXPECT_EQ(cache.lastBytesRead(), 0u);
    ASSERT_EQ(again.size(), first.size());
    for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(again[i].toJson(), first[i].toJson());
    // A run removed there is gone from the next listing (and from the cache).
    fs::remove_all(root / "tbapi/trial-2");
    EXPECT_EQ(cache.listTensorBoard(files, root.path().string()).size(), first.size() - 1);
}
