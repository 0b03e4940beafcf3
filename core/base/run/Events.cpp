// The event schema as one table (Schema<E> below: each kind's name, and each of its members with
// the field it is read from and written to and how), and the conversions that table drives both
// ways: a filled EventFieldBag -> struct (every reader: from_json, nlohmann's SAX parser, the
// strict scan, see EventReader.cpp), and struct -> JSON (to_json). A member is spelled once here;
// adding one to a kind is one line of its table.
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <type_traits>

#include "base/run/EventFieldBag.h"
#include "base/run/Events.h"

namespace streetgan {
namespace events {
namespace {

using json = nlohmann::json;
namespace K = EventKind;

// How a member is read from a line and written back. Whatever is read but does not fit stays in
// the struct's `extra` and is written back as read, so a line read and written again is the same.
enum class Codec : uint8_t {
    Stamp,        ///< double "t": absent or null reads as NaN; NaN is not written
    Always,       ///< double (NaN reads from null and is written as null), string, map: always written
    IfSet,        ///< optional: written when set (a NaN double as null); null is not a value
    NullIsNaN,    ///< optional<double>: null reads as NaN, an "unavailable" figure, written back as null
    NullIfUnset,  ///< optional: null reads as unset, and unset is written as null (a GPU reading)
    IfNotEmpty,   ///< map, vector: written when not empty; read only as a non-empty one that fits
    IfNumber,     ///< double: read only from a number (a null stays in extra), written only when not NaN
};

template <class E, class M>
struct Member {
    Field field;
    M E::*ptr;
    Codec codec;
};
template <class E, class M>
M stripMember(const Member<E, M>&);  // the member's type, in unevaluated contexts
template <class E, class M>
constexpr Member<E, M> member(Field f, M E::*ptr, Codec codec) {
    return {f, ptr, codec};
}

// ---------------------------------------------------------------------------------------------
// The schema: one table per kind.

template <class E>
struct Schema;

template <>
struct Schema<StatusEvent> {
    static constexpr const char* kKind = K::kStatus;
    static constexpr auto kMembers = std::make_tuple(  //
        member(fT, &StatusEvent::t, Codec::Stamp), member(fState, &StatusEvent::state, Codec::Always), member(fStep, &StatusEvent::step, Codec::IfSet),
        member(fTotalSteps, &StatusEvent::totalSteps, Codec::IfSet), member(fPid, &StatusEvent::pid, Codec::IfSet),
        member(fDevice, &StatusEvent::device, Codec::IfSet), member(fData, &StatusEvent::data, Codec::IfSet),
        member(fResumedFrom, &StatusEvent::resumedFrom, Codec::IfSet));
};

template <>
struct Schema<DataEvent> {
    static constexpr const char* kKind = K::kData;
    static constexpr auto kMembers = std::make_tuple(  //
        member(fT, &DataEvent::t, Codec::Stamp), member(fStep, &DataEvent::step, Codec::IfSet), member(fSource, &DataEvent::source, Codec::IfSet),
        member(fImages, &DataEvent::images, Codec::IfSet), member(fStepsPerEpoch, &DataEvent::stepsPerEpoch, Codec::IfSet),
        member(fSkipped, &DataEvent::skipped, Codec::Always));
};

template <>
struct Schema<MetricsEvent> {
    static constexpr const char* kKind = K::kMetrics;
    static constexpr auto kMembers = std::make_tuple(  //
        member(fT, &MetricsEvent::t, Codec::Stamp), member(fStep, &MetricsEvent::step, Codec::IfSet), member(fEpoch, &MetricsEvent::epoch, Codec::IfSet),
        member(fTotalSteps, &MetricsEvent::totalSteps, Codec::IfSet),
    // the training scalars, in their table's order (TrainingScalar.h)
#define STREETGAN_TRAINING_SCALAR_ROW(key, mem, field, label, unit, tag, group, source, written) \
    member(f##key, &MetricsEvent::mem, TrainingScalar::Written::written == TrainingScalar::Written::Always ? Codec::Always : Codec::IfNumber),
        STREETGAN_TRAINING_SCALARS(STREETGAN_TRAINING_SCALAR_ROW)
#undef STREETGAN_TRAINING_SCALAR_ROW
            member(fWorldSize, &MetricsEvent::worldSize, Codec::IfSet),
        member(fScalars, &MetricsEvent::scalars, Codec::IfNotEmpty));
};

template <>
struct Schema<SystemEvent> {
    static constexpr const char* kKind = K::kSystem;
    static constexpr auto kMembers = std::make_tuple(  //
        member(fT, &SystemEvent::t, Codec::Stamp), member(fStep, &SystemEvent::step, Codec::IfSet),
        member(fCpuPercent, &SystemEvent::cpuPercent, Codec::Always), member(fRssMb, &SystemEvent::rssMb, Codec::Always),
        member(fReadMbS, &SystemEvent::readMbS, Codec::Always), member(fGpuUtil, &SystemEvent::gpuUtil, Codec::NullIfUnset),
        member(fGpuMemMb, &SystemEvent::gpuMemMb, Codec::NullIfUnset), member(fGpuMemTotalMb, &SystemEvent::gpuMemTotalMb, Codec::NullIfUnset),
        member(fEnergyJ, &SystemEvent::energyJ, Codec::NullIsNaN), member(fPowerW, &SystemEvent::powerW, Codec::NullIsNaN),
        member(fEnergySource, &SystemEvent::energySource, Codec::IfSet), member(fUnavailable, &SystemEvent::unavailable, Codec::IfNotEmpty));
};

template <>
struct Schema<CheckpointEvent> {
    static constexpr const char* kKind = K::kCheckpoint;
    static constexpr auto kMembers = std::make_tuple(  //
        member(fT, &CheckpointEvent::t, Codec::Stamp), member(fStep, &CheckpointEvent::step, Codec::IfSet),
        member(fEpoch, &CheckpointEvent::epoch, Codec::IfSet), member(fPath, &CheckpointEvent::path, Codec::Always));
};

template <>
struct Schema<SampleEvent> {
    static constexpr const char* kKind = K::kSample;
    static constexpr auto kMembers = std::make_tuple(  //
        member(fT, &SampleEvent::t, Codec::Stamp), member(fStep, &SampleEvent::step, Codec::IfSet), member(fEpoch, &SampleEvent::epoch, Codec::IfSet),
        member(fPath, &SampleEvent::path, Codec::Always));
};

template <>
struct Schema<MetricEvent> {
    static constexpr const char* kKind = K::kMetric;
    static constexpr auto kMembers = std::make_tuple(  //
        member(fT, &MetricEvent::t, Codec::Stamp), member(fStep, &MetricEvent::step, Codec::IfSet), member(fFid, &MetricEvent::fid, Codec::NullIsNaN),
        member(fKid, &MetricEvent::kid, Codec::NullIsNaN), member(fKidStd, &MetricEvent::kidStd, Codec::NullIsNaN),
        member(fPrecision, &MetricEvent::precision, Codec::NullIsNaN), member(fRecall, &MetricEvent::recall, Codec::NullIsNaN),
        member(fKidSubsets, &MetricEvent::kidSubsets, Codec::IfSet), member(fKidSubsetSize, &MetricEvent::kidSubsetSize, Codec::IfSet),
        member(fPrK, &MetricEvent::prK, Codec::IfSet), member(fFidUnavailable, &MetricEvent::fidUnavailable, Codec::IfSet),
        member(fKidUnavailable, &MetricEvent::kidUnavailable, Codec::IfSet), member(fPrUnavailable, &MetricEvent::prUnavailable, Codec::IfSet),
        member(fFeatures, &MetricEvent::features, Codec::IfSet), member(fFeaturesSha256, &MetricEvent::featuresSha256, Codec::IfSet),
        member(fRealCache, &MetricEvent::realCache, Codec::IfSet), member(fFeatureDim, &MetricEvent::featureDim, Codec::IfSet),
        member(fSamples, &MetricEvent::samples, Codec::IfSet), member(fRealSamples, &MetricEvent::realSamples, Codec::IfSet),
        member(fTiming, &MetricEvent::timing, Codec::IfSet), member(fSeconds, &MetricEvent::seconds, Codec::NullIsNaN),
        member(fWarnings, &MetricEvent::warnings, Codec::IfNotEmpty),
        // the sliced Wasserstein distance
        member(fSwd, &MetricEvent::swd, Codec::NullIsNaN), member(fSwdLevels, &MetricEvent::swdLevels, Codec::IfNotEmpty),
        member(fSwdUnavailable, &MetricEvent::swdUnavailable, Codec::IfSet), member(fSwdSamples, &MetricEvent::swdSamples, Codec::IfSet),
        member(fSwdRealCache, &MetricEvent::swdRealCache, Codec::IfSet));
};

template <>
struct Schema<ControlEvent> {
    static constexpr const char* kKind = K::kControl;
    static constexpr auto kMembers = std::make_tuple(  //
        member(fT, &ControlEvent::t, Codec::Stamp), member(fCmd, &ControlEvent::cmd, Codec::Always), member(fStep, &ControlEvent::step, Codec::IfSet),
        member(fValue, &ControlEvent::value, Codec::IfSet));
};

template <>
struct Schema<ErrorEvent> {
    static constexpr const char* kKind = K::kError;
    static constexpr auto kMembers = std::make_tuple(  //
        member(fT, &ErrorEvent::t, Codec::Stamp), member(fStep, &ErrorEvent::step, Codec::IfSet), member(fMessage, &ErrorEvent::message, Codec::Always));
};

template <>
struct Schema<BestEvent> {
    static constexpr const char* kKind = K::kBest;
    static constexpr auto kMembers = std::make_tuple(  //
        member(fT, &BestEvent::t, Codec::Stamp), member(fStep, &BestEvent::step, Codec::IfSet), member(fEpoch, &BestEvent::epoch, Codec::IfSet),
        member(fPath, &BestEvent::path, Codec::Always), member(fSource, &BestEvent::source, Codec::IfSet), member(fMetric, &BestEvent::metric, Codec::Always),
        member(fValue, &BestEvent::value, Codec::Always));
};

// ---------------------------------------------------------------------------------------------
// Reading a member from the bag, by its type and codec.

void readInto(EventFieldBag& b, Field f, Codec c, double& v) { v = c == Codec::IfNumber ? b.optNumber(f, false).value_or(kNoValue) : b.number(f); }
void readInto(EventFieldBag& b, Field f, Codec, std::string& v) { v = b.string(f); }
void readInto(EventFieldBag& b, Field f, Codec, std::optional<std::string>& v) { v = b.optString(f); }
void readInto(EventFieldBag& b, Field f, Codec c, std::optional<int64_t>& v) {
    if (c == Codec::NullIfUnset && b.isNull(f))
        b.use(f);
    else
        v = b.integer(f);
}
void readInto(EventFieldBag& b, Field f, Codec c, std::optional<double>& v) {
    if (c == Codec::NullIfUnset && b.isNull(f))
        b.use(f);
    else
        v = b.optNumber(f, c == Codec::NullIsNaN);
}

// A nested member: read only when it has the form the field expects, else kept in `extra`.
template <class V>
bool fits(const json& v) {
    if constexpr (std::is_same_v<V, int64_t>)
        return v.is_number_integer();
    else if constexpr (std::is_same_v<V, double>)
        return v.is_number() || v.is_null();
    else
        return std::is_same_v<V, std::string> && v.is_string();
}
template <class V>
V nestedValue(const json& v) {
    if constexpr (std::is_same_v<V, double>)
        return v.is_null() ? kNoValue : v.get<double>();
    else
        return v.get<V>();
}
template <class Container>
bool fitsContainer(const json& v, Codec c) {
    using V = typename Container::value_type;
    constexpr bool kIsMap = !std::is_same_v<V, std::string>;
    if (kIsMap ? !v.is_object() : !v.is_array()) return false;
    if (c == Codec::IfNotEmpty && v.empty()) return false;
    for (const json& x : v)
        if constexpr (kIsMap) {
            if (!fits<typename Container::mapped_type>(x)) return false;
        } else {
            if (!fits<V>(x)) return false;
        }
    return true;
}
template <class V>
void readNested(const json& j, Codec, std::map<std::string, V>& v) {
    for (auto it = j.begin(); it != j.end(); ++it) v[it.key()] = nestedValue<V>(*it);
}
void readNested(const json& j, Codec, std::vector<std::string>& v) { j.get_to(v); }
template <class V>
bool fitsNested(const json& j, Codec c, const std::map<std::string, V>&) {
    return fitsContainer<std::map<std::string, V>>(j, c);
}
bool fitsNested(const json& j, Codec c, const std::vector<std::string>&) { return fitsContainer<std::vector<std::string>>(j, c); }

// The timing object: exactly its three phases, each a number.
constexpr std::array<std::pair<const char*, double MetricTiming::*>, 3> kTimingPhases{{
    {EventField::kTimingRealFeatures, &MetricTiming::realFeatures},
    {EventField::kTimingGeneratedFeatures, &MetricTiming::generatedFeatures},
    {EventField::kTimingMetrics, &MetricTiming::metrics},
}};
bool fitsNested(const json& j, Codec, const std::optional<MetricTiming>&) {
    if (!j.is_object() || j.size() != kTimingPhases.size()) return false;
    for (const auto& [name, ptr] : kTimingPhases) {
        const auto it = j.find(name);
        if (it == j.end() || !it->is_number()) return false;
    }
    return true;
}
void readNested(const json& j, Codec, std::optional<MetricTiming>& v) {
    v.emplace();
    for (const auto& [name, ptr] : kTimingPhases) (*v).*ptr = j.at(name).get<double>();
}

// Nested members (objects, arrays) are read from the bag's extra, scalar ones from their slots.
template <class M>
constexpr bool kIsNested = !std::is_same_v<M, double> && !std::is_same_v<M, std::string> && !std::is_same_v<M, std::optional<double>> &&
                           !std::is_same_v<M, std::optional<int64_t>> && !std::is_same_v<M, std::optional<std::string>>;

// Each member of a kind's table names a field of its own form: a slot for a scalar, extra for a
// nested one.
template <class E>
constexpr bool tableIsConsistent() {
    return std::apply([](const auto&... m) { return (((m.field < kScalarFieldCount) == !kIsNested<decltype(stripMember(m))>)&&...); }, Schema<E>::kMembers);
}

template <class E, class M>
void readMember(EventFieldBag& b, E& e, const Member<E, M>& m) {
    if constexpr (!kIsNested<M>) {
        readInto(b, m.field, m.codec, e.*(m.ptr));
    } else {
        const char* name = fieldName(m.field);
        const json* j = b.nested(name);
        if (j && fitsNested(*j, m.codec, e.*(m.ptr))) {
            readNested(*j, m.codec, e.*(m.ptr));
            b.drop(name);
        }
    }
}

template <class E>
E fromBag(EventFieldBag& b) {
    if (b.has(fKind) && b.slot(fKind).type == SlotType::String) b.use(fKind);
    E e;
    std::apply([&](const auto&... m) { (readMember(b, e, m), ...); }, Schema<E>::kMembers);
    e.extra = b.rest();
    return e;
}

// ---------------------------------------------------------------------------------------------
// Writing a member, by its type and codec.

json numberJson(double v) { return std::isnan(v) ? json(nullptr) : json(v); }  // what dump() writes for NaN anyway
template <class V>
json valueJson(const V& v) {
    if constexpr (std::is_same_v<V, double>)
        return numberJson(v);
    else if constexpr (std::is_same_v<V, MetricTiming>) {
        json t = json::object();
        for (const auto& [name, ptr] : kTimingPhases) t[name] = v.*ptr;
        return t;
    } else if constexpr (std::is_same_v<V, std::map<std::string, double>>) {
        json m = json::object();
        for (const auto& [k, x] : v) m[k] = numberJson(x);
        return m;
    } else
        return json(v);
}
template <class V>
std::optional<json> writtenJson(const V& v, Codec c) {
    if constexpr (std::is_same_v<V, double>) {
        if ((c == Codec::Stamp || c == Codec::IfNumber) && std::isnan(v)) return std::nullopt;
    } else if constexpr (!std::is_same_v<V, std::string>) {
        if (c == Codec::IfNotEmpty && v.empty()) return std::nullopt;
    }
    return valueJson(v);
}
template <class V>
std::optional<json> writtenJson(const std::optional<V>& v, Codec c) {
    if (v) return valueJson(*v);
    if (c == Codec::NullIfUnset) return json(nullptr);
    return std::nullopt;
}

// A member in `extra` wins over the named field written before it: the reader puts a named member
// there only when it had an unexpected type, and the field then holds its default ("" for a
// message or a path, {} for skipped), which must not replace what the line said (found by fuzzing:
// {"kind":"error","message":[1]} was written back as "message":"").
template <class E>
json toJsonOf(const E& e) {
    json j{{EventField::kKind, Schema<E>::kKind}};
    std::apply(
        [&](const auto&... m) {
            const auto write = [&](const auto& mem) {
                if (auto v = writtenJson(e.*(mem.ptr), mem.codec)) j[fieldName(mem.field)] = std::move(*v);
            };
            (write(m), ...);
        },
        Schema<E>::kMembers);
    if (e.extra.is_object())
        for (auto it = e.extra.begin(); it != e.extra.end(); ++it) j[it.key()] = it.value();
    return j;
}

// The kinds of Event in its order (metrics, by far the most frequent, first), but UnknownEvent.
template <size_t I = 0>
Event typedByKind(std::string_view kind, EventFieldBag& b) {
    if constexpr (I + 1 < std::variant_size_v<Event>) {
        using E = std::variant_alternative_t<I, Event>;
        static_assert(tableIsConsistent<E>(), "a nested member names a scalar field, or the reverse");
        if (kind == Schema<E>::kKind) return fromBag<E>(b);
        return typedByKind<I + 1>(kind, b);
    } else {
        static_assert(std::is_same_v<std::variant_alternative_t<I, Event>, UnknownEvent>);
        return UnknownEvent{std::string(kind), b.rest()};
    }
}

template <class E>
void fromJsonVia(const json& j, E& e) {
    EventFieldBag b;
    b.fill(j);
    e = fromBag<E>(b);
}

template <class... Fs>
struct Overloaded : Fs... {
    using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

std::optional<int64_t> integerIn(const json& j, const char* key) {
    if (!j.is_object()) return std::nullopt;
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return std::nullopt;
    if (it->is_number_integer()) return it->get<int64_t>();
    const double d = it->get<double>();
    return isIntegral(d) ? std::optional<int64_t>(static_cast<int64_t>(d)) : std::nullopt;
}

// The epoch and total steps of the kinds that have them (overload resolution picks int over long).
template <class T>
auto epochOf(const T& e, int) -> decltype(std::optional<int64_t>(e.epoch)) {
    return e.epoch;
}
template <class T>
std::optional<int64_t> epochOf(const T&, long) {
    return std::nullopt;
}
template <class T>
auto totalStepsOf(const T& e, int) -> decltype(std::optional<int64_t>(e.totalSteps)) {
    return e.totalSteps;
}
template <class T>
std::optional<int64_t> totalStepsOf(const T&, long) {
    return std::nullopt;
}

EventStamp stampIn(const json& j) {
    EventStamp s;
    if (j.is_object()) {
        const auto t = j.find(EventField::kT);
        if (t != j.end() && t->is_number()) s.t = t->get<double>();
    }
    s.step = integerIn(j, EventField::kStep);
    s.epoch = integerIn(j, EventField::kEpoch);
    s.totalSteps = integerIn(j, EventField::kTotalSteps);
    return s;
}

}  // namespace

Event eventFromBag(EventFieldBag& b) {
    if (!b.has(fKind) || b.slot(fKind).type != SlotType::String) return UnknownEvent{std::string(), b.rest()};
    return typedByKind(b.slot(fKind).s, b);
}

}  // namespace events

using events::fromJsonVia;
using events::toJsonOf;
using json = nlohmann::json;

namespace {
#define STREETGAN_TRAINING_SCALAR_POINTER(key, mem, ...) &MetricsEvent::mem,
constexpr std::array<double MetricsEvent::*, TrainingScalar::kCount> kScalarMembers = {STREETGAN_TRAINING_SCALARS(STREETGAN_TRAINING_SCALAR_POINTER)};
#undef STREETGAN_TRAINING_SCALAR_POINTER
}  // namespace

double& MetricsEvent::operator[](TrainingScalar::Key key) { return this->*kScalarMembers[TrainingScalar::index(key)]; }
double MetricsEvent::operator[](TrainingScalar::Key key) const { return this->*kScalarMembers[TrainingScalar::index(key)]; }
bool MetricsEvent::hasScalar() const {
    for (const auto m : kScalarMembers)
        if (!std::isnan(this->*m)) return true;
    return false;
}

void to_json(json& j, const StatusEvent& e) { j = toJsonOf(e); }
void to_json(json& j, const DataEvent& e) { j = toJsonOf(e); }
void to_json(json& j, const MetricsEvent& e) { j = toJsonOf(e); }
void to_json(json& j, const SystemEvent& e) { j = toJsonOf(e); }
void to_json(json& j, const CheckpointEvent& e) { j = toJsonOf(e); }
void to_json(json& j, const SampleEvent& e) { j = toJsonOf(e); }
void to_json(json& j, const MetricEvent& e) { j = toJsonOf(e); }
void to_json(json& j, const ControlEvent& e) { j = toJsonOf(e); }
void to_json(json& j, const ErrorEvent& e) { j = toJsonOf(e); }
void to_json(json& j, const BestEvent& e) { j = toJsonOf(e); }

void to_json(json& j, const UnknownEvent& e) {
    j = e.fields;
    if (j.is_null()) j = json::object();
    if (j.is_object() && !e.kind.empty() && !j.contains(EventField::kKind)) j[EventField::kKind] = e.kind;
}

void from_json(const json& j, StatusEvent& e) { fromJsonVia(j, e); }
void from_json(const json& j, DataEvent& e) { fromJsonVia(j, e); }
void from_json(const json& j, MetricsEvent& e) { fromJsonVia(j, e); }
void from_json(const json& j, SystemEvent& e) { fromJsonVia(j, e); }
void from_json(const json& j, CheckpointEvent& e) { fromJsonVia(j, e); }
void from_json(const json& j, SampleEvent& e) { fromJsonVia(j, e); }
void from_json(const json& j, MetricEvent& e) { fromJsonVia(j, e); }
void from_json(const json& j, ControlEvent& e) { fromJsonVia(j, e); }
void from_json(const json& j, ErrorEvent& e) { fromJsonVia(j, e); }
void from_json(const json& j, BestEvent& e) { fromJsonVia(j, e); }

json toJson(const Event& event) {
    return std::visit([](const auto& e) { return json(e); }, event);
}

Event eventFromJson(const json& j) {
    if (!j.is_object()) return UnknownEvent{std::string(), j};
    events::EventFieldBag b;
    b.fill(j);
    return events::eventFromBag(b);
}

std::string kindOf(const Event& event) {
    return std::visit(events::Overloaded{[](const UnknownEvent& e) { return e.kind; },
                                         [](const auto& e) { return std::string(events::Schema<std::decay_t<decltype(e)>>::kKind); }},
                      event);
}

void setTime(Event& event, double t) {
    std::visit(events::Overloaded{[&](UnknownEvent& e) {
                                      if (e.fields.is_object()) e.fields[EventField::kT] = t;
                                  },
                                  [&](auto& e) { e.t = t; }},
               event);
}

EventStamp stampOf(const Event& event) {
    using events::stampIn;
    return std::visit(events::Overloaded{[](const UnknownEvent& e) { return stampIn(e.fields); },
                                         [](const auto& e) {
                                             // The kind's own fields, else what its extra members say.
                                             EventStamp s = stampIn(e.extra);
                                             if (!std::isnan(e.t)) s.t = e.t;
                                             if (e.step) s.step = e.step;
                                             if (const auto epoch = events::epochOf(e, 0)) s.epoch = epoch;
                                             if (const auto total = events::totalStepsOf(e, 0)) s.totalSteps = total;
                                             return s;
                                         }},
                      event);
}

json attachEventJson(uint64_t offset, uint64_t end, json event) {
    return json{{EventField::kOffset, offset}, {EventField::kEnd, end}, {EventField::kEvent, std::move(event)}};
}
json attachLiveJson(uint64_t offset, const std::string& state) {
    return json{{EventField::kLive, true}, {EventField::kOffset, offset}, {EventField::kState, state}};
}
json attachEndJson(uint64_t offset, const std::string& state) {
    return json{{EventField::kEnd, true}, {EventField::kOffset, offset}, {EventField::kState, state}};
}
json attachReplyJson(json reply) { return json{{EventField::kReply, std::move(reply)}}; }

}  // namespace streetgan
