// RunRecordReader and RunRecordCache on run folders written by hand: every setting and outcome
// of a run of ours (run.json, the whole events.jsonl, energy over a resume, the best checkpoint's
// scalars), bad run.json variants and torn lines kept as problems without losing the row, and the
// incremental re-read (only new bytes; a replaced file read afresh). RunRecord's JSON both ways.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/follow/RunRecord.h"
#include "base/follow/RunRecordCache.h"
#include "base/follow/RunRecordReader.h"
#include "base/follow/RunStatus.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

void write(const std::string& file, const std::string& text) { std::ofstream(file, std::ios::binary | std::ios::trunc) << text; }
void append(const std::string& file, const std::string& text) { std::ofstream(file, std::ios::binary | std::ios::app) << text; }

std::string metrics(int step, double lossD, double lossG) {
    return nlohmann::json({{"kind", "metrics"},
                           {"t", 1000 + step},
                           {"step", step},
                           {"epoch", 0},
                           {"loss_d", lossD},
                           {"loss_g", lossG},
                           {"img_per_s", 100.0 + step},
                           {"total_steps", 40}})
               .dump() +
           "\n";
}

std::string runJson(const nlohmann::json& config) {
    return nlohmann::json({{"config", config},
                           {"host", "gpu-box"},
                           {"start_time", 990.5},
                           {"device", "cuda:0"},
                           {"world_size", 2},
                           {"data_source", "synthetic"},
                           {"version", "0.1.0"},
                           {"total_steps", 40},
                           {"steps_per_epoch", 100}})
        .dump(2);
}

// A run of ours: two sessions (a resume from step 20 logs 30 again), metrics, quality figures,
// energy, a best event that arrives after a later metrics line.
std::string makeRun(const TempDir& root, const std::string& name) {
    const std::string dir = root / name;
    fs::create_directories(dir);
    write(dir + "/run.json", runJson({{"lr", 0.0002}, {"batch", 8}, {"betas", {0.5, 0.999}}, {"preset", "tiny-32"}, {"metrics", {"swd"}}}));
    std::string e = R"({"kind":"status","t":999,"state":"running","step":0,"total_steps":40})"
                    "\n";
    e += R"({"kind":"system","t":1001,"step":1,"energy_j":100.0})"
         "\n";
    e += metrics(10, 0.9, 1.1) + metrics(20, 0.5, 2.0) + metrics(30, 0.7, 1.5);
    e += R"({"kind":"metric","t":1031,"step":30,"swd":5.0,"fid":null})"
         "\n";
    e += R"({"kind":"system","t":1032,"step":30,"energy_j":200.0})"
         "\n";
    e += R"({"kind":"status","t":1033,"state":"stopped","step":30})"
         "\n";
    // resumed from the checkpoint of step 20: step 30 again, with other values
    e += R"({"kind":"status","t":1100,"state":"running","step":20,"total_steps":40})"
         "\n";
    e += R"({"kind":"system","t":1101,"step":21,"energy_j":50.0})"
         "\n";
    e += metrics(30, 0.4, 1.9) + R"({"kind":"metric","t":1131,"step":30,"swd":3.0,"fid":null})"
                                 "\n";
    e += metrics(40, 0.3, 2.5);  // logged before the best event of step 30 arrives
    e += R"({"kind":"best","t":1141,"step":30,"epoch":0,"path":"checkpoints/best.pt","source":"checkpoints/checkpoint_0_step30.pt","metric":"swd","value":3.0})"
         "\n";
    e += R"({"kind":"status","t":1150,"state":"finished","step":40})"
         "\n";
    write(dir + "/events.jsonl", e);
    return dir;
}

void expectSame(const std::vector<RunRecord>& a, const std::vector<RunRecord>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].toJson(), b[i].toJson()) << a[i].info.name;
}

bool hasProblem(const RunRecord& r, const std::string& text) {
    for (const auto& p : r.problems)
        if (p.find(text) != std::string::npos) return true;
    return false;
}

std::string problemsOf(const RunRecord& r) { return nlohmann::json(r.problems).dump(); }

}  // namespace

TEST(RunRecordReader, FoldsSettingsCostAndEveryScalarOfOurRun) {
    TempDir root;
    const std::string dir = makeRun(root, "a");
    const RunRecord r = RunRecordReader::read(dir);
    EXPECT_EQ(r.kind, "ours");
    EXPECT_EQ(r.info.state, "finished");
    EXPECT_EQ(r.info.step, 40);
    EXPECT_TRUE(r.problems.empty()) << problemsOf(r);
    // settings: config as written, top-level facts under their keys, host and start time apart
    EXPECT_EQ(r.settings.at("lr"), 0.0002);
    EXPECT_EQ(r.settings.at("batch"), 8);
    EXPECT_EQ(r.settings.at("betas"), nlohmann::json({0.5, 0.999}));
    EXPECT_EQ(r.settings.at("device"), "cuda:0");
    EXPECT_EQ(r.settings.at("world_size"), 2);
    EXPECT_EQ(r.settings.at("data_source"), "synthetic");
    EXPECT_EQ(r.settings.at("steps_per_epoch"), 100);
    EXPECT_FALSE(r.settings.contains("host"));
    EXPECT_EQ(r.host, "gpu-box");
    EXPECT_DOUBLE_EQ(r.startTime, 990.5);
    // cost: step x batch x world size; first to last event; energy of both sessions
    EXPECT_EQ(r.images, 40 * 8 * 2);
    EXPECT_DOUBLE_EQ(r.wallSeconds, 1150 - 999);
    EXPECT_DOUBLE_EQ(r.energyKwh, (200.0 + 50.0) / 3.6e6);
    EXPECT_DOUBLE_EQ(r.imagesPerSecond, (110 + 120 + 130 + 130 + 140) / 5.0);
    // every value of the whole file: min, max, last and their steps
    const ScalarStats& d = r.scalars.at("loss_d");
    EXPECT_EQ(d.count, 5);
    EXPECT_DOUBLE_EQ(d.min, 0.3);
    EXPECT_EQ(d.minStep, 40);
    EXPECT_DOUBLE_EQ(d.max, 0.9);
    EXPECT_EQ(d.maxStep, 10);
    EXPECT_DOUBLE_EQ(d.last, 0.3);
    const ScalarStats& swd = r.scalars.at("swd");
    EXPECT_EQ(swd.count, 2);
    EXPECT_DOUBLE_EQ(swd.min, 3.0);
    EXPECT_EQ(r.scalars.count("fid"), 0u);  // null: not counted
    EXPECT_EQ(r.scalars.count("d_x"), 0u);  // never logged
    // the best checkpoint, its scalars as last logged at or before step 30 (the resumed session's)
    EXPECT_EQ(r.best.checkpoint, "checkpoints/best.pt");
    EXPECT_EQ(r.best.source, "checkpoints/checkpoint_0_step30.pt");
    EXPECT_EQ(r.best.metric, "swd");
    EXPECT_DOUBLE_EQ(r.best.value, 3.0);
    EXPECT_EQ(r.best.step, 30);
    EXPECT_DOUBLE_EQ(r.best.scalars.at("loss_d"), 0.4);
    EXPECT_DOUBLE_EQ(r.best.scalars.at("loss_g"), 1.9);
    EXPECT_DOUBLE_EQ(r.best.scalars.at("swd"), 3.0);
}

TEST(RunRecordReader, ListsTheRunsRunStatusListsWithTheirNames) {
    TempDir root;
    makeRun(root, "b");
    makeRun(root, "a");
    fs::create_directories(root / "not-a-run");
    const auto records = RunRecordReader::list(root.path().string());
    const auto infos = RunStatus::list(root.path().string());
    ASSERT_EQ(records.size(), infos.size());
    for (size_t i = 0; i < records.size(); ++i) EXPECT_EQ(records[i].info.toJson(), infos[i].toJson());
    EXPECT_EQ(records[0].info.name, "a");
}

TEST(RunRecordReader, BadRunJsonKeepsTheRowWithAProblemLine) {
    TempDir root;
    struct Case {
        const char* name;
        std::string runJson;  // "" : no run.json
        std::string problem;
    };
    const std::vector<Case> cases = {
        {"missing", "", "run.json: missing"},
        {"malformed", R"({"config":{"lr":0.1)", "run.json: not valid JSON"},
        {"array", "[1,2]", "run.json: a JSON array, not an object"},
        {"batch-text", R"({"config":{"batch":"eight","lr":0.1}})", R"(run.json: 'batch' is "eight", not a number)"},
        {"betas-short", R"({"config":{"betas":[0.5]}})", "run.json: 'betas' is [0.5], not a pair of numbers"},
        {"config-text", R"({"config":"lr=0.1"})", R"(run.json: 'config' is "lr=0.1", not an object)"},
        {"host-number", R"({"host":7,"config":{}})", "run.json: 'host' is 7, not a string"},
        {"world-text", R"({"world_size":"two","config":{}})", R"(run.json: 'world_size' is "two", not a whole number)"},
        {"unknown-key", R"({"colour":"blue","config":{}})", "run.json: unknown key 'colour' (kept as a setting)"},
    };
    for (const auto& c : cases) {
        const std::string dir = root / c.name;
        fs::create_directories(dir);
        if (!c.runJson.empty()) write(dir + "/run.json", c.runJson);
        write(dir + "/events.jsonl", metrics(10, 0.5, 1.5));
    }
    const auto records = RunRecordReader::list(root.path().string());
    ASSERT_EQ(records.size(), cases.size());  // no row dropped
    for (const auto& c : cases) {
        const auto it = std::find_if(records.begin(), records.end(), [&](const RunRecord& r) { return r.info.name == c.name; });
        ASSERT_NE(it, records.end()) << c.name;
        EXPECT_TRUE(hasProblem(*it, c.problem)) << c.name << ": " << problemsOf(*it);
        EXPECT_EQ(it->scalars.at("loss_d").count, 1) << c.name;  // the events are read all the same
    }
    const auto batchText = std::find_if(records.begin(), records.end(), [](const RunRecord& r) { return r.info.name == "batch-text"; });
    EXPECT_EQ(batchText->settings.at("batch"), "eight");  // kept as written
    EXPECT_EQ(batchText->images, 0);                      // unknown, not made up
    const auto unknown = std::find_if(records.begin(), records.end(), [](const RunRecord& r) { return r.info.name == "unknown-key"; });
    EXPECT_EQ(unknown->settings.at("colour"), "blue");
}

TEST(RunRecordReader, SkipsAndCountsTornLinesAndWaitsForALineBeingWritten) {
    TempDir root;
    const std::string dir = root / "torn";
    fs::create_directories(dir);
    write(dir + "/events.jsonl", metrics(10, 0.5, 1.5) +
                                     R"({"kind":"metrics","step":15,"loss_d":0.)"
                                     "\n" +
                                     metrics(20, 0.4, 1.4) + R"({"kind":"metrics","t":1030,"step":30,)");
    RunRecordCache cache;
    auto r = cache.list(root.path().string()).at(0);
    EXPECT_EQ(r.scalars.at("loss_d").count, 2);
    EXPECT_TRUE(hasProblem(r, "events.jsonl: 1 torn or unreadable line skipped")) << problemsOf(r);
    // the line being written is complete now: read, not counted as torn
    append(dir + "/events.jsonl", R"("loss_d":0.3,"loss_g":1.3})"
                                  "\n");
    r = cache.list(root.path().string()).at(0);
    EXPECT_EQ(r.scalars.at("loss_d").count, 3);
    EXPECT_DOUBLE_EQ(r.scalars.at("loss_d").last, 0.3);
    EXPECT_TRUE(hasProblem(r, "events.jsonl: 1 torn or unreadable line skipped")) << problemsOf(r);
}

TEST(RunRecordCache, RereadsOnlyNewBytesAndAgreesWithAFreshRead) {
    TempDir root;
    const std::string a = makeRun(root, "a");
    makeRun(root, "b");
    RunRecordCache cache;
    expectSame(cache.list(root.path().string()), RunRecordReader::list(root.path().string()));
    EXPECT_EQ(cache.lastBytesRead(), 2 * fs::file_size(a + "/events.jsonl"));

    cache.list(root.path().string());
    EXPECT_EQ(cache.lastBytesRead(), 0u);

    const std::string more = metrics(50, 0.1, 3.0);
    append(a + "/events.jsonl", more);
    auto records = cache.list(root.path().string());
    EXPECT_EQ(cache.lastBytesRead(), more.size());
    expectSame(records, RunRecordReader::list(root.path().string()));
    EXPECT_DOUBLE_EQ(records[0].scalars.at("loss_d").min, 0.1);

    // run.json changed (set-lr writes it): the new setting, no event bytes read again
    write(a + "/run.json", runJson({{"lr", 0.0001}, {"batch", 8}}));
    records = cache.list(root.path().string());
    EXPECT_EQ(records[0].settings.at("lr"), 0.0001);
    EXPECT_EQ(cache.lastBytesRead(), 0u);

    // replaced by a shorter file (another inode): read afresh
    const std::string replaced = metrics(5, 2.0, 2.0);
    write(a + "/events.new", replaced);
    fs::rename(a + "/events.new", a + "/events.jsonl");
    records = cache.list(root.path().string());
    EXPECT_EQ(cache.lastBytesRead(), replaced.size());
    expectSame(records, RunRecordReader::list(root.path().string()));
    EXPECT_EQ(records[0].scalars.at("loss_d").count, 1);
    EXPECT_TRUE(records[0].best.checkpoint.empty());

    // a run removed is forgotten
    fs::remove_all(root / "b");
    EXPECT_EQ(cache.list(root.path().string()).size(), 1u);
}

TEST(RunRecord, JsonRoundTripsAndNaNIsNull) {
    TempDir root;
    const RunRecord r = RunRecordReader::read(makeRun(root, "a"));
    const nlohmann::json j = r.toJson();
    EXPECT_TRUE(j.at("energy_kwh").is_number());
    const RunRecord back = RunRecord::fromJson(nlohmann::json::parse(j.dump()));
    EXPECT_TRUE(back.problems.empty()) << problemsOf(back);
    EXPECT_EQ(back.toJson(), j);

    RunRecord none;
    none.scalars["x"].add(std::nan(""), 3);  // not counted
    const nlohmann::json n = none.toJson();
    EXPECT_TRUE(n.at("img_per_s").is_null());
    EXPECT_TRUE(n.at("scalars").at("x").at("min").is_null());
    EXPECT_EQ(n.at("scalars").at("x").at("count"), 0);
    EXPECT_EQ(RunRecord::fromJson(n).toJson(), n);
}

TEST(RunRecord, FromJsonKeepsDefaultsForMissingOrIllTypedMembers) {
    nlohmann::json j = RunRecord().toJson();
    j["images"] = "many";
    j["host"] = 3;
    j.erase("kind");
    j["scalars"] = {{"loss_d", {{"last", "low"}, {"min", 0.1}}}};
    j["best"]["step"] = 1.5;
    const RunRecord r = RunRecord::fromJson(j);
    EXPECT_EQ(r.images, 0);
    EXPECT_EQ(r.host, "");
    EXPECT_DOUBLE_EQ(r.scalars.at("loss_d").min, 0.1);
    EXPECT_TRUE(std::isnan(r.scalars.at("loss_d").last));
    const std::string all = problemsOf(r);
    EXPECT_NE(all.find(R"(record: 'images' is \"many\", not a whole number)"), std::string::npos) << all;
    EXPECT_NE(all.find("record: 'host' is 3, not a string"), std::string::npos) << all;
    EXPECT_NE(all.find("record: 'kind' is missing"), std::string::npos) << all;
    EXPECT_NE(all.find(R"(record: scalar 'loss_d': 'last' is \"low\", not a number)"), std::string::npos) << all;
    EXPECT_NE(all.find("record: best: 'step' is 1.5, not a whole number"), std::string::npos) << all;
    EXPECT_EQ(RunRecord::fromJson(nlohmann::json::array()).problems.size(), 1u);
}

TEST(RunRecordCache, HandsOutWhatItReadSoFarInBatches) {
    TempDir root;
    for (const char* name : {"a", "b", "c"}) makeRun(root, name);
    RunRecordCache cache;
    std::vector<std::string> batched;
    int batches = 0;
    const auto records = cache.list(
        root.path().string(),
        [&](const std::vector<RunRecord>& batch) {
            ++batches;
            for (const RunRecord& r : batch) batched.push_back(r.info.name);
        },
        std::chrono::milliseconds(0));  // due at once: a batch before each run after the first
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(batches, 2);
    EXPECT_EQ(batched, (std::vector<std::string>{"a", "b"}));  // in order, each once; c comes with the whole listing
    // a listing faster than the interval hands out nothing
    batches = 0;
    cache.list(
        root.path().string(), [&](const std::vector<RunRecord>&) { ++batches; }, std::chrono::hours(1));
    EXPECT_EQ(batches, 0);
}
