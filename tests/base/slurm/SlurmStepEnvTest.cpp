// SlurmStepEnv from environments as srun gives its tasks (the variables and values are those of a
// real step of the test cluster, `srun -n 3 env`, and of multi-node steps as Slurm writes them).
#include <gtest/gtest.h>

#include <map>

#include "base/slurm/SlurmStepEnv.h"
#include "base/util/Errors.h"

using streetgan::ConfigError;
using streetgan::SlurmStepEnv;
using Vars = std::map<std::string, std::string>;

namespace {

std::optional<SlurmStepEnv> read(const Vars& vars) {
    return SlurmStepEnv::from([&](const char* name) -> const char* {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    });
}

// Rank 1 of `srun -n 3` in job 1 on one node, as the test cluster sets it.
Vars oneNodeTask() {
    return {{"SLURM_JOB_ID", "1"},         {"SLURM_JOBID", "1"},          {"SLURM_STEP_ID", "0"},
            {"SLURM_STEPID", "0"},         {"SLURM_PROCID", "1"},         {"SLURM_LOCALID", "1"},
            {"SLURM_NODEID", "0"},         {"SLURM_NTASKS", "3"},         {"SLURM_NPROCS", "3"},
            {"SLURM_STEP_NUM_TASKS", "3"}, {"SLURM_STEP_NUM_NODES", "1"}, {"SLURM_STEP_NODELIST", "vm"},
            {"SLURM_JOB_NODELIST", "vm"},  {"SLURM_NODELIST", "vm"},      {"SLURM_STEP_TASKS_PER_NODE", "3"},
            {"SLURM_TASKS_PER_NODE", "3"}, {"SLURM_GTIDS", "0,1,2"}};
}

std::string errorOf(const Vars& vars) {
    try {
        read(vars);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(SlurmStepEnv, ATaskOfAOneNodeStep) {
    const auto e = read(oneNodeTask());
    ASSERT_TRUE(e);
    EXPECT_EQ(e->rank, 1);
    EXPECT_EQ(e->worldSize, 3);
    EXPECT_EQ(e->localRank, 1);
    EXPECT_EQ(e->localWorldSize, 3);
    EXPECT_EQ(e->masterAddr, "vm");
    EXPECT_EQ(e->masterPort, 20001);  // 20000 + job id % 20000
    EXPECT_EQ(e->jobId, "1");
    EXPECT_EQ(e->stepId, "0");
}

TEST(SlurmStepEnv, ATaskOfAMultiNodeStep) {
    // rank 5 of 7 on the third node of gpu[01-03],login: 2 tasks on each of the first three
    Vars v = {{"SLURM_JOB_ID", "123456"},
              {"SLURM_STEP_ID", "2"},
              {"SLURM_PROCID", "5"},
              {"SLURM_LOCALID", "1"},
              {"SLURM_NODEID", "2"},
              {"SLURM_NTASKS", "7"},
              {"SLURM_STEP_NUM_TASKS", "7"},
              {"SLURM_STEP_NODELIST", "gpu[01-03],login"},
              {"SLURM_JOB_NODELIST", "gpu[01-03],login,spare"},
              {"SLURM_STEP_TASKS_PER_NODE", "2(x3),1"}};
    auto e = read(v);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->rank, 5);
    EXPECT_EQ(e->worldSize, 7);
    EXPECT_EQ(e->localRank, 1);
    EXPECT_EQ(e->localWorldSize, 2);
    EXPECT_EQ(e->masterAddr, "gpu01");
    EXPECT_EQ(e->masterPort, 20000 + 123456 % 20000);
    // the last node has one task
    v["SLURM_NODEID"] = "3";
    v["SLURM_PROCID"] = "6";
    v["SLURM_LOCALID"] = "0";
    EXPECT_EQ(read(v)->localWorldSize, 1);
    // --ntasks-per-node, when given, says it directly
    v["SLURM_NTASKS_PER_NODE"] = "2";
    EXPECT_EQ(read(v)->localWorldSize, 2);
}

TEST(SlurmStepEnv, ReservedPortsAndFallbacks) {
    Vars v = oneNodeTask();
    v["SLURM_STEP_RESV_PORTS"] = "12000-12003";
    EXPECT_EQ(read(v)->masterPort, 12000);
    v["SLURM_STEP_RESV_PORTS"] = "12005,12007";
    EXPECT_EQ(read(v)->masterPort, 12005);
    // without the step's own variables: the job's
    v = oneNodeTask();
    v.erase("SLURM_STEP_NODELIST");
    v.erase("SLURM_STEP_NUM_TASKS");
    v.erase("SLURM_STEP_TASKS_PER_NODE");
    v["SLURM_JOB_NODELIST"] = "n[7-8]";
    const auto e = read(v);
    EXPECT_EQ(e->masterAddr, "n7");
    EXPECT_EQ(e->worldSize, 3);
    EXPECT_EQ(e->localWorldSize, 3);
    EXPECT_EQ(SlurmStepEnv::derivedPort(20000), 20000);
    EXPECT_EQ(SlurmStepEnv::derivedPort(39999), 39999);
    EXPECT_EQ(SlurmStepEnv::derivedPort(40001), 20001);
}

TEST(SlurmStepEnv, NotAStepTask) {
    EXPECT_FALSE(read({}));
    // a batch script's shell: the job's variables, no step id
    Vars v = oneNodeTask();
    v.erase("SLURM_STEP_ID");
    EXPECT_FALSE(read(v));
    v["SLURM_STEP_ID"] = "batch";
    EXPECT_FALSE(read(v));
}

TEST(SlurmStepEnv, MalformedValuesAreOneLineErrorsNamingTheVariable) {
    const std::pair<std::string, std::string> cases[] = {{"SLURM_PROCID", "x"},
                                                         {"SLURM_PROCID", "3"},
                                                         {"SLURM_PROCID", "-1"},
                                                         {"SLURM_LOCALID", "1.5"},
                                                         {"SLURM_STEP_NUM_TASKS", "0"},
                                                         {"SLURM_STEP_NUM_TASKS", "99999999999999999999"},
                                                         {"SLURM_STEP_TASKS_PER_NODE", "3(x"},
                                                         {"SLURM_STEP_TASKS_PER_NODE", "two"},
                                                         {"SLURM_STEP_TASKS_PER_NODE", "3,"},
                                                         {"SLURM_STEP_NODELIST", "vm[1-"},
                                                         {"SLURM_STEP_RESV_PORTS", "none"},
                                                         {"SLURM_STEP_RESV_PORTS", "70000-70001"},
                                                         {"SLURM_JOB_ID", "12a"},
                                                         {"SLURM_NODEID", "1"}};
    for (const auto& [name, bad] : cases) {
        Vars v = oneNodeTask();
        v[name] = bad;
        const std::string e = errorOf(v);
        EXPECT_NE(e.find(name), std::string::npos) << name << "=" << bad << ": " << e;
        EXPECT_NE(e.find(bad), std::string::npos) << name << "=" << bad << ": " << e;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    }
    Vars v = oneNodeTask();
    v.erase("SLURM_PROCID");
    EXPECT_EQ(errorOf(v),
              "Slurm's SLURM_PROCID is not set although SLURM_STEP_ID is: start the trainer with srun inside the Slurm job (docs/distributed.md), or "
              "unset the stray SLURM_* variables");
    v = oneNodeTask();
    v["SLURM_PROCID"] = "x";
    EXPECT_EQ(errorOf(v).substr(0, 55), "Slurm's SLURM_PROCID='x' is not a whole number in 0..2:");
    // a local rank beyond the node's tasks
    v = oneNodeTask();
    v["SLURM_NTASKS_PER_NODE"] = "1";
    EXPECT_NE(errorOf(v).find("SLURM_LOCALID=1 is not below this node's 1 tasks"), std::string::npos) << errorOf(v);
}
