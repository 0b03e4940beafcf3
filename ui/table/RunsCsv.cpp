#include "table/RunsCsv.h"

#include <QAbstractItemModel>
#include <QCoreApplication>
#include <QLocale>
#include <QSaveFile>

#include "table/RunsTableRoles.h"

namespace streetgan::ui {

QString RunsCsv::field(const QString& text) {
    const bool quote = text.contains(',') || text.contains('"') || text.contains('\n') || text.contains('\r') || text.trimmed() != text;
    if (!quote) return text;
    QString t = text;
    return '"' + t.replace('"', "\"\"") + '"';
}

QString RunsCsv::toCsv(const QAbstractItemModel& model, const QList<int>& columns) {
    QString out;
    QStringList line;
    for (int c : columns) line << field(model.headerData(c, Qt::Horizontal).toString());
    out += line.join(',') + "\r\n";
    for (int r = 0; r < model.rowCount(); ++r) {
        line.clear();
        for (int c : columns) {
            const QModelIndex i = model.index(r, c);
            const QVariant n = i.data(RunsTableRoles::NumberRole);
            const QString text = i.data(Qt::DisplayRole).toString();
            bool shownAsNumber = false;
            text.toDouble(&shownAsNumber);
            // The shortest text that reads back as the same double, not the 4 digits shown.
            line << field(n.isValid() && shownAsNumber ? QString::number(n.toDouble(), 'g', QLocale::FloatingPointShortest) : text);
        }
        out += line.join(',') + "\r\n";
    }
    return out;
}

QString RunsCsv::write(const QString& path, const QAbstractItemModel& model, const QList<int>& columns) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return QCoreApplication::translate("RunsCsv", "Cannot write %1: %2").arg(path, f.errorString());
    f.write(toCsv(model, columns).toUtf8());
    if (!f.commit()) return QCoreApplication::translate("RunsCsv", "Cannot write %1: %2").arg(path, f.errorString());
    return {};
}

}  // namespace streetgan::ui
