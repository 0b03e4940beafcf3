#include "common/WorkerThreads.h"

#include <QThread>

namespace streetgan::ui {

void WorkerThreads::quitWithoutBlocking(QThread* thread, int graceMs) {
    thread->quit();
    if (thread->wait(graceMs)) return;
    thread->setParent(nullptr);  // outlives its creator; deleted in the event loop once finished
    QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
}

}  // namespace streetgan::ui
