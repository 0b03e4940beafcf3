#include "remote/MultiHostRuns.h"

#include <QThread>

#include "common/WorkerThreads.h"
#include "remote/MultiHostWorker.h"
#include "remote/RemoteHost.h"

namespace streetgan::ui {

namespace {
MultiHostWorker::Hosts requestOf(const QList<RemoteHost*>& hosts) {
    MultiHostWorker::Hosts r;
    for (RemoteHost* h : hosts) r.ssh.push_back(h->sshOptions());  // with the GUI prompts, as the host connects
    r.trainer = hosts.front()->config().trainer.toStdString();
    return r;
}

QString labels(const QList<RemoteHost*>& hosts) {
    QStringList l;
    for (const RemoteHost* h : hosts) l << h->label();
    return l.join(", ");
}
}  // namespace

MultiHostRuns::MultiHostRuns(QObject* parent) : QObject(parent), thread_(new QThread(this)), worker_(new MultiHostWorker) {
    worker_->moveToThread(thread_);
    connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &MultiHostWorker::runStarted, this, [this](quint64 job, const QString& runDir) {
        done();
        const Hosts hosts = starts_.take(job);
        if (hosts.isEmpty() || hosts.contains(nullptr)) {
            emit failed(tr("%1 started across hosts, but a host of it was removed from the list meanwhile: connect it again to follow the run").arg(runDir));
            return;
        }
        runs_.insert(key(hosts.front(), runDir), hosts);
        emit started(hosts.front(), runDir);
    });
    connect(worker_, &MultiHostWorker::runStopped, this, [this](quint64 job, const QString& runDir) {
        done();
        stopping_.remove(job);
        emit stopped(runDir, stops_.take(job));
    });
    connect(worker_, &MultiHostWorker::failed, this, [this](quint64 job, const QString& message) {
        done();
        if (starts_.remove(job))
            emit failed(message);
        else if (stops_.remove(job) && stopping_.remove(job))
            emit stopFailed(message);
    });
    thread_->start();
}

// A start or stop under way finishes on its thread (it leaves no rank behind either way).
MultiHostRuns::~MultiHostRuns() { WorkerThreads::quitWithoutBlocking(thread_); }

QString MultiHostRuns::key(const RemoteHost* host, const QString& runDir) { return host->identity() + '\n' + runDir; }

quint64 MultiHostRuns::next() {
    if (busy_++ == 0) emit busyChanged(true);
    return ++job_;
}

void MultiHostRuns::done() {
    if (--busy_ == 0) emit busyChanged(false);
}

void MultiHostRuns::start(const QList<RemoteHost*>& hosts, int nprocPerNode, const QStringList& trainArgs) {
    if (hosts.size() < 2 || hosts.contains(nullptr)) {
        emit failed(tr("A run across hosts needs two hosts or more."));
        return;
    }
    const quint64 job = next();
    Hosts kept;
    for (RemoteHost* h : hosts) kept << h;
    starts_.insert(job, kept);
    QMetaObject::invokeMethod(worker_, [w = worker_, job, r = requestOf(hosts), nprocPerNode, trainArgs] { w->startRun(job, r, nprocPerNode, trainArgs); });
}

bool MultiHostRuns::isMultiHostRun(const RemoteHost* host, const QString& runDir) const { return host && runs_.contains(key(host, runDir)); }

QList<RemoteHost*> MultiHostRuns::hostsOf(const RemoteHost* host, const QString& runDir) const {
    QList<RemoteHost*> out;
    if (!host) return out;
    for (const QPointer<RemoteHost>& h : runs_.value(key(host, runDir))) {
        if (!h) return {};
        out << h.data();
    }
    return out;
}

void MultiHostRuns::stop(RemoteHost* host, const QString& runDir) {
    const QList<RemoteHost*> hosts = hostsOf(host, runDir);
    if (hosts.isEmpty()) {
        emit stopFailed(tr("%1: a host of this run across hosts was removed from the list: connect it again, then stop the run").arg(runDir));
        return;
    }
    if (stopping_.key(key(host, runDir)) != 0) return;  // (job ids start at 1)
    const quint64 job = next();
    stops_.insert(job, labels(hosts));
    stopping_.insert(job, key(host, runDir));
    QMetaObject::invokeMethod(worker_, [w = worker_, job, r = requestOf(hosts), runDir] { w->stopRun(job, r, runDir); });
}

}  // namespace streetgan::ui
