// RUN/slurm.json: written and read back, the tolerant reader (unknown members, numbers for ids,
// missing optional members) and its one-line refusals (malformed JSON, no or bad job id, wrong
// types, a newer version).
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "base/slurm/SlurmJobRecord.h"
#include "base/util/Errors.h"
#include "support/ErrorText.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::messageOf;

namespace {
void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
}  // namespace

TEST(SlurmJobRecordTest, WritesAndReadsBackEveryMember) {
    test::TempDir dir;
    SlurmJobRecord r;
    r.jobId = "12345";
    r.submitted = 1796000000;
    r.cluster = "hpc";
    r.nodes = 2;
    r.tasksPerNode = 4;
    r.gpusPerNode = 4;
    r.partition = "gpu";
    r.account = "proj";
    r.timeLimit = "04:00:00";
    r.write(dir.path().string());
    const auto back = SlurmJobRecord::read(dir.path().string());
    ASSERT_TRUE(back);
    EXPECT_EQ(back->toJson(), r.toJson());
    const auto file = nlohmann::json::parse(std::ifstream(SlurmJobRecord::pathIn(dir.path().string())));
    EXPECT_EQ(file["version"], 1);
    EXPECT_EQ(file["job_id"], "12345");
    EXPECT_EQ(file["script"], "job.sbatch");
    EXPECT_EQ(file["tasks_per_node"], 4);
    EXPECT_EQ(file["time_limit"], "04:00:00");
}

TEST(SlurmJobRecordTest, NoFileIsNoRecord) {
    test::TempDir dir;
    EXPECT_FALSE(SlurmJobRecord::read(dir.path().string()));
}

TEST(SlurmJobRecordTest, TheReaderIsTolerant) {
    const auto r = SlurmJobRecord::parse(R"({"job_id": 77, "nodes": 3, "colour": "blue", "partition": null})", "RUN/slurm.json");
    EXPECT_EQ(r.jobId, "77");
    EXPECT_EQ(r.nodes, 3);
    EXPECT_EQ(r.tasksPerNode, 1);
    EXPECT_EQ(r.partition, "");
    EXPECT_EQ(r.script, "job.sbatch");
}

TEST(SlurmJobRecordTest, RefusesWhatIsNoRecordInOneLineNamingTheFile) {
    const std::string where = "/runs/r/slurm.json";
    const auto refusal = [&](const std::string& text) { return messageOf<ConfigError>([&] { SlurmJobRecord::parse(text, where); }); };
    EXPECT_EQ(refusal(R"({"job_id": "12)"), where + " is not valid JSON (cut short or edited?): resubmit the run or restore the file");
    EXPECT_EQ(refusal("[1]"), where + " is not a JSON object: it is not a Slurm job record; resubmit the run or remove the file");
    EXPECT_EQ(refusal("{}"), where + " has no 'job_id': it does not say which Slurm job the run is; resubmit the run");
    EXPECT_EQ(refusal(R"({"job_id": "12a"})"), where + ": 'job_id' \"12a\" is not a Slurm job id (digits): fix it or resubmit the run");
    EXPECT_EQ(refusal(R"({"job_id": -3})"), where + ": 'job_id' -3 is not a Slurm job id (digits): fix it or resubmit the run");
    EXPECT_EQ(refusal(R"({"job_id": "1", "nodes": "two"})"), where + ": 'nodes' is not a whole number; fix or remove the member");
    EXPECT_EQ(refusal(R"({"job_id": "1", "partition": 5})"), where + ": 'partition' is not a string; fix or remove the member");
    EXPECT_EQ(refusal(R"({"version": 2, "job_id": "1"})"), where + " is version 2, newer than this streetgan-trainer reads (1): update streetgan-trainer");
    for (const std::string text : {"", "{\"job_id\": \"1\"", "{\"version\": \"1\", \"job_id\": \"1\"}"})
        EXPECT_EQ(refusal(text).find('\n'), std::string::npos) << refusal(text);
}

TEST(SlurmJobRecordTest, AFileOnDiskIsReadTheSameWay) {
    test::TempDir dir;
    put(SlurmJobRecord::pathIn(dir.path().string()), "{\"job_id\": \"9\"");
    const std::string message = messageOf<ConfigError>([&] { SlurmJobRecord::read(dir.path().string()); });
    EXPECT_EQ(message.rfind(SlurmJobRecord::pathIn(dir.path().string()) + " is not valid JSON", 0), 0u) << message;
}

TEST(SlurmJobRecordTest, JobIdsAreDigits) {
    EXPECT_TRUE(SlurmJobRecord::isJobId("1"));
    EXPECT_TRUE(SlurmJobRecord::isJobId("4294967294"));
    for (const char* bad : {"", "12_3", "12.batch", " 1", "1;rm", "1234567890123456789"}) EXPECT_FALSE(SlurmJobRecord::isJobId(bad)) << bad;
}
