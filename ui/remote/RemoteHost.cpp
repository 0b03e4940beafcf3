#include "remote/RemoteHost.h"

#include <QThread>
#include <QTimer>

#include "base/remote/SshSession.h"
#include "common/WorkerThreads.h"
#include "remote/RemoteHostWorker.h"
#include "remote/SshPrompter.h"

namespace streetgan::ui {

QString HostConfig::label() const {
    QString s = host;
    if (!user.isEmpty() && !host.contains('@')) s = user + "@" + s;
    if (port > 0 && port != 22) s += ":" + QString::number(port);
    return s;
}

QString HostConfig::identity() const {
    try {
        // The target is the last hop; the jump hosts do not make another host of it. Resolving
        // runs `ssh -G` (no network, a few ms): fine on the GUI thread, once per connect.
        const SshHop hop = SshSession::resolve(toSshOptions()).back();
        return QString::fromStdString(hop.user + "@" + hop.hostName + ":" + std::to_string(hop.port));
    } catch (const std::exception&) {
        return label();
    }
}

SshOptions HostConfig::toSshOptions() const {
    SshOptions o;
    o.host = host.toStdString();
    if (port > 0) o.port = port;
    if (!user.isEmpty()) o.user = user.toStdString();
    if (!keyFile.isEmpty()) o.identityFiles = {keyFile.toStdString()};
    if (!jump.isEmpty()) o.jump = jump.toStdString();
    o.knownHostsFile = knownHosts.toStdString();
    o.configFile = configFile.toStdString();
    return o;
}

QVariantMap HostConfig::toVariant() const {
    return {{"host", host},
            {"user", user},
            {"port", port},
            {"key", keyFile},
            {"jump", jump},
            {"root", root},
            {"trainer", trainer},
            {"knownHosts", knownHosts},
            {"configFile", configFile},
            {"scheduler", scheduler}};
}

HostConfig HostConfig::fromVariant(const QVariantMap& m) {
    HostConfig c;
    c.host = m.value("host").toString();
    c.user = m.value("user").toString();
    c.port = m.value("port").toInt();
    c.keyFile = m.value("key").toString();
    c.jump = m.value("jump").toString();
    c.root = m.value("root", c.root).toString();
    c.trainer = m.value("trainer", c.trainer).toString();
    c.knownHosts = m.value("knownHosts").toString();
    c.configFile = m.value("configFile").toString();
    c.scheduler = m.value("scheduler").toString() == kSlurm ? QString(kSlurm) : QString();  // an unknown word: a plain host
    return c;
}

RemoteHost::RemoteHost(HostConfig config, SshPrompter* prompter, QObject* parent)
    : QObject(parent), config_(std::move(config)), identity_(config_.identity()), prompter_(prompter), thread_(new QThread(this)) {
    worker_ = new RemoteHostWorker(sshOptions(), config_.trainer);
    worker_->moveToThread(thread_);
    connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
    auto done = [this] {
        if (--busy_ == 0) emit busyChanged(false);
    };
    connect(worker_, &RemoteHostWorker::connected, this, [this](const QString& l) {
        reachable_ = true;
        emit connected(l);
    });
    connect(worker_, &RemoteHostWorker::runsListed, this, [this, done](quint64 job, const RunEntryList& runs) {
        done();
        if (job != listJob_) return;  // an older listing
        runs_ = runs;
        listed_ = true;
        succeeded();
        emit runsListed(runs);
        pollSlurmRuns();
    });
    connect(worker_, &RemoteHostWorker::recordsListed, this, [this, done](quint64 job, const RunRecordList& records) {
        done();
        recordJobs_.remove(job);
        succeeded();
        emit recordsListed(records);
    });
    connect(worker_, &RemoteHostWorker::runStarted, this, [this, done](quint64 job, const QString& path) {
        done();
        startJobs_.remove(job);
        emit runStarted(path);
    });
    connect(worker_, &RemoteHostWorker::runSubmitted, this, [this, done](quint64 job, const QString& path) {
        done();
        startJobs_.remove(job);
        submitted_.insert(path);
        emit runSubmitted(path);
        refresh();  // listed queued (or running) at once; pollSlurmRuns keeps it moving
    });
    connect(worker_, &RemoteHostWorker::runCancelled, this, [this, done](quint64 job, const QString& path) {
        done();
        startJobs_.remove(job);
        emit runCancelled(path);
        refresh();  // the listing shows it cancelled
    });
    connect(worker_, &RemoteHostWorker::trainerProbed, this, [this, done](quint64, const TrainerStatus& status) {
        done();
        trainerStatus_ = status;
        succeeded();
        emit trainerProbed(status);
    });
    connect(worker_, &RemoteHostWorker::tensorBoardFoldersFound, this,
            [this, done](quint64, const QString& home, const RemoteFolderList& folders, int listed, bool cut, const QString& error) {
                done();
                emit tensorBoardFoldersFound(home, folders, listed, cut, error);
            });
    connect(worker_, &RemoteHostWorker::folderListed, this, [this, done](quint64, const RemoteFolder& folder) {
        done();
        emit folderListed(folder);
    });
    connect(worker_, &RemoteHostWorker::failed, this, [this, done](quint64 job, const QString& m, bool reached) {
        done();
        if (recordJobs_.remove(job)) {
            if (reached) reachable_ = true;
            emit recordsFailed(m);
            return;
        }
        if (startJobs_.remove(job)) {
            // A run that did not start says so (once: it is its own failure), and the host
            // stays as it was: its connection and listing are fine.
            emit failed(m);
            return;
        }
        reachable_ = reached;
        fail(m);
    });
    thread_->start();
}

void RemoteHost::succeeded() {
    reachable_ = true;
    if (lastError_.isEmpty()) return;
    lastError_.clear();
    emit stateChanged();
}

void RemoteHost::fail(const QString& message) {
    // One message per failure: the listing and the probe asked together both fail to connect.
    if (message == lastError_) return;
    lastError_ = message;
    emit stateChanged();
    emit failed(message);
}

RemoteHost::~RemoteHost() { WorkerThreads::quitWithoutBlocking(thread_); }

SshOptions RemoteHost::sshOptions() const { return prompter_ ? prompter_->withPrompts(config_.toSshOptions()) : config_.toSshOptions(); }

void RemoteHost::refresh() {
    if (busy_++ == 0) emit busyChanged(true);
    const quint64 job = listJob_ = ++job_;
    const QString root = config_.root;
    QMetaObject::invokeMethod(worker_, [w = worker_, job, root] { w->listRuns(job, root); });
}

void RemoteHost::listRecords() {
    if (busy_++ == 0) emit busyChanged(true);
    const quint64 job = ++job_;
    recordJobs_.insert(job);
    const QString root = config_.root;
    QMetaObject::invokeMethod(worker_, [w = worker_, job, root] { w->listRecords(job, root); });
}

void RemoteHost::startRun(const QStringList& args) {
    if (busy_++ == 0) emit busyChanged(true);
    const quint64 job = ++job_;
    startJobs_.insert(job);
    QMetaObject::invokeMethod(worker_, [w = worker_, job, args] { w->startRun(job, args); });
}

void RemoteHost::submitRun(const QStringList& args, const SlurmJobSpec& job) {
    if (busy_++ == 0) emit busyChanged(true);
    const quint64 id = ++job_;
    startJobs_.insert(id);  // a refusal is the submission's failure, not the host's
    QMetaObject::invokeMethod(worker_, [w = worker_, id, args, job] { w->submitRun(id, args, job); });
}

void RemoteHost::cancelRun(const QString& runDir) {
    if (busy_++ == 0) emit busyChanged(true);
    const quint64 id = ++job_;
    startJobs_.insert(id);
    QMetaObject::invokeMethod(worker_, [w = worker_, id, runDir] { w->cancelRun(id, runDir); });
}

const RunEntry* RemoteHost::listedRun(const QString& runDir) const {
    for (const RunEntry& r : runs_)
        if (r.path == runDir) return &r;
    return nullptr;
}

bool RemoteHost::isSlurmRun(const QString& runDir) const {
    const RunEntry* r = listedRun(runDir);
    return submitted_.contains(runDir) || (r && !r->slurmJob.isEmpty());
}

void RemoteHost::pollSlurmRuns() {
    // Every 2 s: one squeue through the host's session per listing, cheap for the login node,
    // and a queued run is seen running within a plot's first points.
    static const QSet<QString> kMoving = {"queued", "running", "paused", "requeued", "suspended", "new"};
    bool moving = false;
    for (const RunEntry& r : runs_) moving = moving || (!r.slurmJob.isEmpty() && kMoving.contains(r.state));
    for (const QString& dir : submitted_) moving = moving || !listedRun(dir);
    if (!moving || slurmPoll_) return;
    slurmPoll_ = true;
    QTimer::singleShot(2000, this, [this] {
        slurmPoll_ = false;
        refresh();
    });
}

void RemoteHost::probeTrainer() {
    if (busy_++ == 0) emit busyChanged(true);
    const quint64 job = ++job_;
    QMetaObject::invokeMethod(worker_, [w = worker_, job] { w->probeTrainer(job); });
}

void RemoteHost::findTensorBoardFolders() {
    if (busy_++ == 0) emit busyChanged(true);
    const quint64 job = ++job_;
    QMetaObject::invokeMethod(worker_, [w = worker_, job] { w->findTensorBoardFolders(job); });
}

void RemoteHost::listFolder(const QString& path) {
    if (busy_++ == 0) emit busyChanged(true);
    const quint64 job = ++job_;
    QMetaObject::invokeMethod(worker_, [w = worker_, job, path] { w->listFolder(job, path); });
}

void RemoteHost::noteFollowConnection(bool healthy, const QString& text) {
    if (healthy == followProblem_.isEmpty()) return;  // nothing new
    followProblem_ = healthy ? QString() : text;
    if (healthy) reachable_ = true;  // a run follows live: the host answers
    emit stateChanged();
}

void RemoteHost::setRoot(const QString& root) {
    if (root.isEmpty() || root == config_.root) return;
    config_.root = root;
    emit configChanged(config_);
}

void RemoteHost::setScheduler(const QString& scheduler) {
    if (scheduler == config_.scheduler) return;
    config_.scheduler = scheduler;
    emit configChanged(config_);
}

void RemoteHost::setTrainer(const QString& trainer) {
    config_.trainer = trainer;
    QMetaObject::invokeMethod(worker_, [w = worker_, trainer] { w->setTrainer(trainer); });
    emit configChanged(config_);
}

}  // namespace streetgan::ui
