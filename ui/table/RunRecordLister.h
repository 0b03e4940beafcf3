// Worker: the Runs table's records of every run under a local folder (the workspace), off the GUI
// thread, through base's RunRecordCache: the first listing reads each run whole, the next ones
// only what its files gained (a live run's new events), so relisting a workspace of hundreds of
// runs every few seconds stays cheap. A listing that takes longer than a tenth of a second hands
// out what it has read so far as it goes (`partial`), so the table fills while it reads. A folder that does not exist yet is no runs, not an error.
// Results carry the job id. Lives on one worker thread.
#pragma once

#include <QObject>

#include <memory>
#include <string>

#include "base/follow/RunRecordCache.h"
#include "remote/RemoteHostRecords.h"

namespace streetgan::ui {

class RunRecordLister : public QObject {
    Q_OBJECT
public:
    void list(quint64 jobId, const QString& root);
signals:
    /// Some of the runs, read so far, before `listed` (which has them all).
    void partial(quint64 jobId, const streetgan::ui::RunRecordList& records);
    /// Every run under the root, as RunRecordReader::list names and orders them.
    void listed(quint64 jobId, const streetgan::ui::RunRecordList& records);
    void failed(quint64 jobId, const QString& message);

private:
    std::unique_ptr<RunRecordCache> cache_;
    std::string root_;  ///< the folder cache_ is of
};

}  // namespace streetgan::ui
