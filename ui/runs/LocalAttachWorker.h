// Worker: follows a local run by running `streetgan-trainer attach RUN --from-offset E` as a child
// process (the same protocol lines, parsed by the same EventLineParser, as a remote run over SSH).
// When the child dies while the run is still alive (its trainer lock held), it restarts attach
// from the offset of the last event received, so no event is lost or repeated.
// Lives in a worker QThread; call its methods there (QMetaObject::invokeMethod with a functor).
#pragma once

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QString>

#include <memory>

#include "events/EventLineParser.h"

class QTimer;

namespace streetgan::ui {

class EventBuffer;

class LocalAttachWorker : public QObject {
    Q_OBJECT
public:
    LocalAttachWorker(std::shared_ptr<EventBuffer> buffer, QString trainer, QString runDir);
    ~LocalAttachWorker() override;
    void start(qint64 fromOffset);
    /// One JSON command line (no newline), e.g. {"cmd":"pause"}.
    void sendCommand(const QByteArray& json);
    void stop();

signals:
    /// `state`: an AttachStatus::State value (Connecting, Attached, Reconnecting, Ended, Stopped).
    void connectionChanged(int state, const QString& message);
    void failed(const QString& message);

private:
    void launch();
    void onReadyRead();
    void onFinished(int exitCode);

    std::shared_ptr<EventBuffer> buffer_;
    QString trainer_, runDir_;
    QProcess* process_ = nullptr;
    QTimer* retry_ = nullptr;
    QByteArray carry_, stderr_, pendingCommands_;
    EventLineParser parser_;
    qint64 offset_ = 0;
    bool ended_ = false, stopping_ = false, progressed_ = false;
    int failures_ = 0;
};

}  // namespace streetgan::ui
