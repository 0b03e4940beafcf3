// The event schema's conversions and its line reader. Every way in (a JSON object, nlohmann's SAX
// parser, the strict single-pass scan) fills one FieldBag: a slot per scalar member the schema
// names, plus `extra` for everything else; one function per kind then turns the bag into its
// struct. So a field name maps to a struct member in exactly one place whichever way it came in.
// Longer than our usual files on purpose: the field table, the bag, the per-kind conversions
// both ways and the two readers that fill the bag are one unit, private to this file; split, the
// bag would become a second public interface of the schema.
#include "base/run/Events.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace streetgan {
namespace {

using json = nlohmann::json;
namespace F = EventField;
namespace K = EventKind;

// ---------------------------------------------------------------------------------------------
// The scalar members the schema names (nested ones, e.g. "skipped", live in FieldBag::extra).

enum Field : uint8_t {
    fKind,
    fT,
    fStep,
    fEpoch,
    fTotalSteps,
    fState,
    fPid,
    fDevice,
    fData,
    fResumedFrom,
    fSource,
    fImages,
    fStepsPerEpoch,
    fPath,
    fLossD,
    fLossG,
    fDX,
    fDGz1,
    fDGz2,
    fLr,
    fImgPerS,
    fDataWait,
    fWorldSize,
    fCpuPercent,
    fRssMb,
    fReadMbS,
    fGpuUtil,
    fGpuMemMb,
    fGpuMemTotalMb,
    fEnergyJ,
    fPowerW,
    fEnergySource,
    fFid,
    fKid,
    fKidStd,
    fKidSubsets,
    fKidSubsetSize,
    fPrecision,
    fRecall,
    fPrK,
    fFidUnavailable,
    fKidUnavailable,
    fPrUnavailable,
    fFeatures,
    fFeaturesSha256,
    fFeatureDim,
    fSamples,
    fRealSamples,
    fRealCache,
    fSeconds,
    fCmd,
    fValue,
    fMessage,
    fOffset,
    fEnd,
    fLive,
    kFieldCount,
    kNoField = 255
};
static_assert(kFieldCount <= 64, "FieldBag keeps presence in a 64-bit mask");

constexpr std::string_view kFieldNames[kFieldCount] = {
    F::kKind,
    F::kT,
    F::kStep,
    F::kEpoch,
    F::kTotalSteps,
    F::kState,
    F::kPid,
    F::kDevice,
    F::kData,
    F::kResumedFrom,
    F::kSource,
    F::kImages,
    F::kStepsPerEpoch,
    F::kPath,
    F::kLossD,
    F::kLossG,
    F::kDX,
    F::kDGz1,
    F::kDGz2,
    F::kLr,
    F::kImgPerS,
    F::kDataWait,
    F::kWorldSize,
    F::kCpuPercent,
    F::kRssMb,
    F::kReadMbS,
    F::kGpuUtil,
    F::kGpuMemMb,
    F::kGpuMemTotalMb,
    F::kEnergyJ,
    F::kPowerW,
    F::kEnergySource,
    F::kFid,
    F::kKid,
    F::kKidStd,
    F::kKidSubsets,
    F::kKidSubsetSize,
    F::kPrecision,
    F::kRecall,
    F::kPrK,
    F::kFidUnavailable,
    F::kKidUnavailable,
    F::kPrUnavailable,
    F::kFeatures,
    F::kFeaturesSha256,
    F::kFeatureDim,
    F::kSamples,
    F::kRealSamples,
    F::kRealCache,
    F::kSeconds,
    F::kCmd,
    F::kValue,
    F::kMessage,
    F::kOffset,
    F::kEnd,
    F::kLive,
};

// Name -> Field by open addressing: a line has a dozen keys and a million lines are read, so this
// is a hash of three bytes and one comparison, not a std::map walk.
class FieldTable {
public:
    FieldTable() {
        table_.fill(kNoField);
        for (uint8_t f = 0; f < kFieldCount; ++f) {
            size_t h = hash(kFieldNames[f]);
            while (table_[h] != kNoField) h = (h + 1) & kMask;
            table_[h] = f;
        }
    }
    Field find(std::string_view key) const {
        if (key.empty()) return kNoField;
        for (size_t h = hash(key); table_[h] != kNoField; h = (h + 1) & kMask)
            if (kFieldNames[table_[h]] == key) return static_cast<Field>(table_[h]);
        return kNoField;
    }

private:
    static constexpr size_t kMask = 255;
    static size_t hash(std::string_view k) {
        const auto b = [&](size_t i) { return static_cast<size_t>(static_cast<unsigned char>(k[i])); };
        return (k.size() * 37 + b(0) * 7 + b(k.size() - 1) * 3 + b(k.size() / 2)) & kMask;
    }
    std::array<uint8_t, kMask + 1> table_;
};

const FieldTable& fields() {
    static const FieldTable table;
    return table;
}

// ---------------------------------------------------------------------------------------------
// FieldBag: one object's members, before they become a struct.

enum class SlotType : uint8_t { Null, Bool, Int, UInt, Float, String };

struct Slot {
    SlotType type = SlotType::Null;
    bool b = false;
    int64_t i = 0;
    uint64_t u = 0;
    double d = 0;
    std::string_view s;  // into the line, the source JSON, or the reader's own copy
};

constexpr uint64_t bit(Field f) { return uint64_t{1} << f; }

bool isIntegral(double d) { return std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.2e18; }

class FieldBag {
public:
    void clear() {
        present_ = used_ = 0;
        hasEvent_ = false;
        if (!extra_.is_null()) extra_ = nullptr;
    }
    Slot& put(Field f) {
        present_ |= bit(f);
        return slot_[f];
    }
    void addExtra(std::string_view key, json value) {
        if (!extra_.is_object()) extra_ = json::object();
        extra_[std::string(key)] = std::move(value);
    }
    void setHasEvent() { hasEvent_ = true; }
    bool hasEvent() const { return hasEvent_; }
    bool has(Field f) const { return (present_ & bit(f)) != 0; }
    const Slot& slot(Field f) const { return slot_[f]; }
    void use(Field f) { used_ |= bit(f); }

    // Typed reads. Each marks the slot used when its type fits; a slot left unused ends up in
    // the struct's `extra`, so nothing read is lost.
    double number(Field f) {
        if (!has(f)) return kNoValue;
        const Slot& s = slot_[f];
        switch (s.type) {
            case SlotType::Null:
                use(f);
                return kNoValue;
            case SlotType::Int:
                use(f);
                return static_cast<double>(s.i);
            case SlotType::UInt:
                use(f);
                return static_cast<double>(s.u);
            case SlotType::Float:
                use(f);
                return s.d;
            default:
                return kNoValue;
        }
    }
    /// A number; null reads as NaN when `nullIsNaN` (the metric event's "unavailable"), else as
    /// absent.
    std::optional<double> optNumber(Field f, bool nullIsNaN) {
        if (!has(f)) return std::nullopt;
        if (slot_[f].type == SlotType::Null) {
            use(f);
            return nullIsNaN ? std::optional<double>(kNoValue) : std::nullopt;
        }
        const double d = number(f);
        return (used_ & bit(f)) ? std::optional<double>(d) : std::nullopt;
    }
    std::optional<int64_t> integer(Field f) {
        if (!has(f)) return std::nullopt;
        const Slot& s = slot_[f];
        if (s.type == SlotType::Int) return use(f), s.i;
        if (s.type == SlotType::UInt && s.u <= static_cast<uint64_t>(INT64_MAX)) return use(f), static_cast<int64_t>(s.u);
        if (s.type == SlotType::Float && isIntegral(s.d)) return use(f), static_cast<int64_t>(s.d);
        return std::nullopt;
    }
    /// A non-negative JSON integer (the attach protocol's offsets).
    std::optional<uint64_t> offset(Field f) {
        if (!has(f)) return std::nullopt;
        const Slot& s = slot_[f];
        if (s.type == SlotType::UInt) return use(f), s.u;
        if (s.type == SlotType::Int && s.i >= 0) return use(f), static_cast<uint64_t>(s.i);
        return std::nullopt;
    }
    std::optional<std::string> optString(Field f) {
        if (!has(f) || slot_[f].type != SlotType::String) return std::nullopt;
        use(f);
        return std::string(slot_[f].s);
    }
    std::string string(Field f) { return optString(f).value_or(std::string()); }
    std::optional<bool> boolean(Field f) {
        if (!has(f) || slot_[f].type != SlotType::Bool) return std::nullopt;
        use(f);
        return slot_[f].b;
    }
    /// Removes and returns the nested or unnamed member `key` (null when absent).
    json take(const char* key) {
        if (!extra_.is_object()) return nullptr;
        const auto it = extra_.find(key);
        if (it == extra_.end()) return nullptr;
        json v = std::move(*it);
        extra_.erase(it);
        return v;
    }
    /// Puts back a member take() returned that did not have the expected form.
    void putBack(const char* key, json v) {
        if (!v.is_null()) addExtra(key, std::move(v));
    }
    /// Every member not read into a struct field: the struct's `extra` (null when none).
    json rest() {
        json r = std::move(extra_);
        extra_ = nullptr;
        for (uint64_t left = present_ & ~used_; left != 0; left &= left - 1) {
            const auto f = static_cast<Field>(__builtin_ctzll(left));
            if (!r.is_object()) r = json::object();
            r[std::string(kFieldNames[f])] = slotJson(slot_[f]);
        }
        if (r.is_object() && r.empty()) r = nullptr;
        return r;
    }

private:
    static json slotJson(const Slot& s) {
        switch (s.type) {
            case SlotType::Null:
                return nullptr;
            case SlotType::Bool:
                return s.b;
            case SlotType::Int:
                return s.i;
            case SlotType::UInt:
                return s.u;
            case SlotType::Float:
                return s.d;
            case SlotType::String:
                return std::string(s.s);
        }
        return nullptr;
    }

    uint64_t present_ = 0, used_ = 0;
    bool hasEvent_ = false;  // an attach line's "event" object went to the event bag
    std::array<Slot, kFieldCount> slot_{};
    json extra_;
};

void setSlot(FieldBag& bag, std::string_view key, const json& v) {
    const Field f = fields().find(key);
    if (f == kNoField) {
        bag.addExtra(key, v);
        return;
    }
    Slot s;
    switch (v.type()) {
        case json::value_t::null:
            s.type = SlotType::Null;
            break;
        case json::value_t::boolean:
            s.type = SlotType::Bool, s.b = v.get<bool>();
            break;
        case json::value_t::number_integer:
            s.type = SlotType::Int, s.i = v.get<int64_t>();
            break;
        case json::value_t::number_unsigned:
            s.type = SlotType::UInt, s.u = v.get<uint64_t>();
            break;
        case json::value_t::number_float:
            s.type = SlotType::Float, s.d = v.get<double>();
            break;
        case json::value_t::string:
            s.type = SlotType::String, s.s = v.get_ref<const std::string&>();
            break;
        default:
            bag.addExtra(key, v);
            return;
    }
    bag.put(f) = s;
}

// A JSON object's members into `bag`; its strings must outlive the bag's use.
void fillFromJson(FieldBag& bag, const json& j) {
    bag.clear();
    if (!j.is_object()) return;
    for (auto it = j.begin(); it != j.end(); ++it) setSlot(bag, it.key(), it.value());
}

// ---------------------------------------------------------------------------------------------
// FieldBag -> struct, one function per kind.

void useKind(FieldBag& b) {
    if (b.has(fKind) && b.slot(fKind).type == SlotType::String) b.use(fKind);
}

StatusEvent statusFrom(FieldBag& b) {
    useKind(b);
    StatusEvent e;
    e.t = b.number(fT);
    e.state = b.string(fState);
    e.step = b.integer(fStep);
    e.totalSteps = b.integer(fTotalSteps);
    e.pid = b.integer(fPid);
    e.device = b.optString(fDevice);
    e.data = b.optString(fData);
    e.resumedFrom = b.optString(fResumedFrom);
    e.extra = b.rest();
    return e;
}

DataEvent dataFrom(FieldBag& b) {
    useKind(b);
    DataEvent e;
    e.t = b.number(fT);
    e.step = b.integer(fStep);
    e.source = b.optString(fSource);
    e.images = b.integer(fImages);
    e.stepsPerEpoch = b.integer(fStepsPerEpoch);
    json skipped = b.take(F::kSkipped);
    bool counts = skipped.is_object();
    for (auto it = skipped.begin(); counts && it != skipped.end(); ++it) counts = it->is_number_integer();
    if (counts)
        skipped.get_to(e.skipped);
    else
        b.putBack(F::kSkipped, std::move(skipped));
    e.extra = b.rest();
    return e;
}

MetricsEvent metricsFrom(FieldBag& b) {
    useKind(b);
    MetricsEvent e;
    e.t = b.number(fT);
    e.step = b.integer(fStep);
    e.epoch = b.integer(fEpoch);
    e.totalSteps = b.integer(fTotalSteps);
    e.lossD = b.number(fLossD);
    e.lossG = b.number(fLossG);
    e.dX = b.number(fDX);
    e.dGz1 = b.number(fDGz1);
    e.dGz2 = b.number(fDGz2);
    e.lr = b.number(fLr);
    e.imgPerS = b.number(fImgPerS);
    e.dataWait = b.number(fDataWait);
    e.worldSize = b.integer(fWorldSize);
    json scalars = b.take(F::kScalars);
    bool numbers = scalars.is_object();
    for (auto it = scalars.begin(); numbers && it != scalars.end(); ++it) numbers = it->is_number() || it->is_null();
    if (numbers)
        for (auto it = scalars.begin(); it != scalars.end(); ++it) e.scalars[it.key()] = it->is_null() ? kNoValue : it->get<double>();
    else
        b.putBack(F::kScalars, std::move(scalars));
    e.extra = b.rest();
    return e;
}

SystemEvent systemFrom(FieldBag& b) {
    useKind(b);
    SystemEvent e;
    e.t = b.number(fT);
    e.step = b.integer(fStep);
    e.cpuPercent = b.number(fCpuPercent);
    e.rssMb = b.number(fRssMb);
    e.readMbS = b.number(fReadMbS);
    if (b.has(fGpuUtil) && b.slot(fGpuUtil).type == SlotType::Null)
        b.use(fGpuUtil);  // null: unknown
    else
        e.gpuUtil = b.integer(fGpuUtil);
    e.gpuMemMb = b.optNumber(fGpuMemMb, false);
    e.gpuMemTotalMb = b.optNumber(fGpuMemTotalMb, false);
    e.energyJ = b.optNumber(fEnergyJ, true);  // null stays null when written back
    e.powerW = b.optNumber(fPowerW, true);
    e.energySource = b.optString(fEnergySource);
    json unavailable = b.take(F::kUnavailable);
    bool reasons = unavailable.is_object() && !unavailable.empty();
    for (auto it = unavailable.begin(); reasons && it != unavailable.end(); ++it) reasons = it->is_string();
    if (reasons)
        unavailable.get_to(e.unavailable);
    else
        b.putBack(F::kUnavailable, std::move(unavailable));
    e.extra = b.rest();
    return e;
}

template <class FileEvent>
FileEvent fileFrom(FieldBag& b) {
    useKind(b);
    FileEvent e;
    e.t = b.number(fT);
    e.step = b.integer(fStep);
    e.epoch = b.integer(fEpoch);
    e.path = b.string(fPath);
    e.extra = b.rest();
    return e;
}

MetricEvent metricFrom(FieldBag& b) {
    useKind(b);
    MetricEvent e;
    e.t = b.number(fT);
    e.step = b.integer(fStep);
    e.fid = b.optNumber(fFid, true);
    e.kid = b.optNumber(fKid, true);
    e.kidStd = b.optNumber(fKidStd, true);
    e.precision = b.optNumber(fPrecision, true);
    e.recall = b.optNumber(fRecall, true);
    e.kidSubsets = b.integer(fKidSubsets);
    e.kidSubsetSize = b.integer(fKidSubsetSize);
    e.prK = b.integer(fPrK);
    e.fidUnavailable = b.optString(fFidUnavailable);
    e.kidUnavailable = b.optString(fKidUnavailable);
    e.prUnavailable = b.optString(fPrUnavailable);
    e.features = b.optString(fFeatures);
    e.featuresSha256 = b.optString(fFeaturesSha256);
    e.realCache = b.optString(fRealCache);
    e.featureDim = b.integer(fFeatureDim);
    e.samples = b.integer(fSamples);
    e.realSamples = b.integer(fRealSamples);
    e.seconds = b.optNumber(fSeconds, true);
    json timing = b.take(F::kTiming);
    const auto num = [&](const char* k) {
        const auto it = timing.find(k);
        return it != timing.end() && it->is_number();
    };
    if (timing.is_object() && timing.size() == 3 && num(F::kTimingRealFeatures) && num(F::kTimingGeneratedFeatures) && num(F::kTimingMetrics))
        e.timing = MetricTiming{timing[F::kTimingRealFeatures].get<double>(), timing[F::kTimingGeneratedFeatures].get<double>(),
                                timing[F::kTimingMetrics].get<double>()};
    else
        b.putBack(F::kTiming, std::move(timing));
    json warnings = b.take(F::kWarnings);
    bool strings = warnings.is_array() && !warnings.empty();
    for (auto it = warnings.begin(); strings && it != warnings.end(); ++it) strings = it->is_string();
    if (strings)
        warnings.get_to(e.warnings);
    else
        b.putBack(F::kWarnings, std::move(warnings));
    e.extra = b.rest();
    return e;
}

ControlEvent controlFrom(FieldBag& b) {
    useKind(b);
    ControlEvent e;
    e.t = b.number(fT);
    e.cmd = b.string(fCmd);
    e.step = b.integer(fStep);
    e.value = b.optNumber(fValue, false);
    e.extra = b.rest();
    return e;
}

ErrorEvent errorFrom(FieldBag& b) {
    useKind(b);
    ErrorEvent e;
    e.t = b.number(fT);
    e.step = b.integer(fStep);
    e.message = b.string(fMessage);
    e.extra = b.rest();
    return e;
}

Event typedEvent(FieldBag& b) {
    if (!b.has(fKind) || b.slot(fKind).type != SlotType::String) return UnknownEvent{std::string(), b.rest()};
    const std::string_view k = b.slot(fKind).s;
    if (k == K::kMetrics) return metricsFrom(b);  // by far the most frequent: first
    if (k == K::kSystem) return systemFrom(b);
    if (k == K::kStatus) return statusFrom(b);
    if (k == K::kData) return dataFrom(b);
    if (k == K::kCheckpoint) return fileFrom<CheckpointEvent>(b);
    if (k == K::kSample) return fileFrom<SampleEvent>(b);
    if (k == K::kMetric) return metricFrom(b);
    if (k == K::kControl) return controlFrom(b);
    if (k == K::kError) return errorFrom(b);
    std::string kind(k);
    return UnknownEvent{std::move(kind), b.rest()};
}

// ---------------------------------------------------------------------------------------------
// struct -> JSON

void putTime(json& j, double t) {
    if (!std::isnan(t)) j[F::kT] = t;
}
void putNumber(json& j, const char* key, double v) {
    if (std::isnan(v))
        j[key] = nullptr;  // what dump() would write for NaN; is_null() agrees in memory
    else
        j[key] = v;
}
template <class T>
void putOpt(json& j, const char* key, const std::optional<T>& v) {
    if (v) j[key] = *v;
}
void putOptNumber(json& j, const char* key, const std::optional<double>& v) {
    if (v) putNumber(j, key, *v);
}
// A member in `extra` wins over the named field written before it: the reader puts a named member
// there only when it had an unexpected type, and the field then holds its default ("" for a
// message or a path, {} for skipped), which must not replace what the line said (found by fuzzing:
// {"kind":"error","message":[1]} was written back as "message":"").
void putExtra(json& j, const json& extra) {
    if (!extra.is_object()) return;
    for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
}
json withKind(const char* kind) { return json{{F::kKind, kind}}; }

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
        const auto t = j.find(F::kT);
        if (t != j.end() && t->is_number()) s.t = t->get<double>();
    }
    s.step = integerIn(j, F::kStep);
    s.epoch = integerIn(j, F::kEpoch);
    s.totalSteps = integerIn(j, F::kTotalSteps);
    return s;
}

// ---------------------------------------------------------------------------------------------
// Readers: nlohmann's SAX parser, and the strict scan for the common form.

// A copy of each named string member, for the SAX path (nlohmann's token buffer is reused).
using OwnedStrings = std::array<std::string, kFieldCount>;

// Builds the JSON value of a nested member from SAX events.
class JsonBuilder {
public:
    void begin(json container) {
        root_ = std::move(container);
        stack_.assign(1, &root_);
    }
    void open(json container) {
        json& top = *stack_.back();
        json* p;
        if (top.is_array()) {
            top.push_back(std::move(container));
            p = &top.back();
        } else {
            *member_ = std::move(container);
            p = member_;
        }
        stack_.push_back(p);
    }
    void key(const std::string& k) { member_ = &(*stack_.back())[k]; }
    void value(json v) {
        json& top = *stack_.back();
        if (top.is_array())
            top.push_back(std::move(v));
        else
            *member_ = std::move(v);
    }
    void close() { stack_.pop_back(); }
    json take() { return std::move(root_); }

private:
    json root_;
    std::vector<json*> stack_;
    json* member_ = nullptr;
};

// SAX handler: the object's members into `top`; on an attach line (`event` set) the members of
// its "event" object into `event`. Nested values are built as JSON into the bag's extra.
class LineSax {
public:
    LineSax(FieldBag& top, OwnedStrings& topStrings, FieldBag* event, OwnedStrings* eventStrings)
        : top_(top), topStrings_(topStrings), event_(event), eventStrings_(eventStrings), cur_(&top), curStrings_(&topStrings) {}

    bool null() {
        Slot s;
        s.type = SlotType::Null;
        return scalar(s, nullptr);
    }
    bool boolean(bool v) {
        Slot s;
        s.type = SlotType::Bool, s.b = v;
        return scalar(s, v);
    }
    bool number_integer(json::number_integer_t v) {
        Slot s;
        s.type = SlotType::Int, s.i = v;
        return scalar(s, v);
    }
    bool number_unsigned(json::number_unsigned_t v) {
        Slot s;
        s.type = SlotType::UInt, s.u = v;
        return scalar(s, v);
    }
    bool number_float(json::number_float_t v, const std::string&) {
        Slot s;
        s.type = SlotType::Float, s.d = v;
        return scalar(s, v);
    }
    bool string(std::string& v) {
        if (depth_ == 0) return notObject();
        if (building_) return builder_.value(v), true;
        if (field_ == kNoField) return cur_->addExtra(key_, v), true;
        std::string& copy = (*curStrings_)[field_];
        copy.assign(v);
        Slot& s = cur_->put(field_);
        s.type = SlotType::String;
        s.s = copy;
        return true;
    }
    bool binary(json::binary_t&) { return true; }  // never from JSON text
    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(std::string& k) {
        if (building_) return builder_.key(k), true;
        field_ = fields().find(k);
        key_.assign(k);
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const json::exception& ex) {
        errorPosition_ = position;
        error_ = ex.what();
        return false;
    }

    bool isNotObject() const { return notObject_; }
    size_t errorPosition() const { return errorPosition_; }
    const std::string& error() const { return error_; }

private:
    bool notObject() {
        notObject_ = true;
        return false;
    }
    bool scalar(Slot s, json v) {
        if (depth_ == 0) return notObject();
        if (building_) return builder_.value(std::move(v)), true;
        if (field_ == kNoField) return cur_->addExtra(key_, std::move(v)), true;
        cur_->put(field_) = s;
        return true;
    }
    bool open(bool object) {
        if (depth_ == 0) {
            if (!object) return notObject();
            depth_ = 1;
            return true;
        }
        ++depth_;
        if (building_) {
            builder_.open(object ? json::object() : json::array());
        } else if (object && event_ && cur_ == &top_ && key_ == F::kEvent) {
            top_.setHasEvent();
            cur_ = event_;
            curStrings_ = eventStrings_;
            eventDepth_ = depth_;
        } else {
            builder_.begin(object ? json::object() : json::array());
            building_ = true;
            buildDepth_ = depth_;
        }
        return true;
    }
    bool close() {
        if (building_) {
            if (depth_ == buildDepth_) {
                building_ = false;
                cur_->addExtra(key_, builder_.take());
            } else {
                builder_.close();
            }
        } else if (cur_ != &top_ && depth_ == eventDepth_) {
            cur_ = &top_;
            curStrings_ = &topStrings_;
            key_.clear();  // the "event" member is complete
        }
        --depth_;
        return true;
    }

    FieldBag& top_;
    OwnedStrings& topStrings_;
    FieldBag* event_;
    OwnedStrings* eventStrings_;
    FieldBag* cur_;
    OwnedStrings* curStrings_;
    int depth_ = 0, eventDepth_ = 0, buildDepth_ = 0;
    bool building_ = false, notObject_ = false;
    Field field_ = kNoField;
    std::string key_;  // the current member's name at the bag's level
    JsonBuilder builder_;
    size_t errorPosition_ = 0;
    std::string error_;
};

// The strict scan: accepts only a complete object of numbers (JSON's grammar), true/false/null
// and strings of printable ASCII without escapes, plus, on an attach line, one such object as
// "event". On anything else it gives up and nlohmann reads the line; so it never has to judge
// an escape or a malformed line, and what it accepts reads exactly as nlohmann would read it.
class StrictScan {
public:
    explicit StrictScan(std::string_view line) : p_(line.data()), e_(line.data() + line.size()) {}

    bool line(FieldBag& top, FieldBag* event) {
        ws();
        if (p_ >= e_ || *p_ != '{' || !object(top, event)) return false;
        ws();
        return p_ == e_;
    }

private:
    void ws() {
        while (p_ < e_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
    }
    bool string(std::string_view& out) {  // at the opening quote
        const char* s = ++p_;
        for (; p_ < e_; ++p_) {
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                out = std::string_view(s, static_cast<size_t>(p_ - s));
                ++p_;
                return true;
            }
            if (c == '\\' || c < 0x20 || c >= 0x80) return false;
        }
        return false;
    }
    bool literal(std::string_view word) {
        if (static_cast<size_t>(e_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0) return false;
        p_ += word.size();
        return true;
    }
    static bool digit(char c) { return c >= '0' && c <= '9'; }
    // JSON's number grammar; integers as nlohmann types them (unsigned unless negative); an
    // integer out of range is left to nlohmann (which makes it a double).
    bool number(Slot& s) {
        const char* start = p_;
        if (*p_ == '-') ++p_;
        if (p_ >= e_) return false;
        if (*p_ == '0') {
            ++p_;
        } else if (digit(*p_)) {
            while (p_ < e_ && digit(*p_)) ++p_;
        } else {
            return false;
        }
        bool isFloat = false;
        if (p_ < e_ && *p_ == '.') {
            isFloat = true;
            ++p_;
            if (p_ >= e_ || !digit(*p_)) return false;
            while (p_ < e_ && digit(*p_)) ++p_;
        }
        if (p_ < e_ && (*p_ == 'e' || *p_ == 'E')) {
            isFloat = true;
            ++p_;
            if (p_ < e_ && (*p_ == '+' || *p_ == '-')) ++p_;
            if (p_ >= e_ || !digit(*p_)) return false;
            while (p_ < e_ && digit(*p_)) ++p_;
        }
        std::from_chars_result r{};
        if (isFloat) {
            s.type = SlotType::Float;
            r = std::from_chars(start, p_, s.d);
        } else if (*start == '-') {
            s.type = SlotType::Int;
            r = std::from_chars(start, p_, s.i);
        } else {
            s.type = SlotType::UInt;
            r = std::from_chars(start, p_, s.u);
        }
        return r.ec == std::errc() && r.ptr == p_;
    }
    bool value(Slot& s) {  // a string, literal or number
        switch (*p_) {
            case '"':
                s.type = SlotType::String;
                return string(s.s);
            case 't':
                s.type = SlotType::Bool, s.b = true;
                return literal("true");
            case 'f':
                s.type = SlotType::Bool, s.b = false;
                return literal("false");
            case 'n':
                s.type = SlotType::Null;
                return literal("null");
            default:
                return number(s);
        }
    }
    static void store(FieldBag& bag, std::string_view key, const Slot& s) {
        if (const Field f = fields().find(key); f != kNoField) {
            bag.put(f) = s;
            return;
        }
        switch (s.type) {
            case SlotType::Null:
                bag.addExtra(key, nullptr);
                break;
            case SlotType::Bool:
                bag.addExtra(key, s.b);
                break;
            case SlotType::Int:
                bag.addExtra(key, s.i);
                break;
            case SlotType::UInt:
                bag.addExtra(key, s.u);
                break;
            case SlotType::Float:
                bag.addExtra(key, s.d);
                break;
            case SlotType::String:
                bag.addExtra(key, std::string(s.s));
                break;
        }
    }
    bool object(FieldBag& bag, FieldBag* event) {  // at '{'
        ++p_;
        ws();
        if (p_ < e_ && *p_ == '}') return ++p_, true;
        for (;;) {
            std::string_view key;
            if (p_ >= e_ || *p_ != '"' || !string(key)) return false;
            ws();
            if (p_ >= e_ || *p_ != ':') return false;
            ++p_;
            ws();
            if (p_ >= e_) return false;
            if (*p_ == '{') {
                if (!event || key != F::kEvent || !object(*event, nullptr)) return false;
                bag.setHasEvent();
            } else {
                Slot s;
                if (!value(s)) return false;
                store(bag, key, s);
            }
            ws();
            if (p_ >= e_) return false;
            if (*p_ == '}') return ++p_, true;
            if (*p_ != ',') return false;
            ++p_;
            ws();
        }
    }

    const char* p_;
    const char* e_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// to_json / from_json

void to_json(json& j, const StatusEvent& e) {
    j = withKind(K::kStatus);
    putTime(j, e.t);
    j[F::kState] = e.state;
    putOpt(j, F::kStep, e.step);
    putOpt(j, F::kTotalSteps, e.totalSteps);
    putOpt(j, F::kPid, e.pid);
    putOpt(j, F::kDevice, e.device);
    putOpt(j, F::kData, e.data);
    putOpt(j, F::kResumedFrom, e.resumedFrom);
    putExtra(j, e.extra);
}

void to_json(json& j, const DataEvent& e) {
    j = withKind(K::kData);
    putTime(j, e.t);
    putOpt(j, F::kStep, e.step);
    putOpt(j, F::kSource, e.source);
    putOpt(j, F::kImages, e.images);
    putOpt(j, F::kStepsPerEpoch, e.stepsPerEpoch);
    j[F::kSkipped] = e.skipped;
    putExtra(j, e.extra);
}

void to_json(json& j, const MetricsEvent& e) {
    j = withKind(K::kMetrics);
    putTime(j, e.t);
    putOpt(j, F::kStep, e.step);
    putOpt(j, F::kEpoch, e.epoch);
    putOpt(j, F::kTotalSteps, e.totalSteps);
    putNumber(j, F::kLossD, e.lossD);
    putNumber(j, F::kLossG, e.lossG);
    putNumber(j, F::kDX, e.dX);
    putNumber(j, F::kDGz1, e.dGz1);
    putNumber(j, F::kDGz2, e.dGz2);
    putNumber(j, F::kLr, e.lr);
    putNumber(j, F::kImgPerS, e.imgPerS);
    putNumber(j, F::kDataWait, e.dataWait);
    putOpt(j, F::kWorldSize, e.worldSize);
    if (!e.scalars.empty()) {
        json scalars = json::object();
        for (const auto& [tag, v] : e.scalars) putNumber(scalars, tag.c_str(), v);
        j[F::kScalars] = std::move(scalars);
    }
    putExtra(j, e.extra);
}

void to_json(json& j, const SystemEvent& e) {
    j = withKind(K::kSystem);
    putTime(j, e.t);
    putOpt(j, F::kStep, e.step);
    putNumber(j, F::kCpuPercent, e.cpuPercent);
    putNumber(j, F::kRssMb, e.rssMb);
    putNumber(j, F::kReadMbS, e.readMbS);
    j[F::kGpuUtil] = e.gpuUtil ? json(*e.gpuUtil) : json(nullptr);
    j[F::kGpuMemMb] = e.gpuMemMb ? json(*e.gpuMemMb) : json(nullptr);
    j[F::kGpuMemTotalMb] = e.gpuMemTotalMb ? json(*e.gpuMemTotalMb) : json(nullptr);
    putOptNumber(j, F::kEnergyJ, e.energyJ);
    putOptNumber(j, F::kPowerW, e.powerW);
    putOpt(j, F::kEnergySource, e.energySource);
    if (!e.unavailable.empty()) j[F::kUnavailable] = e.unavailable;
    putExtra(j, e.extra);
}

void to_json(json& j, const CheckpointEvent& e) {
    j = withKind(K::kCheckpoint);
    putTime(j, e.t);
    putOpt(j, F::kStep, e.step);
    putOpt(j, F::kEpoch, e.epoch);
    j[F::kPath] = e.path;
    putExtra(j, e.extra);
}

void to_json(json& j, const SampleEvent& e) {
    j = withKind(K::kSample);
    putTime(j, e.t);
    putOpt(j, F::kStep, e.step);
    putOpt(j, F::kEpoch, e.epoch);
    j[F::kPath] = e.path;
    putExtra(j, e.extra);
}

void to_json(json& j, const MetricEvent& e) {
    j = withKind(K::kMetric);
    putTime(j, e.t);
    putOpt(j, F::kStep, e.step);
    putOptNumber(j, F::kFid, e.fid);
    putOptNumber(j, F::kKid, e.kid);
    putOptNumber(j, F::kKidStd, e.kidStd);
    putOptNumber(j, F::kPrecision, e.precision);
    putOptNumber(j, F::kRecall, e.recall);
    putOpt(j, F::kKidSubsets, e.kidSubsets);
    putOpt(j, F::kKidSubsetSize, e.kidSubsetSize);
    putOpt(j, F::kPrK, e.prK);
    putOpt(j, F::kFidUnavailable, e.fidUnavailable);
    putOpt(j, F::kKidUnavailable, e.kidUnavailable);
    putOpt(j, F::kPrUnavailable, e.prUnavailable);
    putOpt(j, F::kFeatures, e.features);
    putOpt(j, F::kFeaturesSha256, e.featuresSha256);
    putOpt(j, F::kRealCache, e.realCache);
    putOpt(j, F::kFeatureDim, e.featureDim);
    putOpt(j, F::kSamples, e.samples);
    putOpt(j, F::kRealSamples, e.realSamples);
    if (e.timing)
        j[F::kTiming] = {{F::kTimingRealFeatures, e.timing->realFeatures},
                         {F::kTimingGeneratedFeatures, e.timing->generatedFeatures},
                         {F::kTimingMetrics, e.timing->metrics}};
    putOptNumber(j, F::kSeconds, e.seconds);
    if (!e.warnings.empty()) j[F::kWarnings] = e.warnings;
    putExtra(j, e.extra);
}

void to_json(json& j, const ControlEvent& e) {
    j = withKind(K::kControl);
    putTime(j, e.t);
    j[F::kCmd] = e.cmd;
    putOpt(j, F::kStep, e.step);
    putOpt(j, F::kValue, e.value);
    putExtra(j, e.extra);
}

void to_json(json& j, const ErrorEvent& e) {
    j = withKind(K::kError);
    putTime(j, e.t);
    putOpt(j, F::kStep, e.step);
    j[F::kMessage] = e.message;
    putExtra(j, e.extra);
}

void to_json(json& j, const UnknownEvent& e) {
    j = e.fields;
    if (j.is_null()) j = json::object();
    if (j.is_object() && !e.kind.empty() && !j.contains(F::kKind)) j[F::kKind] = e.kind;
}

namespace {
template <class T>
void fromJsonWith(const json& j, T& e, T (*from)(FieldBag&)) {
    FieldBag b;
    fillFromJson(b, j);
    e = from(b);
}
}  // namespace

void from_json(const json& j, StatusEvent& e) { fromJsonWith(j, e, statusFrom); }
void from_json(const json& j, DataEvent& e) { fromJsonWith(j, e, dataFrom); }
void from_json(const json& j, MetricsEvent& e) { fromJsonWith(j, e, metricsFrom); }
void from_json(const json& j, SystemEvent& e) { fromJsonWith(j, e, systemFrom); }
void from_json(const json& j, CheckpointEvent& e) { fromJsonWith(j, e, fileFrom<CheckpointEvent>); }
void from_json(const json& j, SampleEvent& e) { fromJsonWith(j, e, fileFrom<SampleEvent>); }
void from_json(const json& j, MetricEvent& e) { fromJsonWith(j, e, metricFrom); }
void from_json(const json& j, ControlEvent& e) { fromJsonWith(j, e, controlFrom); }
void from_json(const json& j, ErrorEvent& e) { fromJsonWith(j, e, errorFrom); }

json toJson(const Event& event) {
    return std::visit([](const auto& e) { return json(e); }, event);
}

Event eventFromJson(const json& j) {
    if (!j.is_object()) return UnknownEvent{std::string(), j};
    FieldBag b;
    fillFromJson(b, j);
    return typedEvent(b);
}

std::string kindOf(const Event& event) {
    return std::visit(Overloaded{[](const StatusEvent&) { return std::string(K::kStatus); }, [](const DataEvent&) { return std::string(K::kData); },
                                 [](const MetricsEvent&) { return std::string(K::kMetrics); }, [](const SystemEvent&) { return std::string(K::kSystem); },
                                 [](const CheckpointEvent&) { return std::string(K::kCheckpoint); }, [](const SampleEvent&) { return std::string(K::kSample); },
                                 [](const MetricEvent&) { return std::string(K::kMetric); }, [](const ControlEvent&) { return std::string(K::kControl); },
                                 [](const ErrorEvent&) { return std::string(K::kError); }, [](const UnknownEvent& e) { return e.kind; }},
                      event);
}

void setTime(Event& event, double t) {
    std::visit(Overloaded{[&](UnknownEvent& e) {
                              if (e.fields.is_object()) e.fields[F::kT] = t;
                          },
                          [&](auto& e) { e.t = t; }},
               event);
}

EventStamp stampOf(const Event& event) {
    return std::visit(Overloaded{[](const UnknownEvent& e) { return stampIn(e.fields); },
                                 [](const auto& e) {
                                     // The kind's own fields, else what its extra members say.
                                     EventStamp s = stampIn(e.extra);
                                     if (!std::isnan(e.t)) s.t = e.t;
                                     if (e.step) s.step = e.step;
                                     if (const auto epoch = epochOf(e, 0)) s.epoch = epoch;
                                     if (const auto total = totalStepsOf(e, 0)) s.totalSteps = total;
                                     return s;
                                 }},
                      event);
}

json attachEventJson(uint64_t offset, uint64_t end, json event) { return json{{F::kOffset, offset}, {F::kEnd, end}, {F::kEvent, std::move(event)}}; }
json attachLiveJson(uint64_t offset, const std::string& state) { return json{{F::kLive, true}, {F::kOffset, offset}, {F::kState, state}}; }
json attachEndJson(uint64_t offset, const std::string& state) { return json{{F::kEnd, true}, {F::kOffset, offset}, {F::kState, state}}; }
json attachReplyJson(json reply) { return json{{F::kReply, std::move(reply)}}; }

// ---------------------------------------------------------------------------------------------
// EventReader

struct EventReader::Impl {
    FieldBag top, event;
    OwnedStrings topStrings, eventStrings;

    // Fills `top` (and `event` for an attach line); returns Ok or why not.
    LineStatus fill(std::string_view line, bool attach, std::string& error) {
        top.clear();
        event.clear();
        if (StrictScan(line).line(top, attach ? &event : nullptr)) return LineStatus::Ok;
        top.clear();
        event.clear();
        if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) {
            error = "empty line";
            return LineStatus::NotJson;
        }
        LineSax sax(top, topStrings, attach ? &event : nullptr, attach ? &eventStrings : nullptr);
        if (json::sax_parse(line.data(), line.data() + line.size(), &sax)) return LineStatus::Ok;
        if (sax.isNotObject()) {
            error = "not a JSON object";
            return LineStatus::NotObject;
        }
        error = sax.error();
        // nlohmann counts the end of input as one more character read: an error there means
        // the text stopped mid-value.
        return sax.errorPosition() > line.size() ? LineStatus::Torn : LineStatus::NotJson;
    }
};

EventReader::EventReader() : impl_(std::make_unique<Impl>()) {}
EventReader::~EventReader() = default;

ParsedEvent EventReader::read(std::string_view line) {
    ParsedEvent r;
    r.status = impl_->fill(line, false, r.error);
    if (r.ok()) r.event = typedEvent(impl_->top);
    return r;
}

ParsedAttachLine EventReader::readAttach(std::string_view line) {
    ParsedAttachLine r;
    r.status = impl_->fill(line, true, r.error);
    if (!r.ok()) return r;
    FieldBag& top = impl_->top;
    AttachLine& a = r.line;
    if (top.hasEvent()) {
        a.type = AttachLine::Type::Event;
        a.offset = top.offset(fOffset);
        a.end = top.offset(fEnd);
        a.event = typedEvent(impl_->event);
    } else if (json reply = top.take(F::kReply); !reply.is_null()) {
        a.type = AttachLine::Type::Reply;
        a.reply = std::move(reply);
    } else if (top.boolean(fLive).value_or(false)) {
        a.type = AttachLine::Type::Live;
        a.offset = top.offset(fOffset);
        a.state = top.string(fState);
    } else if (top.boolean(fEnd).value_or(false)) {
        a.type = AttachLine::Type::End;
        a.offset = top.offset(fOffset);
        a.state = top.string(fState);
    } else {
        r.status = LineStatus::NotProtocol;
        r.error = "not an attach protocol line";
    }
    return r;
}

}  // namespace streetgan
