#include "runs/LocalRunStarter.h"

#include <QProcess>

#include "common/TrainerLocator.h"

namespace streetgan::ui {

LocalRunStarter::LocalRunStarter(QObject* parent) : QObject(parent) {}

QString LocalRunStarter::program() { return TrainerLocator::trainer(); }

void LocalRunStarter::start(const QStringList& args) {
    auto* p = new QProcess(this);
    connect(p, &QProcess::finished, this, [this, p](int code, QProcess::ExitStatus) {
        const QString out = QString::fromLocal8Bit(p->readAllStandardOutput()).trimmed();
        const QString err = QString::fromLocal8Bit(p->readAllStandardError()).trimmed();
        p->deleteLater();
        if (code != 0 || out.isEmpty()) {
            emit failed(err.isEmpty() ? tr("streetgan-trainer start exited with code %1").arg(code) : err, false);
            return;
        }
        emit started(out.split('\n').last().trimmed());  // `start` prints the run folder last
    });
    connect(p, &QProcess::errorOccurred, this, [this, p](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart) return;
        emit failed(p->errorString(), true);
        p->deleteLater();
    });
    p->start(program(), QStringList{"start", "--detach"} + args);
}

}  // namespace streetgan::ui
