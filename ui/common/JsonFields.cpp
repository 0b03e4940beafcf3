#include "common/JsonFields.h"

#include <cmath>
#include <limits>

namespace streetgan::ui {

using nlohmann::json;

const json& JsonFields::at(const json& o, const char* key) {
    static const json null;
    if (!o.is_object()) return null;
    const auto it = o.find(key);
    return it == o.end() ? null : *it;
}

bool JsonFields::asBool(const json& v, bool fallback) { return v.is_boolean() ? v.get<bool>() : fallback; }

QString JsonFields::asText(const json& v, const QString& fallback) {
    return v.is_string() ? QString::fromStdString(v.get_ref<const std::string&>()) : fallback;
}

qint64 JsonFields::asInteger(const json& v, qint64 fallback) {
    if (v.is_number_integer()) {
        if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<qint64>::max())) return fallback;
        return v.get<qint64>();
    }
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::trunc(d) == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0) return static_cast<qint64>(d);
    }
    return fallback;
}

int JsonFields::asInt(const json& v, int fallback) {
    const qint64 sentinel = std::numeric_limits<qint64>::min();  // outside int's range: "not an integer"
    const qint64 i = asInteger(v, sentinel);
    if (i < std::numeric_limits<int>::min() || i > std::numeric_limits<int>::max()) return fallback;
    return static_cast<int>(i);
}

double JsonFields::asDouble(const json& v, double fallback) { return v.is_number() ? v.get<double>() : fallback; }

}  // namespace streetgan::ui
