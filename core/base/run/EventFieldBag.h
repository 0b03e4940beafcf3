// Private to the event schema (Events.cpp) and its readers (EventReader.cpp): the members an
// events.jsonl or attach line may name, and EventFieldBag, which holds one object's members
// between reading and becoming a typed event. Every way in (a JSON object, nlohmann's SAX parser,
// the strict scan) fills a bag; the schema's table (Events.cpp) then turns it into its struct, so
// a member maps to a struct field in one place whichever way it came in.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/run/Events.h"

namespace streetgan::events {

// Every member the schema names, once: X(Name) for the field fName and its EventField::kName;
// the training scalars' rows (TrainingScalar.h) go to X_OF_SCALAR(Name, ...). The scalar ones
// first (the bag keeps a typed slot for each); the nested ones (objects, arrays) after
// kScalarFieldCount, which the readers keep as JSON in the bag's extra.
#define STREETGAN_EVENT_SCALAR_FIELDS(X)      \
    X(Kind)                                   \
    X(T)                                      \
    X(Step)                                   \
    X(Epoch)                                  \
    X(TotalSteps)                             \
    X(State)                                  \
    X(Pid)                                    \
    X(Device)                                 \
    X(Data)                                   \
    X(ResumedFrom)                            \
    X(Source)                                 \
    X(Images)                                 \
    X(StepsPerEpoch)                          \
    X(Path)                                   \
    STREETGAN_TRAINING_SCALARS(X##_OF_SCALAR) \
    X(WorldSize)                              \
    X(CpuPercent)                             \
    X(RssMb)                                  \
    X(ReadMbS)                                \
    X(GpuUtil)                                \
    X(GpuMemMb)                               \
    X(GpuMemTotalMb)                          \
    X(EnergyJ)                                \
    X(PowerW)                                 \
    X(EnergySource)                           \
    X(Fid)                                    \
    X(Kid)                                    \
    X(KidStd)                                 \
    X(KidSubsets)                             \
    X(KidSubsetSize)                          \
    X(Precision)                              \
    X(Recall)                                 \
    X(PrK)                                    \
    X(FidUnavailable)                         \
    X(KidUnavailable)                         \
    X(PrUnavailable)                          \
    X(Features)                               \
    X(FeaturesSha256)                         \
    X(FeatureDim)                             \
    X(Samples)                                \
    X(RealSamples)                            \
    X(RealCache)                              \
    X(Seconds)                                \
    X(Cmd)                                    \
    X(Value)                                  \
    X(Message)                                \
    X(Offset)                                 \
    X(End)                                    \
    X(Live)                                   \
    X(Swd)                                    \
    X(SwdUnavailable)                         \
    X(SwdSamples)                             \
    X(SwdRealCache)                           \
    X(Metric)

#define STREETGAN_EVENT_NESTED_FIELDS(X) \
    X(Skipped)                           \
    X(Scalars)                           \
    X(Unavailable)                       \
    X(Timing)                            \
    X(Warnings)                          \
    X(SwdLevels)                         \
    X(Event)                             \
    X(Reply)

enum Field : uint8_t {
#define STREETGAN_FIELD_ENUM(name) f##name,
#define STREETGAN_FIELD_ENUM_OF_SCALAR(key, ...) f##key,
    STREETGAN_EVENT_SCALAR_FIELDS(STREETGAN_FIELD_ENUM) kScalarFieldCount,
    fNestedBefore = kScalarFieldCount - 1,  // so that the first nested field is kScalarFieldCount
    STREETGAN_EVENT_NESTED_FIELDS(STREETGAN_FIELD_ENUM) kFieldCount,
#undef STREETGAN_FIELD_ENUM
#undef STREETGAN_FIELD_ENUM_OF_SCALAR
    kNoField = 255
};
static_assert(kScalarFieldCount <= 64, "EventFieldBag keeps presence in a 64-bit mask");

/// A finite double with an integral value that fits int64 (an integer field may be written 5.0).
bool isIntegral(double d);
/// The member's name, e.g. "loss_d".
const char* fieldName(Field f);
/// The scalar field named `key`; kNoField for a nested or unknown name (those go to the extra).
Field scalarFieldNamed(std::string_view key);

enum class SlotType : uint8_t { Null, Bool, Int, UInt, Float, String };

struct Slot {
    SlotType type = SlotType::Null;
    bool b = false;
    int64_t i = 0;
    uint64_t u = 0;
    double d = 0;
    std::string_view s;  ///< into the line, the source JSON, or the reader's own copy
};

/// A copy of each scalar string member, for the SAX path (nlohmann's token buffer is reused).
using OwnedStrings = std::array<std::string, kScalarFieldCount>;

/// One object's members before they become a struct: a typed slot per scalar field the line had,
/// the rest (nested values, unknown names) as JSON. The typed reads mark a slot used when its type
/// fits; rest() gives every member not used, so nothing read is lost.
class EventFieldBag {
public:
    void clear();
    /// All members of a JSON object (nothing when `j` is not one); its strings must outlive the
    /// bag's use.
    void fill(const nlohmann::json& j);
    Slot& put(Field f);
    void addExtra(std::string_view key, nlohmann::json value);
    void setHasEvent() { hasEvent_ = true; }
    bool hasEvent() const { return hasEvent_; }
    bool has(Field f) const { return (present_ & bit(f)) != 0; }
    bool isNull(Field f) const { return has(f) && slot_[f].type == SlotType::Null; }
    const Slot& slot(Field f) const { return slot_[f]; }
    void use(Field f) { used_ |= bit(f); }

    /// A number; absent, null or another type read as NaN (null is used, another type is not).
    double number(Field f);
    /// A number when there is one; null too when `nullIsNaN` (as NaN), else null is left unused.
    std::optional<double> optNumber(Field f, bool nullIsNaN);
    /// Any JSON number with an integral value.
    std::optional<int64_t> integer(Field f);
    /// A non-negative JSON integer (the attach protocol's offsets).
    std::optional<uint64_t> offset(Field f);
    std::optional<std::string> optString(Field f);
    std::string string(Field f) { return optString(f).value_or(std::string()); }
    std::optional<bool> boolean(Field f);
    /// The nested or unnamed member `key` as read, or nullptr; drop() it once read into a field.
    const nlohmann::json* nested(const char* key) const;
    void drop(const char* key);
    /// Every member not read into a struct field: the struct's `extra` (null when none).
    nlohmann::json rest();

private:
    static constexpr uint64_t bit(Field f) { return uint64_t{1} << f; }

    uint64_t present_ = 0, used_ = 0;
    bool hasEvent_ = false;  // an attach line's "event" object went to the event bag
    std::array<Slot, kScalarFieldCount> slot_{};
    nlohmann::json extra_;
};

/// The typed event of a filled bag by its "kind" (the schema's table, Events.cpp).
Event eventFromBag(EventFieldBag& bag);

}  // namespace streetgan::events
