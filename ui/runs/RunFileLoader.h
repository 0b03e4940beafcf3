// Worker: reads a local run's events.jsonl from the start on its own thread, parses it into
// EventBatches appended to an EventBuffer (chunks of ~64k lines), and reports progress and the
// offset reached (the end of the last complete line, where attach continues). A TensorBoard run
// of another trainer (no events.jsonl; event files in the folder) is read the same way through a
// TensorBoardFollower, its typed events going to the parser without JSON; the offset is then in
// its event files. Functor connects only; results carry the job id; cancel() is an atomic flag.
// Lives in a worker QThread.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace streetgan::ui {

class EventBuffer;

class RunFileLoader : public QObject {
    Q_OBJECT
public:
    explicit RunFileLoader(std::shared_ptr<EventBuffer> buffer) : buffer_(std::move(buffer)) {}
    /// Call on the worker thread (QMetaObject::invokeMethod with a functor).
    void load(quint64 jobId, const QString& eventsPath);
    void cancel() { cancel_.store(true); }

signals:
    void progress(quint64 jobId, qint64 bytesDone, qint64 bytesTotal);
    /// The file was read up to `endOffset` (0 when it does not exist yet). `lines` parsed.
    void finished(quint64 jobId, qint64 endOffset, qint64 lines, double seconds);
    void failed(quint64 jobId, const QString& message);

private:
    void loadTensorBoard(quint64 jobId, const QString& runDir);

    std::shared_ptr<EventBuffer> buffer_;
    std::atomic<bool> cancel_{false};
};

}  // namespace streetgan::ui
