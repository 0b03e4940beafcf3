// Worker: follows a local run in this process with the AttachFollower that
// `streetgan-trainer attach RUN --from-offset E` uses (app/trainer/AttachCommand.cpp), not through
// that command as a child (a child would load LibTorch for each open run): events.jsonl from the
// offset reached, the run lock for liveness (a trainer gone with its last status "running" or
// "paused" has crashed) and the control socket for commands. The attach protocol's lines are
// parsed by the same EventLineParser as a remote run's over SSH, so the rest of the UI sees the
// same batches, offsets, live and end lines, and replies whichever way a run is followed.
// streetgan_base only.
// Thread contract: lives in the session's worker QThread (call start, sendCommand and stop there,
// with QMetaObject::invokeMethod); start() runs the follow loop on a thread of its own (it blocks
// on inotify), which stop() and the destructor join. Signals come from either thread (queued to
// the session). A read failure (the folder vanished, a file unreadable) is retried from the last
// offset, at growing intervals: no event lost or repeated.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "events/EventLineParser.h"

namespace streetgan::ui {

class EventBuffer;

class LocalAttachWorker : public QObject {
    Q_OBJECT
public:
    LocalAttachWorker(std::shared_ptr<EventBuffer> buffer, QString runDir);
    ~LocalAttachWorker() override;
    void start(qint64 fromOffset);
    /// One JSON command line (no newline), e.g. {"cmd":"pause"}: sent on the control socket (this
    /// call waits up to 10 s for the reply, which reaches the buffer as a reply line).
    void sendCommand(const QByteArray& json);
    void stop();

signals:
    /// `state`: an AttachStatus::State value (Connecting, Attached, Reconnecting, Ended, Stopped).
    void connectionChanged(int state, const QString& message);
    void failed(const QString& message);

private:
    void follow(int64_t fromOffset);
    // Reports a failed read and waits before the next try; false: give up (or stopping).
    bool retryAfter(int failures, const std::string& why, int64_t offset);
    void closeControl();

    std::shared_ptr<EventBuffer> buffer_;
    std::string runDir_;
    std::thread follower_;
    std::atomic<bool> stopping_{false};
    // Commands (the worker QThread): one control connection, reopened after a trainer restart.
    EventLineParser replyParser_;
    int controlFd_ = -1;
    std::string replyBuffer_;
};

}  // namespace streetgan::ui
