// The reading side of nlohmann::json (the one JSON library of ui/ and core/base) in Qt code;
// JsonText is the writing side (text, byte-exact).
//  - JsonFields: fields of an object read leniently: a missing key, a non-object or a value of
//    another type gives the fallback, never an exception (nlohmann's value() throws on a type
//    mismatch), so a reply or a file from another version with a field missing or retyped still
//    reads;
//  - QString converts to and from a JSON string (the adl_serializer below), so requests are built
//    as json{{"checkpoint", path}} and strings read with get<QString>();
//  - nlohmann::json is a Qt meta type (RenderClient's signals carry it; QSignalSpy and QVariant).
//
// Thread contract: stateless static functions, thread-safe.
#pragma once

#include <QMetaType>
#include <QString>

#include <nlohmann/json.hpp>

namespace streetgan::ui {

class JsonFields {
public:
    /// o[key] when o is an object holding it; a null value otherwise.
    static const nlohmann::json& at(const nlohmann::json& o, const char* key);
    /// A boolean, else `fallback`.
    static bool flag(const nlohmann::json& o, const char* key, bool fallback = false) { return asBool(at(o, key), fallback); }
    /// A string, else `fallback`.
    static QString text(const nlohmann::json& o, const char* key, const QString& fallback = {}) { return asText(at(o, key), fallback); }
    /// An integer, or a number with an integral value in qint64's range; else `fallback`.
    static qint64 integer(const nlohmann::json& o, const char* key, qint64 fallback = 0) { return asInteger(at(o, key), fallback); }
    /// As integer(), within int's range.
    static int integer32(const nlohmann::json& o, const char* key, int fallback = 0) { return asInt(at(o, key), fallback); }
    /// Any number, else `fallback`.
    static double number(const nlohmann::json& o, const char* key, double fallback = 0) { return asDouble(at(o, key), fallback); }

    // The same for a value itself (an array's element).
    static bool asBool(const nlohmann::json& v, bool fallback = false);
    static QString asText(const nlohmann::json& v, const QString& fallback = {});
    static qint64 asInteger(const nlohmann::json& v, qint64 fallback = 0);
    static int asInt(const nlohmann::json& v, int fallback = 0);
    static double asDouble(const nlohmann::json& v, double fallback = 0);
};

}  // namespace streetgan::ui

namespace nlohmann {

// QString <-> JSON string (UTF-8).
template <>
struct adl_serializer<QString> {
    static void to_json(json& j, const QString& s) { j = s.toStdString(); }
    static void from_json(const json& j, QString& s) { s = QString::fromStdString(j.get<std::string>()); }
};

}  // namespace nlohmann

Q_DECLARE_METATYPE(nlohmann::json)
