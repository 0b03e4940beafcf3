#include "table/RunRecordLister.h"

#include <QFileInfo>

namespace streetgan::ui {

void RunRecordLister::list(quint64 jobId, const QString& root) {
    const std::string r = root.toStdString();
    if (!cache_ || r != root_) cache_ = std::make_unique<RunRecordCache>();  // another folder: nothing to reuse
    root_ = r;
    if (!QFileInfo(root).isDir()) {  // not made yet (the first start): no runs
        emit listed(jobId, {});
        return;
    }
    try {
        const std::vector<RunRecord> records =
            cache_->list(r, [this, jobId](const std::vector<RunRecord>& batch) { emit partial(jobId, RunRecordList(batch.begin(), batch.end())); });
        emit listed(jobId, RunRecordList(records.begin(), records.end()));
    } catch (const std::exception& e) {
        emit failed(jobId, QString::fromStdString(e.what()));
    }
}

}  // namespace streetgan::ui
