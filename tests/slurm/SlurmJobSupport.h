// What the trainer-on-Slurm tests share: the job script of docs/slurm.md's form (one srun line,
// one task per rank, `train --resume` so that a requeued job continues), and the checks of a
// run's events.jsonl (metrics steps, statuses). Header-only; the test thread.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/CliRunner.h"

namespace streetgan::test {

/// A tiny CPU run: tiny-32 on synthetic images, one thread per rank, metrics every step.
inline std::string tinyTrainArgs(int64_t steps, int64_t checkpointEvery) {
    return "--preset tiny-32 --steps " + std::to_string(steps) + " --batch 4 --device cpu --threads 1 --loader-threads 1 --synthetic-images 64 " +
           "--log-every 1 --sample-every 0 --checkpoint-every " + std::to_string(checkpointEvery) + " --seed 5";
}

/// RUN/job.sbatch: `tasks` ranks on the one node, requeueable, output appended to
/// RUN/slurm-<job>.out, and `srun --kill-on-bad-exit=1 <srunOptions> TRAINER <trainerArgs>`;
/// `sbatchLines` are more #SBATCH options (e.g. "--time=1"), `prelude` shell lines before srun.
inline std::string writeJobScript(const std::string& runDir, int tasks, const std::string& trainerArgs, const std::vector<std::string>& sbatchLines = {},
                                  const std::string& prelude = "", const std::string& srunOptions = "") {
    const std::string path = runDir + "/job.sbatch";
    std::ofstream s(path);
    s << "#!/bin/sh\n#SBATCH --job-name=streetgan-test\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=" << tasks << "\n"
      << "#SBATCH --requeue\n#SBATCH --open-mode=append\n#SBATCH --output=" << runDir << "/slurm-%j.out\n";
    for (const std::string& line : sbatchLines) s << "#SBATCH " << line << "\n";
    s << "export OMP_NUM_THREADS=1\n"
      << prelude << "srun --kill-on-bad-exit=1 " << srunOptions << " " << CliRunner::quote(STREETGAN_TRAINER) << " " << trainerArgs << "\n";
    return path;
}

/// The steps of the run's metrics events, in file order.
inline std::vector<int64_t> metricsSteps(const std::string& runDir) {
    std::vector<int64_t> steps;
    for (const auto& e : readEvents(runDir))
        if (e.value("kind", "") == "metrics") steps.push_back(e.value("step", int64_t{-1}));
    return steps;
}

/// The states of the run's status events, in file order.
inline std::vector<std::string> statuses(const std::string& runDir) {
    std::vector<std::string> states;
    for (const auto& e : readEvents(runDir))
        if (e.value("kind", "") == "status") states.push_back(e.value("state", ""));
    return states;
}

/// The status and error events, one line each: what a failure message shows of a run.
inline std::string statusAndErrors(const std::string& runDir) {
    std::string text;
    for (const auto& e : readEvents(runDir))
        if (e.value("kind", "") == "status" || e.value("kind", "") == "error") text += e.dump() + "\n";
    return text;
}

/// The last metrics step logged (0 when none).
inline int64_t lastStep(const std::string& runDir) {
    const auto steps = metricsSteps(runDir);
    return steps.empty() ? 0 : steps.back();
}

/// Metrics steps 1, 2, ... `last`, each once, in order: no gap, no duplicate.
inline void expectContinuousSteps(const std::string& runDir, int64_t last) {
    const auto steps = metricsSteps(runDir);
    ASSERT_EQ(static_cast<int64_t>(steps.size()), last) << "metrics events: " << nlohmann::json(steps).dump();
    for (size_t i = 0; i < steps.size(); ++i) ASSERT_EQ(steps[i], static_cast<int64_t>(i) + 1) << "metrics events: " << nlohmann::json(steps).dump();
}

}  // namespace streetgan::test
