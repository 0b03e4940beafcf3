// The checkpoint file names (base/run/CheckpointName.h): both forms parse and print back, other
// names (best.pt, a save's temporary file, overflowing numbers) are not checkpoints; the order is
// epoch, then step, an epoch's own file last among its epoch's, and RunDirectory lists and resumes
// by it. BestMetric: which way each figure is better, where a metric event holds it, and the
// setting's check naming what to pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "base/model/Presets.h"
#include "base/run/BestMetric.h"
#include "base/run/CheckpointName.h"
#include "base/run/Events.h"
#include "base/run/RunDirectory.h"
#include "base/run/TrainConfig.h"
#include "base/util/Errors.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;

namespace {

std::string validation(const TrainConfig& c) {
    try {
        c.validate();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

TrainConfig tiny() {
    TrainConfig c;
    c.model = Presets::get("tiny-32");
    c.steps = 10;
    return c;
}

}  // namespace

TEST(CheckpointName, BothFormsParseAndPrintBack) {
    const auto epoch = CheckpointName::parse("checkpoint_3.pt");
    ASSERT_TRUE(epoch);
    EXPECT_EQ(epoch->epoch, 3);
    EXPECT_FALSE(epoch->step);
    EXPECT_EQ(epoch->fileName(), "checkpoint_3.pt");
    const auto step = CheckpointName::parse("checkpoint_0_step12000.pt");
    ASSERT_TRUE(step);
    EXPECT_EQ(step->epoch, 0);
    EXPECT_EQ(step->step, 12000);
    EXPECT_EQ(step->fileName(), "checkpoint_0_step12000.pt");
    EXPECT_EQ(CheckpointName::ofStep(2, 7), "checkpoint_2_step7.pt");
    for (const char* other : {"best.pt", "checkpoint_.pt", "checkpoint_3.pt.tmp.123.0", "checkpoint_3_step.pt", "checkpoint_3_stepx.pt", "checkpoint_x.pt",
                              "checkpoint_3_step5_step6.pt", "checkpoint_-1.pt", "checkpoint_1234567890123456789.pt", "xcheckpoint_3.pt", "checkpoint_3.pth"})
        EXPECT_FALSE(CheckpointName::parse(other)) << other;
}

TEST(CheckpointName, OrderIsEpochThenStepWithTheEpochsOwnFileLast) {
    std::vector<std::string> names = {"checkpoint_1.pt",         "checkpoint_0_step900.pt", "checkpoint_1_step1000.pt", "checkpoint_0.pt",
                                      "checkpoint_0_step100.pt", "checkpoint_10_step5.pt",  "checkpoint_2.pt"};
    std::vector<CheckpointName> parsed;
    for (const auto& n : names) parsed.push_back(*CheckpointName::parse(n));
    std::sort(parsed.begin(), parsed.end());
    std::vector<std::string> sorted;
    for (const auto& p : parsed) sorted.push_back(p.fileName());
    EXPECT_EQ(sorted, (std::vector<std::string>{"checkpoint_0_step100.pt", "checkpoint_0_step900.pt", "checkpoint_0.pt", "checkpoint_1_step1000.pt",
                                                "checkpoint_1.pt", "checkpoint_2.pt", "checkpoint_10_step5.pt"}));
}

TEST(CheckpointName, RunDirectoryListsBothFormsInOrderAndResumesFromTheNewest) {
    TempDir t;
    RunDirectory d(t.file("run"), true);
    EXPECT_FALSE(d.latestCheckpoint());
    for (const char* n : {"checkpoint_0_step20.pt", "checkpoint_0_step3.pt", "best.pt", "checkpoint_0.pt.tmp.1.2", "notes.txt", "checkpoint_1_step70.pt"})
        std::ofstream(d.checkpointsDir() + "/" + std::string(n)) << n;
    EXPECT_EQ(d.checkpoints(), (std::vector<std::string>{d.stepCheckpointPath(0, 3), d.stepCheckpointPath(0, 20), d.stepCheckpointPath(1, 70)}));
    EXPECT_EQ(d.latestCheckpoint(), d.stepCheckpointPath(1, 70));
    std::ofstream(d.checkpointPath(1)) << "end of epoch 1";
    EXPECT_EQ(d.latestCheckpoint(), d.checkpointPath(1));
    EXPECT_EQ(d.bestCheckpointPath(), d.checkpointsDir() + "/best.pt");
    EXPECT_EQ(d.stepCheckpointPath(0, 3), d.checkpointsDir() + "/checkpoint_0_step3.pt");
}

TEST(BestMetric, EachFigureHasItsDirectionAndIsReadFromTheMetricEvent) {
    EXPECT_STREQ(BestMetric::choicesCsv(), "none,swd,fid,kid,precision,recall");
    EXPECT_EQ(BestMetric::find("none"), nullptr);
    EXPECT_EQ(BestMetric::find("is"), nullptr);
    const BestMetric::Spec& swd = *BestMetric::find("swd");
    const BestMetric::Spec& recall = *BestMetric::find("recall");
    EXPECT_TRUE(BestMetric::better(swd, 1.0, 2.0));
    EXPECT_FALSE(BestMetric::better(swd, 2.0, 2.0));  // a tie keeps the earlier checkpoint
    EXPECT_TRUE(BestMetric::better(recall, 0.6, 0.5));
    EXPECT_FALSE(BestMetric::better(recall, 0.4, 0.5));
    MetricEvent e;
    e.swd = 12.5;
    e.recall = 0.25;
    EXPECT_EQ(BestMetric::valueIn(swd, e), 12.5);
    EXPECT_EQ(BestMetric::valueIn(recall, e), 0.25);
    EXPECT_EQ(BestMetric::valueIn(*BestMetric::find("fid"), e), std::nullopt);  // not asked for
    e.prUnavailable = "pass --metric-features FILE";
    EXPECT_EQ(BestMetric::valueIn(recall, e), std::nullopt);
    e.swd = std::nan("");  // a skipped or cancelled evaluation's null
    EXPECT_EQ(BestMetric::valueIn(swd, e), std::nullopt);
}

TEST(BestMetric, TheSettingMustBeAFigureTheRunComputes) {
    TrainConfig c = tiny();
    EXPECT_EQ(c.bestMetric, "swd");
    EXPECT_EQ(validation(c), "");
    c.bestMetric = "fid";
    EXPECT_EQ(validation(c),
              "best_metric fid needs the feature model: pass --metric-features FILE (clean-fid's inception-2015-12-05.pt), or --best-metric swd or none");
    c.metricFeatures = "inception.pt";
    EXPECT_EQ(validation(c), "");
    c.metrics = {"swd", "pr"};
    EXPECT_EQ(validation(c),
              "best_metric fid is not computed by this run (its metrics: swd, pr): add fid to --metrics, or pass --best-metric swd, precision, "
              "recall or none");
    c.bestMetric = "recall";
    EXPECT_EQ(validation(c), "");
    c = tiny();
    c.metrics = {"fid"};
    c.metricFeatures = "inception.pt";
    EXPECT_EQ(validation(c), "");  // the default swd where the run has no SWD: no best, not a refusal
    c.bestMetric = "kid";
    EXPECT_EQ(validation(c), "best_metric kid is not computed by this run (its metrics: fid): add kid to --metrics, or pass --best-metric fid or none");
    c.bestMetric = "none";
    EXPECT_EQ(validation(c), "");
    c.bestMetric = "is";
    EXPECT_EQ(validation(c), "best_metric 'is' is unknown: use none, swd, fid, kid, precision or recall");
}
