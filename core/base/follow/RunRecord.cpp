#include "base/follow/RunRecord.h"

#include <cmath>

namespace streetgan {
namespace {

// The members of a record's JSON (docs/attach-protocol.md, "ls --table --json").
constexpr char kInfo[] = "info";
constexpr char kKind[] = "kind";
constexpr char kSettings[] = "settings";
constexpr char kHost[] = "host";
constexpr char kImages[] = "images";
constexpr char kStartTime[] = "start_time";
constexpr char kWallSeconds[] = "wall_seconds";
constexpr char kImagesPerSecond[] = "img_per_s";
constexpr char kEnergyKwh[] = "energy_kwh";
constexpr char kScalars[] = "scalars";
constexpr char kBest[] = "best";
constexpr char kProblems[] = "problems";
constexpr char kLast[] = "last", kMin[] = "min", kMax[] = "max";
constexpr char kLastStep[] = "last_step", kMinStep[] = "min_step", kMaxStep[] = "max_step", kCount[] = "count";
constexpr char kCheckpoint[] = "checkpoint", kSource[] = "source", kMetric[] = "metric", kValue[] = "value", kStep[] = "step";

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// Reads the members of one JSON object into typed values; what is missing or ill-typed keeps the
// default and leaves a line naming it ("record: 'images' is "many", not a whole number").
class Members {
public:
    Members(const nlohmann::json& j, std::string where, std::vector<std::string>* problems) : j_(j), where_(std::move(where)), problems_(problems) {}

    const nlohmann::json* find(const char* key, bool required = true) {
        const auto it = j_.find(key);
        if (it == j_.end()) {
            if (required) problem("'" + std::string(key) + "' is missing");
            return nullptr;
        }
        return &*it;
    }
    /// A number, or null for "none" (NaN).
    void real(const char* key, double& out) {
        const nlohmann::json* v = find(key);
        if (!v || v->is_null()) return;
        if (v->is_number())
            out = v->get<double>();
        else
            problem(what(key, *v) + "not a number");
    }
    void integer(const char* key, int64_t& out) {
        const nlohmann::json* v = find(key);
        if (!v) return;
        if (v->is_number_integer() || (v->is_number_float() && std::isfinite(v->get<double>()) && v->get<double>() == std::floor(v->get<double>())))
            out = v->get<int64_t>();
        else
            problem(what(key, *v) + "not a whole number");
    }
    void text(const char* key, std::string& out) {
        const nlohmann::json* v = find(key);
        if (!v) return;
        if (v->is_string())
            out = v->get<std::string>();
        else
            problem(what(key, *v) + "not a string");
    }
    const nlohmann::json* object(const char* key) {
        const nlohmann::json* v = find(key);
        if (v && !v->is_object()) {
            problem(what(key, *v) + "not an object");
            return nullptr;
        }
        return v;
    }
    void problem(const std::string& line) {
        if (problems_) problems_->push_back(where_ + ": " + line);
    }

private:
    static std::string what(const char* key, const nlohmann::json& v) {
        std::string shown = v.dump();
        if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
        return "'" + std::string(key) + "' is " + shown + ", ";
    }
    const nlohmann::json& j_;
    std::string where_;
    std::vector<std::string>* problems_;
};

}  // namespace

void ScalarStats::add(double value, int64_t step) {
    if (!std::isfinite(value)) return;
    // Ties keep the first step a minimum or maximum was reached at.
    if (count == 0 || value < min) {
        min = value;
        minStep = step;
    }
    if (count == 0 || value > max) {
        max = value;
        maxStep = step;
    }
    last = value;
    lastStep = step;
    ++count;
}

nlohmann::json ScalarStats::toJson() const {
    return {{kLast, number(last)}, {kMin, number(min)}, {kMax, number(max)}, {kLastStep, lastStep}, {kMinStep, minStep}, {kMaxStep, maxStep}, {kCount, count}};
}

ScalarStats ScalarStats::fromJson(const nlohmann::json& j) { return fromJson(j, nullptr, "scalar"); }

ScalarStats ScalarStats::fromJson(const nlohmann::json& j, std::vector<std::string>* problems, const std::string& where) {
    ScalarStats s;
    if (!j.is_object()) {
        if (problems) problems->push_back(where + ": not an object");
        return s;
    }
    Members m(j, where, problems);
    m.real(kLast, s.last);
    m.real(kMin, s.min);
    m.real(kMax, s.max);
    m.integer(kLastStep, s.lastStep);
    m.integer(kMinStep, s.minStep);
    m.integer(kMaxStep, s.maxStep);
    m.integer(kCount, s.count);
    return s;
}

nlohmann::json RunRecord::toJson() const {
    nlohmann::json scalarsJson = nlohmann::json::object();
    for (const auto& [name, stats] : scalars) scalarsJson[name] = stats.toJson();
    nlohmann::json atBest = nlohmann::json::object();
    for (const auto& [name, v] : best.scalars) atBest[name] = number(v);
    return {{kInfo, info.toJson()},
            {kKind, kind},
            {kSettings, settings},
            {kHost, host},
            {kImages, images},
            {kStartTime, startTime},
            {kWallSeconds, wallSeconds},
            {kImagesPerSecond, number(imagesPerSecond)},
            {kEnergyKwh, number(energyKwh)},
            {kScalars, std::move(scalarsJson)},
            {kBest,
             {{kCheckpoint, best.checkpoint},
              {kSource, best.source},
              {kMetric, best.metric},
              {kValue, number(best.value)},
              {kStep, best.step},
              {kScalars, std::move(atBest)}}},
            {kProblems, problems}};
}

RunRecord RunRecord::fromJson(const nlohmann::json& j) {
    RunRecord r;
    if (!j.is_object()) {
        r.problems.push_back("record: not a JSON object (" + std::string(j.type_name()) + "): nothing of the run could be read");
        return r;
    }
    // The record's own problems first: they were the reader's (a remote host's) findings.
    if (const auto it = j.find(kProblems); it != j.end() && it->is_array())
        for (const auto& p : *it) r.problems.push_back(p.is_string() ? p.get<std::string>() : p.dump());
    Members m(j, "record", &r.problems);
    if (const auto* info = m.object(kInfo)) r.info = RunInfo::fromJson(*info);
    m.text(kKind, r.kind);
    if (const auto* settings = m.object(kSettings)) r.settings = *settings;
    m.text(kHost, r.host);
    m.integer(kImages, r.images);
    m.real(kStartTime, r.startTime);
    m.real(kWallSeconds, r.wallSeconds);
    m.real(kImagesPerSecond, r.imagesPerSecond);
    m.real(kEnergyKwh, r.energyKwh);
    if (const auto* scalars = m.object(kScalars))
        for (auto it = scalars->begin(); it != scalars->end(); ++it)
            r.scalars[it.key()] = ScalarStats::fromJson(*it, &r.problems, "record: scalar '" + it.key() + "'");
    if (const auto* best = m.object(kBest)) {
        Members b(*best, "record: best", &r.problems);
        b.text(kCheckpoint, r.best.checkpoint);
        b.text(kSource, r.best.source);
        b.text(kMetric, r.best.metric);
        b.real(kValue, r.best.value);
        b.integer(kStep, r.best.step);
        if (const auto* atBest = b.object(kScalars))
            for (auto it = atBest->begin(); it != atBest->end(); ++it) {
                if (it->is_number())
                    r.best.scalars[it.key()] = it->get<double>();
                else if (it->is_null())
                    r.best.scalars[it.key()] = ScalarStats::kNone;
                else
                    b.problem("scalar '" + it.key() + "' is " + it->dump() + ", not a number");
            }
    }
    if (const auto it = j.find(kProblems); it == j.end())
        m.problem("'problems' is missing");
    else if (!it->is_array())
        m.problem("'problems' is " + it->dump() + ", not a list");
    return r;
}

}  // namespace streetgan
