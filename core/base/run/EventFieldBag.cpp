#include "base/run/EventFieldBag.h"

#include <cmath>

namespace streetgan::events {
namespace {

using json = nlohmann::json;

constexpr const char* kFieldNames[kFieldCount] = {
#define STREETGAN_FIELD_NAME(name) EventField::k##name,
#define STREETGAN_FIELD_NAME_OF_SCALAR(key, ...) EventField::k##key,
    STREETGAN_EVENT_SCALAR_FIELDS(STREETGAN_FIELD_NAME) STREETGAN_EVENT_NESTED_FIELDS(STREETGAN_FIELD_NAME)
#undef STREETGAN_FIELD_NAME
#undef STREETGAN_FIELD_NAME_OF_SCALAR
};

// Name -> scalar Field by open addressing: a line has a dozen keys and a million lines are read,
// so this is a hash of three bytes and one comparison, not a std::map walk.
class ScalarFieldTable {
public:
    ScalarFieldTable() {
        table_.fill(kNoField);
        for (uint8_t f = 0; f < kScalarFieldCount; ++f) {
            size_t h = hash(kFieldNames[f]);
            while (table_[h] != kNoField) h = (h + 1) & kMask;
            table_[h] = f;
        }
    }
    Field find(std::string_view key) const {
        if (key.empty()) return kNoField;
        for (size_t h = hash(key); table_[h] != kNoField; h = (h + 1) & kMask)
            if (key == kFieldNames[table_[h]]) return static_cast<Field>(table_[h]);
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

json slotJson(const Slot& s) {
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

}  // namespace

bool isIntegral(double d) { return std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.2e18; }

const char* fieldName(Field f) { return kFieldNames[f]; }

Field scalarFieldNamed(std::string_view key) {
    static const ScalarFieldTable table;
    return table.find(key);
}

void EventFieldBag::clear() {
    present_ = used_ = 0;
    hasEvent_ = false;
    if (!extra_.is_null()) extra_ = nullptr;
}

void EventFieldBag::fill(const json& j) {
    clear();
    if (!j.is_object()) return;
    for (auto it = j.begin(); it != j.end(); ++it) {
        const json& v = it.value();
        const Field f = scalarFieldNamed(it.key());
        Slot s;
        switch (f == kNoField ? json::value_t::object : v.type()) {
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
            default:  // a nested value, or a name the schema has no slot for
                addExtra(it.key(), v);
                continue;
        }
        put(f) = s;
    }
}

Slot& EventFieldBag::put(Field f) {
    present_ |= bit(f);
    return slot_[f];
}

void EventFieldBag::addExtra(std::string_view key, json value) {
    if (!extra_.is_object()) extra_ = json::object();
    extra_[std::string(key)] = std::move(value);
}

double EventFieldBag::number(Field f) {
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

std::optional<double> EventFieldBag::optNumber(Field f, bool nullIsNaN) {
    if (!has(f)) return std::nullopt;
    if (slot_[f].type == SlotType::Null) {
        if (!nullIsNaN) return std::nullopt;
        use(f);
        return kNoValue;
    }
    const double d = number(f);
    return (used_ & bit(f)) ? std::optional<double>(d) : std::nullopt;
}

std::optional<int64_t> EventFieldBag::integer(Field f) {
    if (!has(f)) return std::nullopt;
    const Slot& s = slot_[f];
    if (s.type == SlotType::Int) return use(f), s.i;
    if (s.type == SlotType::UInt && s.u <= static_cast<uint64_t>(INT64_MAX)) return use(f), static_cast<int64_t>(s.u);
    if (s.type == SlotType::Float && isIntegral(s.d)) return use(f), static_cast<int64_t>(s.d);
    return std::nullopt;
}

std::optional<uint64_t> EventFieldBag::offset(Field f) {
    if (!has(f)) return std::nullopt;
    const Slot& s = slot_[f];
    if (s.type == SlotType::UInt) return use(f), s.u;
    if (s.type == SlotType::Int && s.i >= 0) return use(f), static_cast<uint64_t>(s.i);
    return std::nullopt;
}

std::optional<std::string> EventFieldBag::optString(Field f) {
    if (!has(f) || slot_[f].type != SlotType::String) return std::nullopt;
    use(f);
    return std::string(slot_[f].s);
}

std::optional<bool> EventFieldBag::boolean(Field f) {
    if (!has(f) || slot_[f].type != SlotType::Bool) return std::nullopt;
    use(f);
    return slot_[f].b;
}

const json* EventFieldBag::nested(const char* key) const {
    if (!extra_.is_object()) return nullptr;
    const auto it = extra_.find(key);
    return it == extra_.end() ? nullptr : &*it;
}

void EventFieldBag::drop(const char* key) {
    if (extra_.is_object()) extra_.erase(key);
}

json EventFieldBag::rest() {
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

}  // namespace streetgan::events
