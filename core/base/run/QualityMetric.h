// The quality metrics a run evaluates at its checkpoints (and `eval` on a checkpoint), as one
// registry: each metric's name, what it needs, what it costs and the figures (event fields) it
// writes. What --metrics and `eval --metric` accept, FeatureMetrics' dispatch and its "unavailable"
// figures, TrainingMetrics' defaults and the dashboard's Scalars tab (metrics/<figure>) read it.
// Another metric is a row in QualityMetric.cpp, the file of its evaluator (ml/eval/FeatureMetric.h:
// it registers itself by the row's name) and that file's line in core/ml/CMakeLists.txt.
// Plain data; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace streetgan {

class QualityMetric {
public:
    static constexpr char kFid[] = "fid", kKid[] = "kid", kPr[] = "pr", kDc[] = "dc", kSwd[] = "swd";

    enum class Needs {
        FeatureModel,  ///< a TorchScript feature network (--metric-features): Inception features of both image sets
        Nothing,       ///< computed in pixel space from the images themselves
    };
    struct Spec {
        const char* name;   ///< "fid": what --metrics lists, and the "<name>_unavailable" reason's prefix
        const char* label;  ///< "FID"
        Needs needs;
        const char* cost;  ///< for help: what one evaluation costs
        /// The metric event's numbers it writes (null when unavailable), the first its headline. A
        /// figure the event schema does not name (Events.h) travels in MetricEvent::extra, as read.
        std::vector<const char*> figures;
    };

    static const std::vector<Spec>& all();
    /// The metric named `name`, or nullptr.
    static const Spec* find(std::string_view name);
    /// "fid,kid,pr,swd"
    static const char* namesCsv();
    /// "fid, kid, pr or swd"
    static std::string namesText();
    /// Throws ConfigError for an empty list or an unknown name (naming it and the known ones).
    static void check(const std::vector<std::string>& names);
    /// Whether any of `names` needs the feature model.
    static bool anyNeedsFeatures(const std::vector<std::string>& names);
};

}  // namespace streetgan
