// The quality figures that can pick a run's best checkpoint (best_metric / --best-metric, kept as
// checkpoints/best.pt and marked by a {"kind":"best"} event): each figure's metric (the
// QualityMetric that computes it), which way is better, and where a metric event holds it. One
// rule for TrainConfig's check of the setting and the trainer's choice (CheckpointKeeper).
//   swd, fid, kid        lower is better
//   precision, recall    higher is better
//   none                 no best checkpoint
// Plain data; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streetgan {

struct MetricEvent;  // base/run/Events.h: this header stays light, as TrainConfig.h includes it

class BestMetric {
public:
    static constexpr char kNone[] = "none";
    static constexpr char kDefault[] = "swd";  ///< TrainConfig's default: the figure every run can compute

    struct Spec {
        const char* figure;  ///< the setting's value and the metric event's field: "fid"
        const char* metric;  ///< the QualityMetric that computes it: "fid", "pr" for precision
        bool higherIsBetter;
        std::optional<double> MetricEvent::*value;             ///< where a metric event holds it
        std::optional<std::string> MetricEvent::*unavailable;  ///< and why it is missing, when it is
    };

    static const std::vector<Spec>& all();
    /// The figure named `name`, or nullptr ("none" and unknown names).
    static const Spec* find(std::string_view name);
    /// "none,swd,fid,kid,precision,recall": the option's choices.
    static const char* choicesCsv();
    /// Throws ConfigError when a run with these settings cannot evaluate `figure`: its metric is
    /// not in `metrics`, or needs a feature model and `features` is empty. The message says what
    /// to pass. "none" always passes, and so does the default (swd) when `metrics` leave SWD out:
    /// such a run keeps no best (computes() is false) rather than being refused, since --metrics
    /// without swd was a valid run before best_metric existed and its run.json must still resume.
    static void check(const std::string& figure, const std::vector<std::string>& metrics, const std::string& features);
    /// Whether `metrics` (a run's list) computes `spec`'s figure.
    static bool computes(const Spec& spec, const std::vector<std::string>& metrics);
    /// The figure in `e`, or nullopt when the event has no finite value of it (not asked for,
    /// unavailable, skipped or cancelled).
    static std::optional<double> valueIn(const Spec& spec, const MetricEvent& e);
    /// Whether `candidate` beats `best` (strictly: an equal figure keeps the earlier checkpoint).
    static bool better(const Spec& spec, double candidate, double best);
};

}  // namespace streetgan
