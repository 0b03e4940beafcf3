// Worker: lists the runs of a local folder off the GUI thread (base's RunStatusCache: state from
// each events.jsonl and the trainer lock; a refresh reads only what the files gained). Results
// carry the job id. Lives on one worker thread.
#pragma once

#include <QObject>

#include "base/follow/RunStatusCache.h"
#include "common/RunEntry.h"

namespace streetgan::ui {

class LocalRunLister : public QObject {
    Q_OBJECT
public:
    void list(quint64 jobId, const QString& root);
signals:
    void listed(quint64 jobId, const streetgan::ui::RunEntryList& runs);
    void failed(quint64 jobId, const QString& message);

private:
    RunStatusCache cache_;
};

}  // namespace streetgan::ui
