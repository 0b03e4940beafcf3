#include "runs/LocalAttachWorker.h"

#include <QTimer>

#include "base/daemon/RunStatus.h"
#include "base/remote/RemoteAttach.h"
#include "base/run/Events.h"
#include "events/EventBuffer.h"

namespace streetgan::ui {

LocalAttachWorker::LocalAttachWorker(std::shared_ptr<EventBuffer> buffer, QString trainer, QString runDir)
    : buffer_(std::move(buffer)), trainer_(std::move(trainer)), runDir_(std::move(runDir)) {}

LocalAttachWorker::~LocalAttachWorker() {
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(2000);
    }
}

void LocalAttachWorker::start(qint64 fromOffset) {
    offset_ = fromOffset;
    if (!retry_) {
        retry_ = new QTimer(this);
        retry_->setSingleShot(true);
        connect(retry_, &QTimer::timeout, this, [this] { launch(); });
    }
    launch();
}

void LocalAttachWorker::launch() {
    if (stopping_ || ended_) return;
    if (process_) process_->deleteLater();
    process_ = new QProcess(this);
    carry_.clear();
    stderr_.clear();
    progressed_ = false;
    connect(process_, &QProcess::readyReadStandardOutput, this, [this] { onReadyRead(); });
    connect(process_, &QProcess::readyReadStandardError, this, [this] { stderr_ += process_->readAllStandardError(); });
    connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus) { onFinished(code); });
    connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            emit failed(tr("Cannot run %1 (%2). Set STREETGAN_TRAINER to the streetgan-trainer binary, or install it next to streetgan.")
                            .arg(trainer_, process_->errorString()));
            ended_ = true;
        }
    });
    emit connectionChanged(static_cast<int>(AttachStatus::State::Connecting), {});
    process_->start(trainer_, {"attach", runDir_, "--from-offset", QString::number(offset_)});
    if (!pendingCommands_.isEmpty()) {
        process_->write(pendingCommands_);
        pendingCommands_.clear();
    }
}

void LocalAttachWorker::onReadyRead() {
    carry_ += process_->readAllStandardOutput();
    EventBatch batch;
    qsizetype pos = 0;
    for (;;) {
        const qsizetype nl = carry_.indexOf('\n', pos);
        if (nl < 0) break;
        parser_.parseProtocol(std::string_view(carry_.constData() + pos, static_cast<size_t>(nl - pos)), batch);
        pos = nl + 1;
    }
    carry_.remove(0, pos);
    if (batch.empty()) return;
    if (batch.endOffset >= 0) offset_ = batch.endOffset;
    if (batch.live || (!progressed_ && batch.lines > 0)) {
        failures_ = 0;
        emit connectionChanged(static_cast<int>(AttachStatus::State::Attached), {});
    }
    progressed_ = true;
    const bool ended = batch.ended;
    const QString endState = QString::fromStdString(batch.endState);
    buffer_->append(std::move(batch));  // before the signal: the session drains, then reports
    if (ended) {
        ended_ = true;
        emit connectionChanged(static_cast<int>(AttachStatus::State::Ended), endState);
    }
}

void LocalAttachWorker::onFinished(int exitCode) {
    onReadyRead();
    if (ended_ || stopping_) return;
    // The child died before the end line: restart from the offset while the run lives.
    bool alive = false;
    try {
        const auto info = RunStatus::read(runDir_.toStdString());
        alive = info.state == RunState::kRunning || info.state == RunState::kPaused || info.state == RunState::kNew;
    } catch (const std::exception&) {}
    const QString why = QString::fromLocal8Bit(stderr_).trimmed();
    if (!alive && exitCode != 0) {
        emit failed(why.isEmpty() ? tr("streetgan-trainer attach exited with code %1").arg(exitCode) : why);
        ended_ = true;
        return;
    }
    ++failures_;
    if (failures_ > 8) {
        emit failed(tr("The local attach keeps failing (%1); the run is followed no more.").arg(why));
        return;
    }
    const int delay = std::min(8000, 250 << std::min(failures_, 5));
    emit connectionChanged(static_cast<int>(AttachStatus::State::Reconnecting),
                           tr("attach exited (%1); restarting from byte %2").arg(why.isEmpty() ? QString::number(exitCode) : why).arg(offset_));
    retry_->start(delay);
}

void LocalAttachWorker::sendCommand(const QByteArray& json) {
    if (process_ && process_->state() == QProcess::Running)
        process_->write(json + '\n');
    else
        pendingCommands_ += json + '\n';
}

void LocalAttachWorker::stop() {
    stopping_ = true;
    if (retry_) retry_->stop();
    if (process_) {
        process_->kill();
        process_->waitForFinished(2000);
    }
    emit connectionChanged(static_cast<int>(AttachStatus::State::Stopped), {});
}

}  // namespace streetgan::ui
