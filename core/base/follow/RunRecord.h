// One run as the Runs table shows it (issue 43): what `ls` says of it (RunInfo), every setting
// (our run.json's config and its top-level facts, or a TensorBoard run's hparams), what it
// cost in steps, images and time, and its outcomes: last/min/max of every scalar it logged and of
// every quality figure, and the values at its best checkpoint. Bad input never drops a run: what
// could not be read is named in `problems` (the table's tooltip), the rest is kept.
// `ls ROOT --table` prints these, `ls ROOT --table --json` writes them ({"runs":[...]}), which is
// also how the app gets a remote host's runs in one exec. Plain values; safe from any thread.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/follow/RunStatus.h"

namespace streetgan {

/// A scalar over a run: its last, smallest and largest value and the steps they were logged at.
struct ScalarStats {
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    double last = kNone, min = kNone, max = kNone;
    int64_t lastStep = 0, minStep = 0, maxStep = 0;
    int64_t count = 0;  ///< finite values folded in (a NaN or infinite one is not counted)
    void add(double value, int64_t step);
    /// {"last","min","max","last_step","min_step","max_step","count"}; a NaN is written as null.
    nlohmann::json toJson() const;
    static ScalarStats fromJson(const nlohmann::json& j);
    /// Tolerant: a missing or ill-typed member keeps its default and adds a line, prefixed with
    /// `where`, to `problems` (when not null).
    static ScalarStats fromJson(const nlohmann::json& j, std::vector<std::string>* problems, const std::string& where);
};

struct RunRecord {
    RunInfo info;  ///< name, path, state, step, total steps, epoch, last losses, last checkpoint
    /// "ours" (run.json/events.jsonl) or "tensorboard" (another trainer's event files).
    std::string kind;
    /// Every setting by its key, a JSON scalar or array: run.json's "config" members as written
    /// ("lr", "betas", "preset", ...), plus its top-level facts under their own keys ("device",
    /// "world_size", "data_source", "version"); a TensorBoard run's hparams (bool, number, string).
    nlohmann::json settings = nlohmann::json::object();
    std::string host;                             ///< the machine the trainer ran on (run.json's "host"), "" when unknown
    int64_t images = 0;                           ///< images trained on: steps x batch x world size (0 when unknown)
    double startTime = 0;                         ///< Unix seconds of the run's start (run.json's start_time, else its first event)
    double wallSeconds = 0;                       ///< first to last event, all sessions of a resumed run included
    double imagesPerSecond = ScalarStats::kNone;  ///< the mean of its logged img/s (NaN when none)
    double energyKwh = ScalarStats::kNone;        ///< from the system events' energy_j, NaN when not measured
    /// Every scalar by its name: the training scalars of the metrics events ("loss_d", "loss_g",
    /// "d_x", "img_per_s", ...), a TensorBoard run's tags, and the quality figures of the metric
    /// events ("swd", "fid", "kid", "precision", "recall").
    std::map<std::string, ScalarStats> scalars;
    /// The run's best checkpoint (the trainer's last "best" event), empty `checkpoint` when none.
    struct Best {
        std::string checkpoint;  ///< relative to the run ("checkpoints/best.pt")
        std::string source;      ///< the checkpoint it copies ("checkpoints/checkpoint_0_step1000.pt")
        std::string metric;      ///< "swd", ...
        double value = ScalarStats::kNone;
        int64_t step = 0;
        /// Each scalar's last value logged at or before `step` (the table's "at best" statistic).
        std::map<std::string, double> scalars;
    } best;
    /// What could not be read, one line each ("run.json: 'batch' is a string, not a number").
    std::vector<std::string> problems;

    /// {"info": RunInfo::toJson(), "kind", "settings", "host", "images", "start_time",
    /// "wall_seconds", "img_per_s", "energy_kwh", "scalars": {name: ScalarStats}, "best":
    /// {"checkpoint", "source", "metric", "value", "step", "scalars"}, "problems": [...]}; NaN as null.
    nlohmann::json toJson() const;
    /// Tolerant: what is missing or ill-typed keeps its default and is added to `problems`.
    static RunRecord fromJson(const nlohmann::json& j);
};

}  // namespace streetgan
