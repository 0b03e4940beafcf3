// Reads the Runs table's record (RunRecord) of a run folder, and of every run under a root: the
// same runs, in the same order and with the same names as RunStatus::list(root).
//
// Our runs: run.json gives the settings (its "config" members as written, its top-level facts:
// device, world_size, data_source, version, the count of resumes; host and start_time go to their
// own members), events.jsonl is read WHOLE (min and max need all of it), folding every metrics
// event's training scalars and "scalars", every metric event's quality figures (QualityMetric's
// registry; null is not counted), the system events' energy_j (each trainer process counts from
// zero: a resumed run's sessions are added up), the last best event and the wall time (first to
// last event). A best event names an earlier step: best.scalars are each scalar's last value
// logged at or before it, answered from the last kHistory values kept of each scalar (a best
// event comes right after its checkpoint's metrics, far within that).
// TensorBoard runs: the scalars of their tags (TensorBoardFollower: the reference's D_loss is
// loss_d), and the settings of their hparams (TfRecordReader::HParams, the session start's values;
// a later session's value of a name replaces the earlier), add_hparams' sub-folder folded in
// (TensorBoardRun::hparamsFolders).
// RunInfo (state, step, losses, ...) is RunStatus::readMore's, so `ls` and the table agree.
//
// Incremental: readMore folds only what the files gained since `progress` (RunRecordCache keeps
// one per run); a replaced or cut events.jsonl (or TensorBoard file) is read afresh, a changed
// run.json read again. Bad input never drops the run: a missing run.json (an older run), a
// malformed one, an ill-typed or unknown key, torn event lines or malformed hparams each give a
// line in record.problems and the rest is read.
//
// Plain reads; safe from any thread (one Progress per thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/follow/RunRecord.h"
#include "base/follow/RunStatus.h"
#include "base/tensorboard/EventFileSource.h"

namespace streetgan {

class RunRecordReader {
public:
    /// Values kept per scalar for the "at best" statistic.
    static constexpr std::size_t kHistory = 4096;

    /// What readMore keeps of a run between reads.
    struct Progress {
        RunReadProgress status;  ///< RunStatus::readMore's, for record.info
        bool started = false;
        bool tensorBoard = false;
        uint64_t bytesRead = 0;  ///< bytes of event files the last readMore folded in
        // run.json, read again when it changed
        int64_t runJsonMtimeNs = -1, runJsonSize = -1;
        uint64_t runJsonInode = 0;
        nlohmann::json runJsonSettings = nlohmann::json::object();
        std::string host;
        double runJsonStart = 0;
        std::vector<std::string> runJsonProblems;
        // events.jsonl (ours) or the follower offset of each folder (a TensorBoard run: "" the run
        // itself, else its hparams sub-folder)
        uint64_t offset = 0, inode = 0;
        std::map<std::string, uint64_t> tensorBoardOffsets;
        nlohmann::json hparams = nlohmann::json::object();
        double hparamsStart = 0;
        std::vector<std::string> eventProblems;  ///< malformed hparams, bad TensorBoard records
        int64_t badLines = 0;
        // the fold
        int64_t lastStep = 0;
        double firstT, lastT;
        double imgPerSSum = 0;
        int64_t imgPerSCount = 0;
        double energyDone = 0, energyLast;  ///< joules of finished trainer processes, the current one's last reading
        std::map<std::string, std::deque<std::pair<int64_t, double>>> history;
        Progress();
    };

    /// Folds what the run gained since `progress` into `record` (the first time: all of it).
    static void readMore(const std::string& runDir, RunRecord& record, Progress& progress);
    /// readMore() of a TensorBoard run whose files are read through `files` (a host without our
    /// trainer, over SFTP, where RunStatus::listTensorBoard found it); the files' errors pass through.
    static void readTensorBoardMore(EventFileSource& files, const std::string& runDir, RunRecord& record, Progress& progress);
    static RunRecord read(const std::string& runDir);
    /// Every run under `root` as RunStatus::list finds and names them; IoError when ROOT is not a folder.
    static std::vector<RunRecord> list(const std::string& root);
};

}  // namespace streetgan
