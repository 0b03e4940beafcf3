// Ending a worker thread from the GUI thread without blocking it: a worker may sit in an SSH
// connect or a download for up to its timeout. quitWithoutBlocking() asks the thread to quit,
// waits a short grace period, and otherwise lets it finish on its own: the thread is unparented
// and deletes itself (and, through their own finished() connections, its workers) when done.
// Workers must therefore own (or share) everything they use: no references into their creator.
#pragma once

class QThread;

namespace streetgan::ui {

class WorkerThreads {
public:
    /// Call from the thread that owns `thread` (the GUI thread), typically in a destructor.
    static void quitWithoutBlocking(QThread* thread, int graceMs = 200);
};

}  // namespace streetgan::ui
