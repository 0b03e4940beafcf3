#include "runs/OpenRuns.h"

#include <QFileInfo>

#include "base/follow/RunStatus.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "common/TrainerLocator.h"
#include "remote/HostListModel.h"
#include "remote/RemoteHost.h"
#include "runs/RunSession.h"

namespace streetgan::ui {

OpenRuns::OpenRuns(SshPrompter* prompter, QObject* parent) : QObject(parent), hosts_(std::make_unique<HostListModel>(prompter)) {}

OpenRuns::~OpenRuns() {
    for (RunSession* s : sessions_) s->stop();
    qDeleteAll(sessions_);  // before the hosts whose options they use
    sessions_.clear();
    hosts_.reset();
}

QString OpenRuns::localRunDir(const QString& folder) {
    QString runDir = QFileInfo(folder).absoluteFilePath();
    if (!QFileInfo(runDir).isDir() || RunStatus::isAnyRun(runDir.toStdString())) return runDir;
    LocalEventFiles files;
    try {
        // Not tb/: a run of ours keeps its TensorBoard copy there, and may not be recognisable yet.
        const auto below = TensorBoardRun::find(files, runDir.toStdString(), 2);
        if (below.size() == 1 && QFileInfo(QString::fromStdString(below.front())).fileName() != QLatin1String("tb"))
            runDir += "/" + QString::fromStdString(below.front());
    } catch (const std::exception&) {  // unreadable: opening it says so
    }
    return runDir;
}

RunSession* OpenRuns::openLocal(const QString& folder) {
    const QString runDir = localRunDir(folder);
    for (RunSession* s : sessions_)
        if (!s->isRemote() && s->runDir() == runDir) {
            setActive(s);
            return s;
        }
    if (!QFileInfo(runDir).isDir()) {
        emit errorOccurred(tr("%1 is not a folder.").arg(runDir),
                           tr("Choose a run directory: a folder with run.json and events.jsonl, or one of TensorBoard event files."));
        return nullptr;
    }
    return add(new RunSession(runDir, TrainerLocator::trainer()));
}

RunSession* OpenRuns::openRemote(RemoteHost* host, const QString& runDir) {
    for (RunSession* s : sessions_)
        if (s->isRemote() && s->hostLabel() == host->label() && s->runDir() == runDir) {
            setActive(s);
            return s;
        }
    auto* s = new RunSession(runDir, host->sshOptions(), host->config().trainer, host->label());
    hostOf_.insert(s, host);
    return add(s);
}

RunSession* OpenRuns::add(RunSession* s) {
    sessions_ << s;
    connect(s, &RunSession::connectionChanged, this, [this, s](const QString& text, bool healthy) {
        if (s == active_) emit activeConnectionChanged(text);
        // The host's own state follows what its runs' connections say (one state per host).
        if (RemoteHost* host = hostOf_.value(s)) host->noteFollowConnection(healthy, text);
    });
    connect(s, &RunSession::loadProgress, this, [this, s](qint64 done, qint64 total) {
        if (s == active_) emit activeProgress(done, total, tr("reading events %p%"));
    });
    connect(s, &RunSession::downloadProgress, this, [this, s](qint64 done, qint64 total) {
        if (s == active_) emit activeProgress(done, total, tr("downloading %p%"));
    });
    connect(s, &RunSession::loaded, this, [this, s](qint64 lines, double seconds) {
        if (s == active_) emit activeProgress(1, 1, QString());
        emit statusMessage(tr("Read %1 events in %2 s").arg(lines).arg(seconds, 0, 'f', 2), 6000);
    });
    connect(s, &RunSession::errorOccurred, this, [this](const QString& what, const QString& todo) { emit errorOccurred(what, todo); });
    connect(s, &RunSession::appended, this, [this, s] { emit appended(s); });
    connect(s, &RunSession::replyReceived, this, [this](const QString& json) { emit statusMessage(tr("Trainer replied: %1").arg(json), 6000); });
    emit opened(s);
    setActive(s);
    s->start();
    return s;
}

void OpenRuns::close(RunSession* s) {
    if (!sessions_.contains(s)) return;
    emit closing(s);
    sessions_.removeOne(s);
    hostOf_.remove(s);
    s->stop();
    if (active_ == s || !active_) setActive(sessions_.isEmpty() ? nullptr : sessions_.back());
    delete s;
}

void OpenRuns::setActive(RunSession* s) {
    active_ = s;
    emit activeChanged(s);
}

}  // namespace streetgan::ui
