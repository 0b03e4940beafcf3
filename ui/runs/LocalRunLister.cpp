#include "runs/LocalRunLister.h"


namespace streetgan::ui {

void LocalRunLister::list(quint64 jobId, const QString& root) {
    try {
        RunEntryList out;
        for (const RunInfo& r : cache_.list(root.toStdString())) {
            RunEntry e;
            e.name = QString::fromStdString(r.name);
            e.path = QString::fromStdString(r.path);
            e.state = QString::fromStdString(r.state);
            e.step = r.step;
            e.totalSteps = r.totalSteps;
            e.updated = r.updated;
            e.error = QString::fromStdString(r.error);
            out.push_back(e);
        }
        emit listed(jobId, out);
    } catch (const std::exception& e) {
        emit failed(jobId, QString::fromStdString(e.what()));
    }
}

}  // namespace streetgan::ui
