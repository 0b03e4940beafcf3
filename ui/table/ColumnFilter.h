// One column's filter in the Runs table, parsed from what the user typed:
//   "0.0001..0.001"  a range of numbers (either end may be left out: "..0.01", "500..")
//   "a,b,c"          a list: the cell's text is one of them (case-insensitive), or its number
//                    equals one of them ("1e-4,2e-4" matches 0.0002)
//   "/re/"           a regular expression searched in the cell's text (case-insensitive)
//   anything else    a number: the cell's number equals it; text: searched in the cell's text
//                    as a case-insensitive regular expression
// A cell with no value matches only a text or regular expression filter that matches "". Bad input
// (an invalid regular expression, a range end that is not a number) is not a filter: parse()
// says why in one line. Plain value; any thread.
#pragma once

#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <cmath>
#include <limits>

namespace streetgan::ui {

class ColumnFilter {
public:
    enum class Kind { None, Range, List, Pattern, Number };
    /// `error`, when given, gets the one-line reason a non-empty `text` is not a filter (then the
    /// result is Kind::None: it matches everything).
    static ColumnFilter parse(const QString& text, QString* error = nullptr);
    /// Whether a cell with `display` text and `number` (NaN when it has none) passes.
    bool matches(const QString& display, double number) const;
    Kind kind() const { return kind_; }
    QString text() const { return text_; }
    bool isActive() const { return kind_ != Kind::None; }

private:
    Kind kind_ = Kind::None;
    QString text_;
    double lo_ = -std::numeric_limits<double>::infinity(), hi_ = std::numeric_limits<double>::infinity(), value_ = 0;
    QStringList items_;
    QRegularExpression re_;
};

}  // namespace streetgan::ui
