#include "common/RunEntry.h"

#include "base/follow/RunStatus.h"

namespace streetgan::ui {

RunEntry RunEntry::fromInfo(const RunInfo& info) {
    RunEntry e;
    e.name = QString::fromStdString(info.name);
    e.path = QString::fromStdString(info.path);
    e.state = QString::fromStdString(info.state);
    e.step = info.step;
    e.totalSteps = info.totalSteps;
    e.updated = info.updated;
    e.error = QString::fromStdString(info.error);
    e.slurmJob = QString::fromStdString(info.slurmJob);
    e.reason = QString::fromStdString(info.reason);
    return e;
}

}  // namespace streetgan::ui
