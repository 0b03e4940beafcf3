#include "common/JsonText.h"

#include <charconv>
#include <cmath>
#include <string>

namespace streetgan::ui {
namespace {

using nlohmann::json;

void appendString(QByteArray& out, const std::string& s) {
    static const char* hex = "0123456789abcdef";
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c < 0x20) {
                    out += "\\u00";
                    out += hex[c >> 4];
                    out += hex[c & 0xf];
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    out += '"';
}

// Qt's writer (qjsonwriter.cpp): containers open with "{\n" / "[\n", every member on its own line
// at 4 * depth spaces, the closing bracket at the container's own depth.
void appendValue(QByteArray& out, const json& v, int indent, bool compact) {
    switch (v.type()) {
        case json::value_t::object: {
            out += compact ? "{" : "{\n";
            const QByteArray pad(compact ? 0 : 4 * (indent + 1), ' ');
            for (auto it = v.begin(); it != v.end(); ++it) {
                if (it != v.begin()) out += compact ? "," : ",\n";
                out += pad;
                appendString(out, it.key());
                out += compact ? ":" : ": ";
                appendValue(out, it.value(), indent + 1, compact);
            }
            if (!compact && !v.empty()) out += '\n';
            out += QByteArray(compact ? 0 : 4 * indent, ' ');
            out += '}';
            break;
        }
        case json::value_t::array: {
            out += compact ? "[" : "[\n";
            const QByteArray pad(compact ? 0 : 4 * (indent + 1), ' ');
            for (size_t i = 0; i < v.size(); ++i) {
                if (i > 0) out += compact ? "," : ",\n";
                out += pad;
                appendValue(out, v[i], indent + 1, compact);
            }
            if (!compact && !v.empty()) out += '\n';
            out += QByteArray(compact ? 0 : 4 * indent, ' ');
            out += ']';
            break;
        }
        case json::value_t::string:
            appendString(out, v.get_ref<const std::string&>());
            break;
        case json::value_t::boolean:
            out += v.get<bool>() ? "true" : "false";
            break;
        case json::value_t::number_integer:
            out += QByteArray::number(static_cast<qint64>(v.get<int64_t>()));
            break;
        case json::value_t::number_unsigned: {
            const uint64_t u = v.get<uint64_t>();
            // Qt read integers beyond int64 as doubles, and wrote them so.
            out += u <= static_cast<uint64_t>(INT64_MAX) ? QByteArray::number(static_cast<qint64>(u)) : JsonText::number(static_cast<double>(u));
            break;
        }
        case json::value_t::number_float:
            out += JsonText::number(v.get<double>());
            break;
        default:
            out += "null";
            break;  // null, binary, discarded
    }
}

}  // namespace

QByteArray JsonText::number(double value) {
    if (!std::isfinite(value)) return "null";  // as Qt (RFC 4627 has no NaN or infinity)
    if (value >= -9223372036854775808.0 && value < 9223372036854775808.0 && std::trunc(value) == value) {
        // Qt read a number with an integral value in int64's range as an integer (and wrote an
        // integral double below 2^53 with 'f'): all digits, no exponent; -0.0 as "0".
        return QByteArray::number(static_cast<qint64>(value));
    }
    // The shortest round-trip digits (what Qt's FloatingPointShortest gives)...
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    const std::string sci(buf, r.ptr);  // e.g. "-1.2345e-05", "1e+100"
    const size_t e = sci.find('e');
    const bool negative = sci[0] == '-';
    std::string digits;
    for (size_t i = negative ? 1 : 0; i < e; ++i)
        if (sci[i] != '.') digits += sci[i];
    const int exponent = std::stoi(sci.substr(e + 1));
    const int decpt = exponent + 1;  // value = 0.DIGITS * 10^decpt
    const int n = static_cast<int>(digits.size());
    // ... then QLocaleData::doubleToString's choice (DFSignificantDigits, FloatingPointShortest, a
    // two-digit exponent): the shorter of the decimal and the exponent form, decimal on a tie.
    int bias = 2 + 2;
    if (n <= decpt && n > 1)
        ++bias;
    else if (n == 1 && decpt <= 0)
        --bias;
    const bool decimal = decpt <= 0 ? 1 - decpt <= bias : decpt <= n || decpt <= n + bias;
    std::string s = negative ? "-" : "";
    if (decimal) {
        if (decpt <= 0)
            s += "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
        else if (decpt < n)
            s += digits.substr(0, static_cast<size_t>(decpt)) + "." + digits.substr(static_cast<size_t>(decpt));
        else
            s += digits + std::string(static_cast<size_t>(decpt - n), '0');
    } else {
        s += digits.substr(0, 1);
        if (n > 1) s += "." + digits.substr(1);
        const int x = std::abs(exponent);
        s += exponent < 0 ? "e-" : "e+";
        if (x < 10) s += '0';
        s += std::to_string(x);
    }
    return QByteArray::fromStdString(s);
}

QByteArray JsonText::write(const nlohmann::json& value, Format format) {
    QByteArray out;
    const bool compact = format == Format::Compact;
    appendValue(out, value, 0, compact);
    if (!compact && (value.is_object() || value.is_array())) out += '\n';
    return out;
}

std::optional<nlohmann::json> JsonText::parse(const QByteArray& text, QString* error) {
    try {
        return nlohmann::json::parse(text.constData(), text.constData() + text.size());
    } catch (const nlohmann::json::exception& e) {
        if (error) {
            // "[json.exception.parse_error.101] parse error at line 1, column 2: ...": the bracket
            // is nlohmann's id, not for the user.
            QString line = QString::fromUtf8(e.what());
            if (line.startsWith('[') && line.contains("] ")) line = line.mid(line.indexOf("] ") + 2);
            *error = line;
        }
        return std::nullopt;
    }
}

}  // namespace streetgan::ui
