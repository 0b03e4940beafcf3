#include "events/EventLineParser.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "base/run/QualityMetric.h"

namespace streetgan::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double orNaN(const std::optional<int64_t>& v) { return v ? static_cast<double>(*v) : kNaN; }
double orNaN(const std::optional<double>& v) { return v ? *v : kNaN; }

void appendRow(MetricColumns& c, const MetricsEvent& m) {
    c.t.push_back(m.t);
    c.step.push_back(orNaN(m.step));
    c.epoch.push_back(orNaN(m.epoch));
    for (const TrainingScalar::Spec& s : TrainingScalar::all()) c[s.key].push_back(m[s.key]);
}

// Lines written before events had a kind: one with any of the metrics is a metrics row.
bool legacyMetrics(const UnknownEvent& u, MetricsEvent& m) {
    if (!u.kind.empty() || !u.fields.is_object()) return false;
    m = u.fields.get<MetricsEvent>();
    return m.hasScalar();
}

}  // namespace

void EventLineParser::add(const Event& event, EventBatch& out) {
    ++out.lines;
    const EventStamp stamp = stampOf(event);
    if (out.firstT == 0 && std::isfinite(stamp.t)) out.firstT = stamp.t;
    if (stamp.step) out.lastStep = *stamp.step;
    if (stamp.totalSteps) out.totalSteps = *stamp.totalSteps;
    if (const auto* m = std::get_if<MetricsEvent>(&event)) {
        // A TensorBoard run's step of other tags only: no row of the dashboard's metrics.
        if (m->scalars.empty() || m->hasScalar()) appendRow(out.metrics, *m);
        for (const auto& [tag, v] : m->scalars) out.scalars.push_back(ScalarPoint{tag, orNaN(m->step), m->t, v});
    } else if (const auto* q = std::get_if<MetricEvent>(&event)) {
        // Checkpoint metrics go to the Scalars tab under the tags TensorBoard gets (metrics/swd,
        // metrics/swd_<px>, metrics/fid, ...): each registered metric's figures (QualityMetric),
        // computed values only, an unavailable one is no point.
        const auto point = [&](const std::string& tag, double v) {
            if (std::isfinite(v)) out.scalars.push_back(ScalarPoint{"metrics/" + tag, orNaN(q->step), q->t, v});
        };
        const nlohmann::json j = toJson(Event(*q));  // metric events are rare: one per checkpoint
        for (const QualityMetric::Spec& metric : QualityMetric::all())
            for (const char* figure : metric.figures)
                if (const auto it = j.find(figure); it != j.end() && it->is_number()) point(figure, it->get<double>());
        for (const auto& [res, v] : q->swdLevels) point(std::string(EventField::kSwd) + "_" + res, v);
    } else if (const auto* s = std::get_if<SystemEvent>(&event)) {
        SystemSample sys;
        sys.t = s->t;
        sys.step = orNaN(s->step);
        sys.cpuPercent = s->cpuPercent;
        sys.rssMb = s->rssMb;
        sys.gpuUtil = orNaN(s->gpuUtil);
        sys.gpuMemMb = orNaN(s->gpuMemMb);
        sys.readMbS = s->readMbS;
        sys.energyJ = orNaN(s->energyJ);
        sys.powerW = orNaN(s->powerW);
        sys.energySource = s->energySource.value_or(std::string());
        sys.unavailable = s->unavailable;
        out.system.push_back(std::move(sys));
    } else if (const auto* sample = std::get_if<SampleEvent>(&event)) {
        out.samples.push_back(RunFileRef{sample->step.value_or(0), sample->path});
    } else if (const auto* c = std::get_if<CheckpointEvent>(&event)) {
        out.checkpoints.push_back(RunFileRef{c->step.value_or(0), c->path});
    } else if (const auto* status = std::get_if<StatusEvent>(&event)) {
        out.state = status->state;
        if (status->device && !status->device->empty()) out.device = *status->device;
    } else if (const auto* data = std::get_if<DataEvent>(&event)) {
        if (data->stepsPerEpoch) out.stepsPerEpoch = *data->stepsPerEpoch;
        // The trainer's one line on a loader that holds the step back (core/base/run/LoaderAdvice),
        // without the "data: " its log line starts with (the app says whose words they are).
        if (const auto advice = data->extra.find("loader_advice"); advice != data->extra.end() && advice->is_object())
            if (const auto message = advice->find("message"); message != advice->end() && message->is_string()) {
                out.loaderAdvice = message->get<std::string>();
                if (out.loaderAdvice.rfind("data: ", 0) == 0) out.loaderAdvice.erase(0, 6);
            }
    } else if (const auto* error = std::get_if<ErrorEvent>(&event)) {
        out.errors.push_back(error->message);
    } else if (const auto* unknown = std::get_if<UnknownEvent>(&event)) {
        MetricsEvent m;
        if (legacyMetrics(*unknown, m)) appendRow(out.metrics, m);
    }
}

bool EventLineParser::parseEvent(std::string_view line, EventBatch& out) {
    const ParsedEvent parsed = reader_.read(line);
    if (!parsed.ok()) {
        ++badLines_;
        return false;
    }
    add(parsed.event, out);
    return true;
}

bool EventLineParser::parseProtocol(std::string_view line, EventBatch& out) {
    const ParsedAttachLine parsed = reader_.readAttach(line);
    if (!parsed.ok()) {
        ++badLines_;
        return false;
    }
    const AttachLine& a = parsed.line;
    switch (a.type) {
        case AttachLine::Type::Event:
            add(a.event, out);
            if (a.end) out.endOffset = static_cast<int64_t>(*a.end);
            break;
        case AttachLine::Type::Reply:
            out.replies.push_back(a.reply.dump());
            break;
        case AttachLine::Type::Live:
            out.live = true;
            if (a.offset) out.endOffset = static_cast<int64_t>(*a.offset);
            out.liveState = a.state;
            break;
        case AttachLine::Type::End:
            out.ended = true;
            out.endState = a.state;
            if (a.offset) out.endOffset = static_cast<int64_t>(*a.offset);
            break;
    }
    return true;
}

size_t EventLineParser::parseEventChunk(std::string_view data, int64_t baseOffset, EventBatch& out) {
    size_t pos = 0;
    while (pos < data.size()) {
        const void* nl = std::memchr(data.data() + pos, '\n', data.size() - pos);
        if (!nl) break;
        const size_t lineEnd = static_cast<size_t>(static_cast<const char*>(nl) - data.data());
        if (lineEnd > pos) parseEvent(data.substr(pos, lineEnd - pos), out);
        pos = lineEnd + 1;
        out.endOffset = baseOffset + static_cast<int64_t>(pos);
    }
    return pos;
}

}  // namespace streetgan::ui
