// One row of a runs listing (local `RunStatus::list` or remote `ls --json`), as the sidebar shows it.
#pragma once

#include <QMetaType>
#include <QString>
#include <QVector>

namespace streetgan::ui {

struct RunEntry {
    QString name, path, state;
    qint64 step = 0, totalSteps = 0;
    double updated = 0;
    QString error;
};
using RunEntryList = QVector<RunEntry>;

}  // namespace streetgan::ui

Q_DECLARE_METATYPE(streetgan::ui::RunEntry)
Q_DECLARE_METATYPE(streetgan::ui::RunEntryList)
