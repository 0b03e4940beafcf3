// Worker: lists the runs of a local folder (core's RunStatus::list: state from the tail of each
// events.jsonl and the trainer lock) off the GUI thread. Results carry the job id.
#pragma once

#include <QObject>

#include "common/RunEntry.h"

namespace streetgan::ui {

class LocalRunLister : public QObject {
    Q_OBJECT
public:
    void list(quint64 jobId, const QString& root);
signals:
    void listed(quint64 jobId, const streetgan::ui::RunEntryList& runs);
    void failed(quint64 jobId, const QString& message);
};

}  // namespace streetgan::ui
