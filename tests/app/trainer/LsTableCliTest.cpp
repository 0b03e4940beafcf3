// `ls ROOT --table [--json] [--columns]` over a sweep of three real tiny runs the test trains with
// the real trainer binary, differing in learning rate and seed: the records hold each run's
// settings and outcomes, the table shows the settings that differ (not the ones they share), and
// --columns chooses, naming a column no run has in one line.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "support/CliRunner.h"
#include "support/TempDir.h"

using streetgan::test::CliResult;
using streetgan::test::CliRunner;
using streetgan::test::TempDir;

namespace {

struct Sweep {
    TempDir tmp;
    std::string root;
    CliRunner cli{tmp.path().string()};
    Sweep() : root(tmp / "sweep") {
        const char* lrs[] = {"0.0002", "0.0001", "0.0004"};
        for (int i = 0; i < 3; ++i) {
            const CliResult r = cli.run({"train",
                                         "--preset",
                                         "tiny-32",
                                         "--steps",
                                         "10",
                                         "--batch",
                                         "8",
                                         "--log-every",
                                         "5",
                                         "--checkpoint-every",
                                         "10",
                                         "--sample-every",
                                         "10",
                                         "--metrics",
                                         "swd",
                                         "--metric-swd-samples",
                                         "64",
                                         "--lr",
                                         lrs[i],
                                         "--seed",
                                         std::to_string(i),
                                         "--run-dir",
                                         root + "/run-" + std::to_string(i)});
            EXPECT_EQ(r.code, 0) << r.err;
        }
    }
};

Sweep& sweep() {
    static Sweep s;  // trained once for the tests of this file (the slow part)
    return s;
}

}  // namespace

TEST(LsTable, JsonHoldsEveryRunsSettingsAndOutcomes) {
    Sweep& s = sweep();
    const CliResult r = s.cli.run({"ls", s.root, "--table", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const auto& runs = j.at("runs");
    ASSERT_EQ(runs.size(), 3u);
    const double lrs[] = {0.0002, 0.0001, 0.0004};
    for (int i = 0; i < 3; ++i) {
        const auto& run = runs.at(size_t(i));
        SCOPED_TRACE(run.dump());
        EXPECT_EQ(run.at("info").at("name"), "run-" + std::to_string(i));
        EXPECT_EQ(run.at("info").at("state"), "finished");
        EXPECT_EQ(run.at("kind"), "ours");
        EXPECT_DOUBLE_EQ(run.at("settings").at("lr").get<double>(), lrs[i]);
        EXPECT_EQ(run.at("settings").at("seed"), i);
        EXPECT_EQ(run.at("settings").at("batch"), 8);
        EXPECT_EQ(run.at("settings").at("preset"), "tiny-32");
        EXPECT_EQ(run.at("settings").at("world_size"), 1);
        EXPECT_FALSE(run.at("host").get<std::string>().empty());
        EXPECT_EQ(run.at("images"), 10 * 8);
        EXPECT_GT(run.at("wall_seconds").get<double>(), 0.0);
        EXPECT_GT(run.at("img_per_s").get<double>(), 0.0);
        EXPECT_EQ(run.at("scalars").at("loss_d").at("count"), 2);  // steps 5 and 10
        EXPECT_EQ(run.at("scalars").at("loss_d").at("last_step"), 10);
        EXPECT_EQ(run.at("scalars").at("swd").at("count"), 1);  // the checkpoint of step 10
        EXPECT_EQ(run.at("problems"), nlohmann::json::array());
    }
    // Plain ls --json is as it was: RunInfo's members, no record.
    const CliResult plain = s.cli.run({"ls", s.root, "--json"});
    ASSERT_EQ(plain.code, 0) << plain.err;
    EXPECT_FALSE(nlohmann::json::parse(plain.out).at("runs").at(0).contains("settings"));
}

TEST(LsTable, TableShowsTheSettingsThatDiffer) {
    Sweep& s = sweep();
    const CliResult r = s.cli.run({"ls", s.root, "--table"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string header = r.out.substr(0, r.out.find('\n'));
    for (const char* column : {"name", "state", "host", "step", "images", "wall", "img_per_s", "lr", "seed", "loss_d.last", "swd.min", "best"})
        EXPECT_NE(header.find(column), std::string::npos) << column << " in " << header;
    EXPECT_EQ(header.find("batch"), std::string::npos) << header;  // the same in every run
    EXPECT_EQ(header.find("preset"), std::string::npos) << header;
    EXPECT_NE(r.out.find("run-2"), std::string::npos);
    EXPECT_NE(r.out.find("0.0004"), std::string::npos);
}

TEST(LsTable, ColumnsChooseAndAnUnknownOneIsNamed) {
    Sweep& s = sweep();
    const CliResult r = s.cli.run({"ls", s.root, "--table", "--columns", "name,batch,loss_g.min,swd.best"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.substr(0, r.out.find('\n')).find("batch"), 5u + 2u);  // "name " padded to "run-0" + 2
    EXPECT_NE(r.out.find("8 "), std::string::npos);
    const CliResult bad = s.cli.run({"ls", s.root, "--table", "--columns", "name,colour"});
    EXPECT_NE(bad.code, 0);
    EXPECT_NE(bad.err.find("'colour' is no column, setting or scalar of these runs"), std::string::npos) << bad.err;
}
