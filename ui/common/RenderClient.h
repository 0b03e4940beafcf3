// The app's side of the explore worker (docs/explore-worker.md): starts `streetgan-trainer
// explore-worker` (TrainerLocator) as a QProcess, writes requests, parses header lines and binary
// payloads, and emits one `finished` per request. Fully asynchronous: no call blocks the GUI thread.
//
// Interactive use: `latest(channel, request)` keeps at most one request per channel in flight;
// a newer request for a busy channel replaces the one still waiting (the scrubber sends a request
// per mouse move; only the newest is rendered after the current one).
//
// If the worker dies, every outstanding request finishes with ok=false and the process's error;
// the next request restarts it.
//
// Requests and headers are nlohmann::json objects (JsonFields reads their fields leniently).
//
// Thread contract: a QObject of the GUI thread (or any one thread with an event loop).
#pragma once

#include <QByteArray>
#include <QHash>
#include <QImage>
#include <QList>
#include <QObject>
#include <QProcess>
#include <QSet>
#include <QString>

#include <nlohmann/json.hpp>

#include "common/JsonFields.h"

namespace streetgan::ui {

class RenderClient : public QObject {
    Q_OBJECT
public:
    /// device: "auto", "cpu" or "cuda" (--device of the worker). The process starts lazily.
    explicit RenderClient(const QString& device = QStringLiteral("auto"), QObject* parent = nullptr);
    /// Sends quit, waits at most 1 s, then kills the worker.
    ~RenderClient() override;

    /// Sends `request` (an "op" and its fields; the id is added) and returns its id.
    qint64 send(nlohmann::json request);
    /// As send(), but at most one request per `channel` is in flight: while one runs, a newer one
    /// waits and replaces any older waiting one (that one finishes with ok=false, "superseded").
    qint64 latest(const QString& channel, nlohmann::json request);
    /// Sends {"op":"cancel","target":id}.
    void cancel(qint64 id);

    // Convenience builders around send().
    qint64 open(const QString& checkpoint);
    qint64 exportSession(const QString& checkpoint, const nlohmann::json& session, const QString& out);

    bool isRunning() const;
    /// Requests sent and not finished yet.
    int outstanding() const;

    /// The payload of a reply as images (RGB888, deep copies): header "frames", "width", "height".
    static QList<QImage> images(const nlohmann::json& header, const QByteArray& payload);

signals:
    /// The final reply to request `id`: header["ok"], header["error"], the op's fields; payload
    /// holds the binary part (empty when none).
    void finished(qint64 id, const nlohmann::json& header, const QByteArray& payload);
    /// A progress header of a long request.
    void progress(qint64 id, qint64 done, qint64 total);
    /// The worker could not start or died; outstanding requests have finished with this error.
    void workerFailed(const QString& message);

private:
    void ensureStarted();
    void readReplies();
    void failAll(const QString& message);
    void write(const nlohmann::json& request);
    void deliver(const nlohmann::json& header, const QByteArray& payload);
    void startWaiting(const QString& channel);
    void workerDied(QProcess* process, const QString& message);

    QString device_;
    QProcess* process_ = nullptr;
    qint64 nextId_ = 1;
    QByteArray buffer_;
    nlohmann::json pendingHeader_;  ///< a header whose payload is still arriving
    qint64 pendingBytes_ = -1;
    QHash<qint64, QString> inFlight_;                               ///< id -> channel ("" for plain send)
    QHash<QString, qint64> channelBusy_;                            ///< channel -> id in flight
    QHash<QString, QPair<qint64, nlohmann::json>> channelWaiting_;  ///< channel -> (id, request)
    QSet<qint64> internal_;                                         ///< ids of our own cancel requests (replies not emitted)
    QByteArray stderrTail_;                                         ///< the worker's last diagnostics, for workerFailed
};

}  // namespace streetgan::ui
