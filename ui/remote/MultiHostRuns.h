// The app's runs across several SSH hosts (issue 45 item 4): starts one rank group across hosts
// of the host list (rank 0's host is the rendezvous and holds the run folder) through a
// MultiHostWorker on a thread of its own, remembers which hosts each run it started spans, and
// stops every rank on every host of such a run. A started run is handed back as rank 0's host
// and its run folder, to be listed, opened and followed as any run of that host. Only runs
// started since the app started are known here; another run across hosts stops through rank 0's
// `control stop` (every rank stops at the same step).
// GUI thread.
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

class QThread;

namespace streetgan::ui {

class MultiHostWorker;
class RemoteHost;

class MultiHostRuns : public QObject {
    Q_OBJECT
public:
    explicit MultiHostRuns(QObject* parent = nullptr);
    ~MultiHostRuns() override;
    /// Starts `trainArgs` across `hosts` (rank 0's host first, 2 or more; every host runs rank
    /// 0's host's trainer), `nprocPerNode` ranks on each; started or failed answers.
    void start(const QList<RemoteHost*>& hosts, int nprocPerNode, const QStringList& trainArgs);
    /// Whether `runDir` of `host` is a run across hosts started here (`host`: rank 0's).
    bool isMultiHostRun(const RemoteHost* host, const QString& runDir) const;
    /// The hosts of that run, rank 0's first (empty when it is none, or a host was removed since).
    QList<RemoteHost*> hostsOf(const RemoteHost* host, const QString& runDir) const;
    /// Stops every rank of that run on every host; stopped or stopFailed answers. A stop of a run
    /// whose stop is under way is ignored.
    void stop(RemoteHost* host, const QString& runDir);

signals:
    void started(streetgan::ui::RemoteHost* rank0Host, const QString& runDir);
    void failed(const QString& message);
    /// No rank of `runDir` is left on `hosts` (their labels, joined).
    void stopped(const QString& runDir, const QString& hosts);
    void stopFailed(const QString& message);
    void busyChanged(bool busy);

private:
    using Hosts = QList<QPointer<RemoteHost>>;
    static QString key(const RemoteHost* host, const QString& runDir);
    quint64 next();
    void done();

    QThread* thread_;
    MultiHostWorker* worker_;
    quint64 job_ = 0;
    int busy_ = 0;
    QHash<quint64, Hosts> starts_;      ///< starts in flight
    QHash<quint64, QString> stops_;     ///< stops in flight: the hosts' labels
    QHash<quint64, QString> stopping_;  ///< stops in flight: key() of their run
    QHash<QString, Hosts> runs_;        ///< key(): the runs started here
};

}  // namespace streetgan::ui
