#include "runs/RunSession.h"

#include <QFileInfo>
#include <QThread>

#include <cmath>
#include <limits>

#include "base/follow/RunStatus.h"
#include "base/run/Events.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "common/TrainerLocator.h"
#include "common/WorkerThreads.h"

#include <nlohmann/json.hpp>

#include "events/EventBuffer.h"
#include "remote/RemoteAttachWorker.h"
#include "remote/RunFileFetcher.h"
#include "runs/LocalAttachWorker.h"
#include "runs/RunFileLoader.h"
#include "runs/RunPalette.h"

namespace streetgan::ui {

RunSession::RunSession(QString runDir, QString trainer, QObject* parent)
    : QObject(parent), runDir_(std::move(runDir)), trainer_(std::move(trainer)), buffer_(std::make_shared<EventBuffer>()) {
    initThreads();
}

RunSession::RunSession(QString runDir, SshOptions ssh, QString remoteTrainer, QString hostLabel, QObject* parent)
    : QObject(parent),
      runDir_(std::move(runDir)),
      trainer_(std::move(remoteTrainer)),
      hostLabel_(std::move(hostLabel)),
      ssh_(std::move(ssh)),
      buffer_(std::make_shared<EventBuffer>()) {
    initThreads();
}

void RunSession::initThreads() {
    title_ = makeTitle();
    drainTimer_.setInterval(kFrameMs);
    connect(&drainTimer_, &QTimer::timeout, this, [this] { drainNow(); });
    thread_ = new QThread(this);
    fileThread_ = new QThread(this);
    fetcher_ = new RunFileFetcher(runDir_, ssh_);
    fetcher_->moveToThread(fileThread_);
    connect(fileThread_, &QThread::finished, fetcher_, &QObject::deleteLater);
    connect(fetcher_, &RunFileFetcher::imageReady, this,
            [this](quint64 job, const QString& rel, const QString& local, const QImage& img) { emit imageReady(job, rel, local, img); });
    connect(fetcher_, &RunFileFetcher::failed, this, [this](quint64 job, const QString& m) { emit imageFailed(job, m); });
    connect(fetcher_, &RunFileFetcher::progress, this, [this](quint64, qint64 done, qint64 total) { emit downloadProgress(done, total); });
    connect(fetcher_, &RunFileFetcher::gridsReady, this, [this](quint64 job, const QString& checkpoint, const QStringList& pngs) {
        if (job != gridsJob_) return;
        std::vector<RunFileRef> refs;
        for (qsizetype k = 0; k < pngs.size(); ++k) refs.push_back(RunFileRef{k, pngs[k].toStdString()});
        if (checkpoint == gridsCheckpoint_ && refs.size() == checkpointGrids_.size()) return;  // the same grids again
        gridsCheckpoint_ = checkpoint;
        checkpointGrids_ = std::move(refs);
        emit checkpointGridsChanged();
    });
    connect(fetcher_, &RunFileFetcher::gridsOffered, this, [this](quint64 job, const QString& checkpoint, qint64 size) {
        if (job == gridsJob_) emit checkpointGridsOffered(checkpoint, size);
    });
    connect(fetcher_, &RunFileFetcher::gridsFailed, this, [this](quint64 job, const QString& m) {
        if (job == gridsJob_) emit checkpointGridsFailed(m);
    });
    // A local run's newest checkpoint is looked for again now and then: the reference saves one per
    // epoch, and a listing of three folders is cheap (an extracted checkpoint is not read again).
    gridsTimer_.setInterval(30000);
    connect(&gridsTimer_, &QTimer::timeout, this, [this] { loadCheckpointGrids(); });
    fileThread_->start();
}

RunSession::~RunSession() {
    stop();
    if (loader_) loader_->cancel();
    fetcher_->cancel();
    // Never wait on the GUI thread for a worker stuck in an SSH connect or a download: the
    // workers share the buffer (shared_ptr) and copy their options, so they may outlive us.
    WorkerThreads::quitWithoutBlocking(thread_);
    WorkerThreads::quitWithoutBlocking(fileThread_);
}

QString RunSession::runKey() const { return RunPalette::key(isRemote() ? hostLabel_ : QString(), runDir_); }

// Once, when the session is made: the legends, tabs and menus ask often, on the GUI thread.
QString RunSession::makeTitle() const {
    QString name = QFileInfo(runDir_).fileName();
    // Another trainer's TensorBoard folder is often named the same in every run: the reference's
    // NAME/events is NAME (as the Runs list names it: RunStatus::tensorBoardNameUnder), another
    // such folder (a Lightning version_0) goes with its parent's name.
    const std::string dir = runDir_.toStdString();
    if (name == QLatin1String("events"))
        name = QFileInfo(QFileInfo(runDir_).path()).fileName();
    else if (!isRemote() && !RunStatus::isRunDirectory(dir) && TensorBoardRun::isRun(dir))
        name = QFileInfo(QFileInfo(runDir_).path()).fileName() + "/" + name;
    return isRemote() ? name + " @ " + hostLabel_ : name;
}

void RunSession::start() {
    if (started_) return;
    started_ = true;
    drainTimer_.start();
    if (ssh_) {
        AttachOptions o;
        o.run = runDir_.toStdString();
        o.remoteTrainer = trainer_.toStdString();
        remoteAttach_ = new RemoteAttachWorker(buffer_, *ssh_, o);
        remoteAttach_->moveToThread(thread_);
        connect(thread_, &QThread::finished, remoteAttach_, &QObject::deleteLater);
        connect(remoteAttach_, &RemoteAttachWorker::connectionChanged, this, [this](int s, const QString& m) { onConnection(s, m); });
        connect(remoteAttach_, &RemoteAttachWorker::failed, this, [this](const QString& m) {
            emit connectionChanged(tr("%1: not connected").arg(hostLabel_), false);
            emit errorOccurred(tr("Following %1 on %2 failed: %3").arg(runDir_, hostLabel_, m),
                               tr("Check that the host is reachable and that streetgan-trainer is installed there, then open the run again."));
        });
        thread_->start();
        QMetaObject::invokeMethod(remoteAttach_, [w = remoteAttach_] { w->run(); });
        return;
    }
    loader_ = new RunFileLoader(buffer_);
    loader_->moveToThread(thread_);
    connect(thread_, &QThread::finished, loader_, &QObject::deleteLater);
    connect(loader_, &RunFileLoader::progress, this, [this](quint64 job, qint64 done, qint64 total) {
        if (job == loadJob_) emit loadProgress(done, total);
    });
    connect(loader_, &RunFileLoader::finished, this, [this](quint64 job, qint64 end, qint64 lines, double seconds) {
        if (job != loadJob_) return;
        loading_ = false;
        drainNow();
        emit loaded(lines, seconds);
        startAttach(end);
    });
    connect(loader_, &RunFileLoader::failed, this, [this](quint64 job, const QString& m) {
        if (job != loadJob_) return;
        loading_ = false;
        emit errorOccurred(m, tr("Check that the run directory is readable."));
    });
    thread_->start();
    loading_ = true;
    const quint64 job = ++loadJob_;
    const QString events = runDir_ + "/events.jsonl";
    QMetaObject::invokeMethod(loader_, [l = loader_, job, events] { l->load(job, events); });
}

void RunSession::startAttach(qint64 offset) {
    localAttach_ = new LocalAttachWorker(buffer_, runDir_);  // in-process: no attach child
    localAttach_->moveToThread(thread_);
    connect(thread_, &QThread::finished, localAttach_, &QObject::deleteLater);
    connect(localAttach_, &LocalAttachWorker::connectionChanged, this, [this](int s, const QString& m) { onConnection(s, m); });
    connect(localAttach_, &LocalAttachWorker::failed, this, [this](const QString& m) {
        emit connectionChanged(tr("not following"), false);
        emit errorOccurred(tr("Following the run failed: %1").arg(m), tr("The plots show what was read; reopen the run to follow it again."));
    });
    QMetaObject::invokeMethod(localAttach_, [w = localAttach_, offset] { w->start(offset); });
    for (const QByteArray& line : std::exchange(pendingCommands_, {}))
        QMetaObject::invokeMethod(localAttach_, [w = localAttach_, line] { w->sendCommand(line); });
}

void RunSession::onConnection(int state, const QString& message) {
    using S = AttachStatus::State;
    const QString where = isRemote() ? hostLabel_ : tr("local");
    switch (static_cast<S>(state)) {
        case S::Connecting:
            emit connectionChanged(tr("%1: connecting…").arg(where), true);
            break;
        case S::Attached:
            emit connectionChanged(tr("%1: following live").arg(where), true);
            break;
        case S::Reconnecting:
            emit connectionChanged(tr("%1: connection lost, reconnecting (%2)").arg(where, message), false);
            break;
        case S::Ended: {
            drainNow();  // the end line is in the buffer: the state below includes it
            const QString state = QString::fromStdString(series_.state());
            emit connectionChanged(tr("%1: run ended (%2)").arg(where, state.isEmpty() ? message : state), true);
            break;
        }
        case S::Stopped:
            emit connectionChanged(tr("%1: not following").arg(where), true);
            break;
    }
}

void RunSession::stop() {
    drainTimer_.stop();
    if (remoteAttach_) remoteAttach_->stop();
    if (localAttach_)
        QMetaObject::invokeMethod(
            localAttach_, [w = localAttach_] { w->stop(); }, Qt::BlockingQueuedConnection);
    localAttach_ = nullptr;
    if (loader_) loader_->cancel();
}

void RunSession::drainNow() {
    if (!buffer_->hasPending()) return;
    EventBatch b = buffer_->take();
    for (const auto& r : b.replies) emit replyReceived(QString::fromStdString(r));
    for (const auto& e : b.errors) emit errorOccurred(tr("The trainer reported: %1").arg(QString::fromStdString(e)), {});
    // The live line's state is derived with the lock held or not (RunStatus::effectiveState): running
    // or paused only while a trainer holds it; a gone trainer's is crashed, finished, ...
    if (b.live && (b.liveState == RunState::kRunning || b.liveState == RunState::kPaused)) trainerSeenAlive_ = true;
    if (b.live && b.liveState == TensorBoardRun::kState && !tensorBoard_) {
        tensorBoard_ = true;
        loadCheckpointGrids();
        if (!isRemote()) gridsTimer_.start();
    }
    std::vector<ScalarPoint> scalars = std::move(b.scalars);
    const size_t from = series_.append(std::move(b));
    emit appended(static_cast<qsizetype>(from));
    appendScalars(scalars);
}

void RunSession::appendScalars(const std::vector<ScalarPoint>& points) {
    if (points.empty()) return;
    std::map<QString, EventBatch> byTag;
    for (const ScalarPoint& p : points) {
        MetricColumns& c = byTag[QString::fromStdString(p.tag)].metrics;
        c.t.push_back(p.t);
        c.step.push_back(p.step);
        c.epoch.push_back(std::numeric_limits<double>::quiet_NaN());
        // a tag's values go in the first column, which ScalarsPanel's plots draw
        for (int m = 0; m < kMetricCount; ++m) c.values[static_cast<size_t>(m)].push_back(m == 0 ? p.value : std::numeric_limits<double>::quiet_NaN());
    }
    for (auto& [tag, batch] : byTag) {
        auto& series = tagSeries_[tag];
        if (!series) series = std::make_unique<RunSeries>();
        batch.lines = static_cast<int64_t>(batch.metrics.size());
        // "time since start" counts from the run's first event, as in the other plots
        batch.firstT = series_.startTime() != 0 ? series_.startTime() : (std::isfinite(batch.metrics.t.front()) ? batch.metrics.t.front() : 0);
        const size_t from = series->append(std::move(batch));
        emit scalarsAppended(tag, static_cast<qsizetype>(from));
    }
}

void RunSession::sendCommand(const QString& cmd, std::optional<double> value) {
    nlohmann::json j = {{"cmd", cmd.toStdString()}};
    if (value) j["value"] = *value;
    if (remoteAttach_) {
        remoteAttach_->sendCommand(j);
    } else if (localAttach_) {
        const QByteArray line = QByteArray::fromStdString(j.dump());
        QMetaObject::invokeMethod(localAttach_, [w = localAttach_, line] { w->sendCommand(line); });
    } else if (loading_) {
        // The backlog is still being read (a long run, a busy disk): the follower that carries
        // commands starts after it, so the command waits for it instead of being lost.
        pendingCommands_ << QByteArray::fromStdString(j.dump());
    }
}

void RunSession::loadCheckpointGrids(bool download) {
    const quint64 job = ++gridsJob_;
    const QString trainer = isRemote() ? TrainerLocator::trainer() : trainer_;
    QMetaObject::invokeMethod(fetcher_, [f = fetcher_, job, trainer, download] { f->fetchCheckpointGrids(job, trainer, download); });
}

quint64 RunSession::requestImage(const QString& relativePath) {
    const quint64 job = ++imageJob_;
    QMetaObject::invokeMethod(fetcher_, [f = fetcher_, job, relativePath] { f->fetchImage(job, relativePath); });
    return job;
}

}  // namespace streetgan::ui
