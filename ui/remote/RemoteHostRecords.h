// The Runs table's records of a remote host's runs as they travel from RemoteHostWorker (its
// worker thread) to RemoteHost and the table page (the GUI thread): one `streetgan-trainer ls ROOT
// --table --json` answer, a RunRecord per run, paths absolute on the host. Value type only.
#pragma once

#include <QList>
#include <QMetaType>

#include "base/follow/RunRecord.h"

namespace streetgan::ui {
using RunRecordList = QList<streetgan::RunRecord>;
}  // namespace streetgan::ui

Q_DECLARE_METATYPE(streetgan::ui::RunRecordList)
