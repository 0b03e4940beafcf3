// SlurmJobSpec's checks and Slurm's time forms; SlurmJobScript's text: its #SBATCH lines, the
// srun line's words, what it exports, and that a real sh parses it.
#include <gtest/gtest.h>

#include "base/launch/LocalShell.h"
#include "base/slurm/SlurmJobScript.h"
#include "base/util/Errors.h"

using namespace streetgan;

namespace {

SlurmJobSpec spec() {
    SlurmJobSpec s;
    s.runDir = "/shared/runs/r1";
    s.nodes = 2;
    s.tasksPerNode = 4;
    s.command = {"/opt/sg/streetgan-trainer", "train", "--run-dir", "/shared/runs/r1", "--resume", "--data", "photos of 'Oslo'"};
    return s;
}

std::string refusal(const SlurmJobSpec& s) {
    try {
        s.validate();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "accepted";
}

bool hasLine(const std::string& text, const std::string& line) { return ("\n" + text).find("\n" + line + "\n") != std::string::npos; }

}  // namespace

TEST(SlurmJobSpecTest, ReadsEveryTimeFormOfSlurm) {
    EXPECT_EQ(SlurmJobSpec::parseTimeLimit("30"), 30 * 60);
    EXPECT_EQ(SlurmJobSpec::parseTimeLimit("30:15"), 30 * 60 + 15);
    EXPECT_EQ(SlurmJobSpec::parseTimeLimit("04:00:00"), 4 * 3600);
    EXPECT_EQ(SlurmJobSpec::parseTimeLimit("100:00:00"), 100 * 3600);
    EXPECT_EQ(SlurmJobSpec::parseTimeLimit("2-12"), 2 * 86400 + 12 * 3600);
    EXPECT_EQ(SlurmJobSpec::parseTimeLimit("1-02:30"), 86400 + 2 * 3600 + 30 * 60);
    EXPECT_EQ(SlurmJobSpec::parseTimeLimit("1-00:00:05"), 86405);
    EXPECT_EQ(SlurmJobSpec::formatTimeLimit(86405), "24:00:05");
    EXPECT_EQ(SlurmJobSpec::formatTimeLimit(59), "00:00:59");
    for (const char* bad : {"", "1h", "1:2:3:4", "-5", "1-2:3:4:5", "UNLIMITED", "00:00:00", "12:ab", "99999999999"}) {
        try {
            SlurmJobSpec::parseTimeLimit(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find("time limit '" + std::string(bad) + "'"), std::string::npos) << e.what();
        }
    }
}

TEST(SlurmJobSpecTest, RefusesBadValuesByName) {
    auto s = spec();
    EXPECT_EQ(refusal(s), "accepted");
    s.runDir = "runs/r1";
    EXPECT_NE(refusal(s).find("not an absolute path"), std::string::npos);
    s = spec();
    s.runDir = "/shared/100%/r1";
    EXPECT_NE(refusal(s).find("cannot carry"), std::string::npos);
    s = spec();
    s.nodes = 0;
    EXPECT_NE(refusal(s).find("--nodes 0 is out of range"), std::string::npos);
    s = spec();
    s.partition = "gpu;rm";
    EXPECT_NE(refusal(s).find("--partition 'gpu;rm' is not a Slurm partition name"), std::string::npos);
    s = spec();
    s.account = "a b";
    EXPECT_NE(refusal(s).find("--account 'a b' is not a Slurm account name"), std::string::npos);
    s = spec();
    s.timeLimit = "00:01:00";
    EXPECT_NE(refusal(s).find("--signal-seconds 120 is not shorter than the time limit 00:01:00"), std::string::npos);
    s.signalSeconds = 30;
    EXPECT_EQ(refusal(s), "accepted");
    s = spec();
    s.extraLines = {"mem=16G"};
    EXPECT_NE(refusal(s).find("is not one sbatch option"), std::string::npos);
    s.extraLines = {"--mem=1G\n#SBATCH --partition=x"};
    EXPECT_NE(refusal(s).find("is not one sbatch option"), std::string::npos);
    s.extraLines = {"#SBATCH --time=5"};
    EXPECT_NE(refusal(s).find("sets --time, which the job script writes itself: use --time"), std::string::npos);
    s.extraLines = {"-p gpu"};
    EXPECT_NE(refusal(s).find("sets --partition"), std::string::npos);
    s.extraLines = {"--output=/tmp/x"};
    EXPECT_NE(refusal(s).find("sets --output"), std::string::npos);
    s.extraLines = {"--no-requeue"};
    EXPECT_NE(refusal(s).find("sets --no-requeue"), std::string::npos);
    s.extraLines = {"--nice=5", "#SBATCH  --mem=16G ", "--exclusive"};  // options of their own
    EXPECT_EQ(refusal(s), "accepted");
    s = spec();
    s.command.clear();
    EXPECT_NE(refusal(s).find("no command"), std::string::npos);
}

TEST(SlurmJobScriptTest, AsksForWhatTheSpecSaysAndTheRequeueContract) {
    auto s = spec();
    s.gpusPerNode = 4;
    s.cpusPerTask = 8;
    s.timeLimit = "1-00:00";
    s.partition = "gpu";
    s.account = "proj-7";
    s.signalSeconds = 300;
    s.workDir = "/home/u/my data";
    s.extraLines = {"#SBATCH --mem=64G", "--exclusive"};
    const std::string text = SlurmJobScript::text(s);
    EXPECT_EQ(text.rfind("#!/bin/sh\n", 0), 0u);
    for (const char* line :
         {"#SBATCH --job-name=r1", "#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=4", "#SBATCH --gpus-per-node=4", "#SBATCH --cpus-per-task=8",
          "#SBATCH --time=24:00:00", "#SBATCH --partition=gpu", "#SBATCH --account=proj-7", "#SBATCH --signal=USR1@300", "#SBATCH --requeue",
          "#SBATCH --open-mode=append", "#SBATCH --output=/shared/runs/r1/slurm-%j.out", "#SBATCH --chdir=\"/home/u/my data\"", "#SBATCH --mem=64G",
          "#SBATCH --exclusive", "export OMP_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\""})
        EXPECT_TRUE(hasLine(text, line)) << "missing: " << line << "\n" << text;
    EXPECT_TRUE(hasLine(text,
                        "srun --kill-on-bad-exit=1 --cpus-per-task=8 /opt/sg/streetgan-trainer train --run-dir /shared/runs/r1 --resume --data "
                        "'photos of '\\''Oslo'\\'''"))
        << text;
    // Every #SBATCH line comes before the first command (sbatch stops reading them there), and
    // the script sets no variable but OMP_NUM_THREADS.
    const auto firstCommand = text.find("\nexport ");
    EXPECT_EQ(text.find("#SBATCH", firstCommand), std::string::npos);
    size_t exports = 0;
    for (size_t at = 0; (at = text.find("export ", at)) != std::string::npos; ++at) ++exports;
    EXPECT_EQ(exports, 1u);
}

TEST(SlurmJobScriptTest, LeavesOutWhatIsNotGiven) {
    const std::string text = SlurmJobScript::text(spec());
    for (const char* option : {"--gpus-per-node", "--cpus-per-task", "--time", "--partition", "--account", "--chdir"})
        EXPECT_EQ(text.find(option), std::string::npos) << option;
    EXPECT_TRUE(hasLine(text, "#SBATCH --signal=USR1@120"));
    EXPECT_TRUE(
        hasLine(text, "srun --kill-on-bad-exit=1 /opt/sg/streetgan-trainer train --run-dir /shared/runs/r1 --resume --data 'photos of '\\''Oslo'\\'''"));
}

TEST(SlurmJobScriptTest, RefusesAnInvalidSpec) {
    auto s = spec();
    s.tasksPerNode = 0;
    EXPECT_THROW(SlurmJobScript::text(s), ConfigError);
}

// The script is a valid sh program (sh -n parses without running), and its srun line, run with
// `srun` standing for printf, gives the trainer exactly its words.
TEST(SlurmJobScriptTest, ARealShellReadsItAndTheWordsStayWhole) {
    auto s = spec();
    s.workDir = "/tmp/a b";
    s.command = {"printf", "[%s]", "a b", "it's", "$HOME", "`x`", "semi;colon"};
    const std::string text = SlurmJobScript::text(s);
    LocalShell shell;
    const ExecResult parsed = shell.run("sh -n", text);
    EXPECT_TRUE(parsed.ok()) << parsed.err;
    const ExecResult ran = shell.run(
        "srun() { while [ \"${1#--}\" != \"$1\" ]; do shift; done; \"$@\"; }; SLURM_CPUS_PER_TASK=3; . /dev/stdin; echo; echo $OMP_NUM_THREADS", text);
    EXPECT_EQ(ran.out, "[a b][it's][$HOME][`x`][semi;colon]\n3\n") << ran.err;
}
