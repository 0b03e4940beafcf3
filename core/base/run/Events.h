// The schema of a run's events.jsonl (docs/design.md, "The run directory") and of the attach
// protocol's lines that wrap them (docs/attach-protocol.md), in one place: the kind names, the
// field names, one typed struct per kind with to/from nlohmann::json, and EventReader, which turns
// one line into a typed event. Every producer (Trainer, TrainingMetrics, SystemMonitor, the
// dashboard benchmark) and every consumer (ls, attach, readiness, the console, the app) goes
// through this header; no other file spells a kind or a field.
//
// Tolerance (as the readers before it): a member this schema does not name, or a named one with
// an unexpected JSON type, is kept as read in the struct's `extra` and written back by to_json,
// so a line read and written again is the same JSON (up to number types: 5 in a double field is
// written back as 5.0, equal as JSON); an unknown kind becomes an UnknownEvent
// holding the whole object; a torn or non-JSON line is reported by EventReader, never thrown.
// Numbers: a double field that is absent or null reads as NaN and a NaN is written as null (what
// nlohmann's dump writes for NaN anyway); integer fields accept any JSON number with an integral
// value.
//
// Thread contract: plain values and free functions, safe from any thread; one EventReader per
// thread (it reuses buffers from line to line).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/run/TrainingScalar.h"

namespace streetgan {

/// The "kind" of each event.
namespace EventKind {
inline constexpr char kStatus[] = "status";
inline constexpr char kData[] = "data";
inline constexpr char kMetrics[] = "metrics";  ///< losses every --log-every steps
inline constexpr char kSystem[] = "system";
inline constexpr char kCheckpoint[] = "checkpoint";
inline constexpr char kSample[] = "sample";
inline constexpr char kMetric[] = "metric";  ///< FID/KID/PR/SWD at a checkpoint
inline constexpr char kControl[] = "control";
inline constexpr char kError[] = "error";
inline constexpr char kBest[] = "best";  ///< a checkpoint became the run's best by its quality figure
}  // namespace EventKind

/// The "state" of a status event, plus the two states only readers derive (RunStatus).
namespace RunState {
inline constexpr char kRunning[] = "running";
inline constexpr char kPaused[] = "paused";
inline constexpr char kFinished[] = "finished";
inline constexpr char kStopped[] = "stopped";
/// A Slurm job's trainer stopped at its time-limit warning (SIGUSR1) with a checkpoint and
/// requeued the job, which resumes it; the event's "reason" says why ("time limit").
inline constexpr char kRequeued[] = "requeued";
inline constexpr char kFailed[] = "failed";
inline constexpr char kCrashed[] = "crashed";  ///< derived: running/paused, but no trainer holds the lock
inline constexpr char kNew[] = "new";          ///< derived: no status event yet and no trainer
}  // namespace RunState

/// Member names of events and of the attach protocol's lines.
namespace EventField {
// every event
inline constexpr char kKind[] = "kind";
inline constexpr char kT[] = "t";  ///< wall seconds since the Unix epoch
inline constexpr char kStep[] = "step";
inline constexpr char kEpoch[] = "epoch";
inline constexpr char kTotalSteps[] = "total_steps";
// status
inline constexpr char kState[] = "state";
inline constexpr char kPid[] = "pid";
inline constexpr char kDevice[] = "device";
inline constexpr char kData[] = "data";
inline constexpr char kResumedFrom[] = "resumed_from";
// data
inline constexpr char kSource[] = "source";
inline constexpr char kImages[] = "images";
inline constexpr char kStepsPerEpoch[] = "steps_per_epoch";
inline constexpr char kSkipped[] = "skipped";
// checkpoint, sample
inline constexpr char kPath[] = "path";
// metrics: the training scalars (kLossD "loss_d", ...: TrainingScalar.h's table; also the
// TensorBoard scalar tags)
#define STREETGAN_TRAINING_SCALAR_FIELD(key, member, field, ...) inline constexpr char k##key[] = field;
STREETGAN_TRAINING_SCALARS(STREETGAN_TRAINING_SCALAR_FIELD)
#undef STREETGAN_TRAINING_SCALAR_FIELD
inline constexpr char kWorldSize[] = "world_size";
inline constexpr char kScalars[] = "scalars";
// system
inline constexpr char kCpuPercent[] = "cpu_percent";
inline constexpr char kRssMb[] = "rss_mb";
inline constexpr char kReadMbS[] = "read_mb_s";
inline constexpr char kGpuUtil[] = "gpu_util";
inline constexpr char kGpuMemMb[] = "gpu_mem_mb";
inline constexpr char kGpuMemTotalMb[] = "gpu_mem_total_mb";
inline constexpr char kEnergyJ[] = "energy_j";
inline constexpr char kPowerW[] = "power_w";
inline constexpr char kEnergySource[] = "energy_source";
inline constexpr char kUnavailable[] = "unavailable";
// the keys of a system event's "unavailable" object: why a reading is never there
inline constexpr char kUnavailableGpu[] = "gpu";               ///< gpu_util, gpu_mem_mb
inline constexpr char kUnavailableCpuEnergy[] = "cpu_energy";  ///< RAPL package energy
inline constexpr char kUnavailableGpuEnergy[] = "gpu_energy";  ///< NVML energy (GPU runs only)
inline constexpr char kUnavailableRead[] = "read";             ///< read_mb_s
// metric (FeatureMetrics' result plus the step)
inline constexpr char kFid[] = "fid";
inline constexpr char kKid[] = "kid";
inline constexpr char kKidStd[] = "kid_std";
inline constexpr char kKidSubsets[] = "kid_subsets";
inline constexpr char kKidSubsetSize[] = "kid_subset_size";
inline constexpr char kPrecision[] = "precision";
inline constexpr char kRecall[] = "recall";
inline constexpr char kPrK[] = "pr_k";
inline constexpr char kFidUnavailable[] = "fid_unavailable";
inline constexpr char kKidUnavailable[] = "kid_unavailable";
inline constexpr char kPrUnavailable[] = "pr_unavailable";
inline constexpr char kFeatures[] = "features";
inline constexpr char kFeaturesSha256[] = "features_sha256";
inline constexpr char kFeatureDim[] = "feature_dim";
inline constexpr char kSamples[] = "samples";
inline constexpr char kRealSamples[] = "real_samples";
inline constexpr char kRealCache[] = "real_cache";
inline constexpr char kTiming[] = "timing";
inline constexpr char kTimingRealFeatures[] = "real_features";
inline constexpr char kTimingGeneratedFeatures[] = "generated_features";
inline constexpr char kTimingMetrics[] = "metrics";
inline constexpr char kSeconds[] = "seconds";
inline constexpr char kWarnings[] = "warnings";
// metric: the sliced Wasserstein distance (SwdEvaluator), x 1e3 as in the paper
inline constexpr char kSwd[] = "swd";               ///< mean of the levels
inline constexpr char kSwdLevels[] = "swd_levels";  ///< {"<resolution px>": distance}
inline constexpr char kSwdUnavailable[] = "swd_unavailable";
inline constexpr char kSwdSamples[] = "swd_samples";
inline constexpr char kSwdRealCache[] = "swd_real_cache";
// best (also path, source, value, step, epoch)
inline constexpr char kMetric[] = "metric";
// control, error
inline constexpr char kCmd[] = "cmd";
inline constexpr char kValue[] = "value";
inline constexpr char kMessage[] = "message";
// attach protocol lines
inline constexpr char kOffset[] = "offset";
inline constexpr char kEnd[] = "end";
inline constexpr char kEvent[] = "event";
inline constexpr char kLive[] = "live";
inline constexpr char kReply[] = "reply";
}  // namespace EventField

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

/// {"kind":"status"}: the run's state changed. The first `running` also carries pid, device,
/// data and resumed_from ("" on a fresh start); `failed` carries only the state.
struct StatusEvent {
    double t = kNoValue;
    std::string state;
    std::optional<int64_t> step, totalSteps, pid;
    std::optional<std::string> device, data, resumedFrom;
    nlohmann::json extra;
};

/// {"kind":"data"}: at the start the source, its images and steps per epoch; later only step and
/// the bad images skipped so far, by reason.
struct DataEvent {
    double t = kNoValue;
    std::optional<int64_t> step;
    std::optional<std::string> source;
    std::optional<int64_t> images, stepsPerEpoch;
    std::map<std::string, int64_t> skipped;  ///< always written
    nlohmann::json extra;
};

/// {"kind":"metrics"}: the training scalars (TrainingScalar.h: losses and D outputs averaged since
/// the last one, learning rate, images/s, data wait as a fraction of the interval, ...) or, for a
/// TensorBoard run, the scalars logged at one step. A scalar is NaN when absent (written as null,
/// or not at all: TrainingScalar::Written).
struct MetricsEvent {
    double t = kNoValue;
    std::optional<int64_t> step, epoch, totalSteps;
#define STREETGAN_TRAINING_SCALAR_MEMBER(key, member, ...) double member = kNoValue;
    STREETGAN_TRAINING_SCALARS(STREETGAN_TRAINING_SCALAR_MEMBER)
#undef STREETGAN_TRAINING_SCALAR_MEMBER
    std::optional<int64_t> worldSize;  ///< distributed runs only
    /// Values of tags with no field of their own, by tag (a TensorBoard run's other tags:
    /// TensorBoardFollower); written only when not empty, a NaN as null.
    std::map<std::string, double> scalars;
    nlohmann::json extra;

    /// The member of a training scalar, by its key.
    double& operator[](TrainingScalar::Key key);
    double operator[](TrainingScalar::Key key) const;
    /// Any training scalar is a number.
    bool hasScalar() const;
};

/// {"kind":"system"}: what the trainer costs the machine (SystemMonitor). The GPU readings are
/// written as null when unknown. The energy members (added with issue 17; older lines lack them,
/// which reads as "not reported") are absent when nothing is measurable; `unavailable` says why a
/// reading is never there (keys EventField::kUnavailable*), written only when not empty.
struct SystemEvent {
    double t = kNoValue;
    std::optional<int64_t> step;
    double cpuPercent = kNoValue;  ///< of one core
    double rssMb = kNoValue, readMbS = kNoValue;
    std::optional<int64_t> gpuUtil;  ///< percent, a whole number as NVML reports it
    std::optional<double> gpuMemMb, gpuMemTotalMb;
    std::optional<double> energyJ;            ///< joules since the trainer process started (energySource's parts)
    std::optional<double> powerW;             ///< mean power of the interval since the previous reading
    std::optional<std::string> energySource;  ///< what energyJ counts, e.g. "CPU package (RAPL, all processes)"
    std::map<std::string, std::string> unavailable;
    nlohmann::json extra;
};

/// {"kind":"checkpoint"}: checkpoints/checkpoint_<epoch>.pt was written (path relative to the run).
struct CheckpointEvent {
    double t = kNoValue;
    std::optional<int64_t> step, epoch;
    std::string path;
    nlohmann::json extra;
};

/// {"kind":"sample"}: samples/step_<N>.png was written (path relative to the run).
struct SampleEvent {
    double t = kNoValue;
    std::optional<int64_t> step, epoch;
    std::string path;
    nlohmann::json extra;
};

/// Seconds of each phase of a metric evaluation.
struct MetricTiming {
    double realFeatures = kNoValue, generatedFeatures = kNoValue, metrics = kNoValue;
};

/// {"kind":"metric"}: FID/KID/precision-recall at a checkpoint (TrainingMetrics, FeatureMetrics).
/// A metric not asked for is absent (nullopt); one asked for but unavailable is null (NaN here)
/// with "<metric>_unavailable" saying why.
struct MetricEvent {
    double t = kNoValue;
    std::optional<int64_t> step;
    std::optional<double> fid, kid, kidStd, precision, recall;
    std::optional<int64_t> kidSubsets, kidSubsetSize, prK;
    std::optional<std::string> fidUnavailable, kidUnavailable, prUnavailable;
    std::optional<std::string> features, featuresSha256, realCache;
    std::optional<int64_t> featureDim, samples, realSamples;
    std::optional<MetricTiming> timing;
    std::optional<double> seconds;
    std::vector<std::string> warnings;  ///< written only when not empty
    // Sliced Wasserstein distance x 1e3: the mean of the levels and each level by its resolution
    // in px ("64", "32", "16"); swdLevels written only when not empty.
    std::optional<double> swd;
    std::map<std::string, double> swdLevels;
    std::optional<std::string> swdUnavailable, swdRealCache;
    std::optional<int64_t> swdSamples;
    nlohmann::json extra;
};

/// {"kind":"control"}: an accepted control command (value: set-lr's learning rate).
struct ControlEvent {
    double t = kNoValue;
    std::string cmd;
    std::optional<int64_t> step;
    std::optional<double> value;
    nlohmann::json extra;
};

/// {"kind":"error"}: a fatal error, or a refused control command (then with the step).
struct ErrorEvent {
    double t = kNoValue;
    std::optional<int64_t> step;
    std::string message;
    nlohmann::json extra;
};

/// {"kind":"best"}: the checkpoint of `step` (`source`, relative to the run) has the best quality
/// figure so far (`metric`, lower is better for swd/fid/kid, higher for precision/recall) with
/// `value`; the trainer has copied it to `path` (checkpoints/best.pt), which pruning never deletes.
struct BestEvent {
    double t = kNoValue;
    std::optional<int64_t> step, epoch;
    std::string path, metric;
    std::optional<std::string> source;
    double value = kNoValue;
    nlohmann::json extra;
};

/// A kind this schema does not know (or a line without a string "kind": kind ""), kept whole.
struct UnknownEvent {
    std::string kind;
    nlohmann::json fields;  ///< the whole object, "kind" included
};

using Event = std::variant<MetricsEvent, SystemEvent, StatusEvent, DataEvent, CheckpointEvent, SampleEvent, MetricEvent, ControlEvent, ErrorEvent, BestEvent,
                           UnknownEvent>;

void to_json(nlohmann::json& j, const StatusEvent& e);
void to_json(nlohmann::json& j, const DataEvent& e);
void to_json(nlohmann::json& j, const MetricsEvent& e);
void to_json(nlohmann::json& j, const SystemEvent& e);
void to_json(nlohmann::json& j, const CheckpointEvent& e);
void to_json(nlohmann::json& j, const SampleEvent& e);
void to_json(nlohmann::json& j, const MetricEvent& e);
void to_json(nlohmann::json& j, const ControlEvent& e);
void to_json(nlohmann::json& j, const ErrorEvent& e);
void to_json(nlohmann::json& j, const BestEvent& e);
void to_json(nlohmann::json& j, const UnknownEvent& e);
/// Tolerant: fills the fields found (whatever the object's kind), the rest into `extra`.
void from_json(const nlohmann::json& j, StatusEvent& e);
void from_json(const nlohmann::json& j, DataEvent& e);
void from_json(const nlohmann::json& j, MetricsEvent& e);
void from_json(const nlohmann::json& j, SystemEvent& e);
void from_json(const nlohmann::json& j, CheckpointEvent& e);
void from_json(const nlohmann::json& j, SampleEvent& e);
void from_json(const nlohmann::json& j, MetricEvent& e);
void from_json(const nlohmann::json& j, ControlEvent& e);
void from_json(const nlohmann::json& j, ErrorEvent& e);
void from_json(const nlohmann::json& j, BestEvent& e);

/// The event as one JSON object, "kind" included.
nlohmann::json toJson(const Event& event);
/// The typed event of a JSON object by its "kind"; never throws (a non-object or an unknown kind
/// gives an UnknownEvent).
Event eventFromJson(const nlohmann::json& j);
/// "metrics", "status", ...; an UnknownEvent's own kind.
std::string kindOf(const Event& event);
/// Sets "t" (EventLog and the Trainer stamp events with it).
void setTime(Event& event, double t);

/// What readers look at whatever the kind (ls, the dashboard): the time, the step, the epoch and
/// the run's total steps, where the event carries them.
struct EventStamp {
    double t = kNoValue;
    std::optional<int64_t> step, epoch, totalSteps;
};
EventStamp stampOf(const Event& event);

/// How a line read.
enum class LineStatus {
    Ok,
    Torn,         ///< JSON that stops early: a crash mid-write, or a line still being written
    NotJson,      ///< anything else that is not JSON (an empty line too)
    NotObject,    ///< JSON, but not an object
    NotProtocol,  ///< an object, but not an attach protocol line (readAttach only)
};

struct ParsedEvent {
    LineStatus status = LineStatus::Ok;
    std::string error;  ///< why, when not Ok
    Event event;
    bool ok() const { return status == LineStatus::Ok; }
};

/// One line of `attach` (docs/attach-protocol.md).
struct AttachLine {
    enum class Type { Event, Live, End, Reply };
    Type type = Type::Event;
    /// Event: where its events.jsonl line starts; Live/End: the offset reached. nullopt when
    /// absent or not a non-negative integer.
    std::optional<uint64_t> offset;
    std::optional<uint64_t> end;  ///< Event: just after its line's newline (the resume point)
    std::string state;            ///< Live/End: the run's state
    Event event;                  ///< Event
    nlohmann::json reply;         ///< Reply: the control socket's reply
};

struct ParsedAttachLine {
    LineStatus status = LineStatus::Ok;
    std::string error;
    AttachLine line;
    bool ok() const { return status == LineStatus::Ok; }
};

/// The attach protocol's lines, as JSON objects to write.
nlohmann::json attachEventJson(uint64_t offset, uint64_t end, nlohmann::json event);
nlohmann::json attachLiveJson(uint64_t offset, const std::string& state);
nlohmann::json attachEndJson(uint64_t offset, const std::string& state);
nlohmann::json attachReplyJson(nlohmann::json reply);

/// Reads lines of events.jsonl and of the attach protocol into typed events, with nlohmann's SAX
/// parser (no DOM). Lines in the form EventLog writes (a flat object of numbers, literals and
/// plain ASCII strings, and the attach line around one) take a strict single-pass scan first:
/// the dashboard reads runs of a million lines, and nlohmann's SAX parser costs about six times
/// as much per metrics line (measured ~3.5 us against ~0.55 us). That scan hands any line it does
/// not fully accept (an escape, a non-ASCII byte, a nested value, anything malformed) to nlohmann,
/// which is the judge of what is JSON. Not thread-safe: one per thread.
class EventReader {
public:
    EventReader();
    ~EventReader();
    EventReader(const EventReader&) = delete;
    EventReader& operator=(const EventReader&) = delete;

    /// One events.jsonl line, without its newline.
    ParsedEvent read(std::string_view line);
    /// One attach protocol line, without its newline.
    ParsedAttachLine readAttach(std::string_view line);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace streetgan
