#include "base/run/BestMetric.h"

#include <algorithm>
#include <cmath>

#include "base/run/Events.h"
#include "base/run/QualityMetric.h"
#include "base/util/Errors.h"
#include "base/util/TextList.h"

namespace streetgan {

const std::vector<BestMetric::Spec>& BestMetric::all() {
    static const std::vector<Spec> figures = {
        {"swd", QualityMetric::kSwd, false, &MetricEvent::swd, &MetricEvent::swdUnavailable},
        {"fid", QualityMetric::kFid, false, &MetricEvent::fid, &MetricEvent::fidUnavailable},
        {"kid", QualityMetric::kKid, false, &MetricEvent::kid, &MetricEvent::kidUnavailable},
        {"precision", QualityMetric::kPr, true, &MetricEvent::precision, &MetricEvent::prUnavailable},
        {"recall", QualityMetric::kPr, true, &MetricEvent::recall, &MetricEvent::prUnavailable},
    };
    return figures;
}

const BestMetric::Spec* BestMetric::find(std::string_view name) {
    for (const Spec& s : all())
        if (name == s.figure) return &s;
    return nullptr;
}

const char* BestMetric::choicesCsv() {
    static const std::string csv = [] {
        std::string out = kNone;
        for (const Spec& s : all()) out += "," + std::string(s.figure);
        return out;
    }();
    return csv.c_str();
}

void BestMetric::check(const std::string& figure, const std::vector<std::string>& metrics, const std::string& features) {
    const Spec* s = find(figure);
    if (!s) return;  // "none"; an unknown name is the option row's choice check
    // The other figures that could be passed instead, for the messages.
    std::vector<std::string> instead;
    const bool hasFeatures = !features.empty();
    for (const Spec& o : all()) {
        const QualityMetric::Spec* q = QualityMetric::find(o.metric);
        if (o.figure != figure && std::find(metrics.begin(), metrics.end(), o.metric) != metrics.end() &&
            (hasFeatures || q->needs == QualityMetric::Needs::Nothing))
            instead.emplace_back(o.figure);
    }
    instead.emplace_back(kNone);
    if (figure == kDefault && !computes(*s, metrics)) return;
    const QualityMetric::Spec* q = QualityMetric::find(s->metric);
    if (q->needs == QualityMetric::Needs::FeatureModel && !hasFeatures)
        throw ConfigError("best_metric " + figure +
                          " needs the feature model: pass --metric-features FILE (clean-fid's inception-2015-12-05.pt), or --best-metric " +
                          TextList::oneOf(instead));
    std::string list;
    for (const auto& m : metrics) list += (list.empty() ? "" : ", ") + m;
    if (!computes(*s, metrics))
        throw ConfigError("best_metric " + figure + " is not computed by this run (its metrics: " + list + "): add " + s->metric +
                          " to --metrics, or pass --best-metric " + TextList::oneOf(instead));
}

bool BestMetric::computes(const Spec& spec, const std::vector<std::string>& metrics) {
    return std::find(metrics.begin(), metrics.end(), spec.metric) != metrics.end();
}

std::optional<double> BestMetric::valueIn(const Spec& spec, const MetricEvent& e) {
    const std::optional<double>& v = e.*spec.value;
    if ((e.*spec.unavailable).has_value() || !v || !std::isfinite(*v)) return std::nullopt;
    return v;
}

bool BestMetric::better(const Spec& spec, double candidate, double best) { return spec.higherIsBetter ? candidate > best : candidate < best; }

}  // namespace streetgan
