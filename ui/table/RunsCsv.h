// The Runs table as CSV (RFC 4180): a header of column titles, then one line per row of `model`
// (the proxy: filters and sort order as shown) over `columns` in the order given (the visible
// columns as the header shows them). A cell shown as a number is written as its whole number
// (RunsTableRoles::NumberRole, shortest round-trip form), not as its rounded text; other cells
// ("1200 / 5000", "3 min 20 s", a checkpoint) as their text. A field with
// a comma, a double quote, a line break or surrounding spaces is quoted, quotes doubled.
// Pure functions of the model; GUI thread (the model's).
#pragma once

#include <QList>
#include <QString>

class QAbstractItemModel;

namespace streetgan::ui {

class RunsCsv {
public:
    static QString field(const QString& text);
    static QString toCsv(const QAbstractItemModel& model, const QList<int>& columns);
    /// Writes toCsv() to `path`; returns "" or the one-line reason it could not (naming the file).
    static QString write(const QString& path, const QAbstractItemModel& model, const QList<int>& columns);
};

}  // namespace streetgan::ui
