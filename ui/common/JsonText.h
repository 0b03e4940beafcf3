// The writing side of nlohmann::json (the one JSON library of ui/ and core/base) in Qt code: JSON
// text for the app's files and the explore worker's lines; JsonFields is the lenient reading side.
//
// write() prints exactly the bytes Qt's JSON writer prints (QJsonDocument::toJson), so a session
// file is byte-identical whichever of the two wrote it (and save after open stays idempotent): keys
// sorted (nlohmann::json's std::map order: bytewise UTF-8, which is Qt's UTF-16 order for every key
// without characters above U+FFFF), Indented = 4-space indentation with a newline after the
// closing bracket, Compact = no spaces at all; strings escaped like Qt (", \, \b \f \n \r \t,
// other controls as \u00xx, everything else raw UTF-8); numbers with an integral value in int64's
// range in decimal (1.0 as "1", -0.0 as "0": Qt reads them as integers), other numbers as
// QByteArray::number(v, 'g', QLocale::FloatingPointShortest): the shortest digits that read back
// the same, in the shorter of the decimal and the exponent form (0.25, 0.001, "1e-04",
// "1.5e+20"); NaN and infinities as null. (nlohmann's dump() writes 1.0 as "1.0" and indents by 2:
// the files would change.) Checked against Qt 6.4's writer on 2 million numbers and 80000
// random documents (every number read from text, as the app's are).
//
// Thread contract: stateless static functions, thread-safe.
#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

#include <nlohmann/json.hpp>

namespace streetgan::ui {

class JsonText {
public:
    enum class Format { Indented, Compact };

    /// The text of `value` as Qt's writer wrote it in `format` (Indented ends with '\n').
    static QByteArray write(const nlohmann::json& value, Format format = Format::Indented);
    /// One number as write() prints it.
    static QByteArray number(double value);
    /// Parses `text` as one JSON value. std::nullopt when it is not JSON; `error` then gets one
    /// line saying where and why.
    static std::optional<nlohmann::json> parse(const QByteArray& text, QString* error = nullptr);
};

}  // namespace streetgan::ui
