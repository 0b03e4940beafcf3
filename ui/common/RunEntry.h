// One row of a runs listing (local `RunStatus::list` or remote `ls --json`), as the sidebar shows it.
#pragma once

#include <QMetaType>
#include <QString>
#include <QVector>

namespace streetgan {
struct RunInfo;
}

namespace streetgan::ui {

struct RunEntry {
    QString name, path, state;
    qint64 step = 0, totalSteps = 0;
    double updated = 0;
    QString error;
    /// A Slurm run: its job id, and why it waits or how it ended ("Priority", "time limit").
    QString slurmJob, reason;

    /// The row of one run as RunStatus read it (locally, or from a remote `ls --json`); the one
    /// place where its fields cross over.
    static RunEntry fromInfo(const RunInfo& info);
};
using RunEntryList = QVector<RunEntry>;

}  // namespace streetgan::ui

Q_DECLARE_METATYPE(streetgan::ui::RunEntry)
Q_DECLARE_METATYPE(streetgan::ui::RunEntryList)
