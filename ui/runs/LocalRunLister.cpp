#include "runs/LocalRunLister.h"

namespace streetgan::ui {

void LocalRunLister::list(quint64 jobId, const QString& root) {
    try {
        RunEntryList out;
        for (const RunInfo& r : cache_.list(root.toStdString())) out.push_back(RunEntry::fromInfo(r));
        emit listed(jobId, out);
    } catch (const std::exception& e) {
        emit failed(jobId, QString::fromStdString(e.what()));
    }
}

}  // namespace streetgan::ui
