#include "common/TrainerChild.h"

#include <QProcess>

#include "common/TrainerLocator.h"

namespace streetgan::ui {

TrainerChild::TrainerChild(QObject* parent) : QObject(parent) {}

TrainerChild::~TrainerChild() { cancel(); }

void TrainerChild::start(const QStringList& args, const QString& what) {
    cancel();
    what_ = what;
    lastLine_.clear();
    pending_.clear();
    process_ = new QProcess(this);
    process_->setProgram(TrainerLocator::trainer());
    process_->setArguments(args);
    connect(process_, &QProcess::readyReadStandardError, this, &TrainerChild::readStderr);
    connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) { onFinished(code, status == QProcess::NormalExit); });
    connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) onFinished(-1, false);
    });
    process_->start();
}

qint64 TrainerChild::processId() const { return process_ ? process_->processId() : 0; }

void TrainerChild::readStderr() {
    pending_ += process_->readAllStandardError();
    qsizetype end = 0;
    while ((end = pending_.indexOf('\n')) >= 0) {
        const QString line = QString::fromLocal8Bit(pending_.left(end)).trimmed();
        pending_.remove(0, end + 1);
        if (line.isEmpty()) continue;
        lastLine_ = line;
        emit stderrLine(line);
    }
}

void TrainerChild::onFinished(int exitCode, bool normalExit) {
    QProcess* p = process_;
    if (!p) return;
    process_ = nullptr;
    const QByteArray out = p->readAllStandardOutput();
    pending_ += p->readAllStandardError();
    const QString rest = QString::fromLocal8Bit(pending_).trimmed();
    pending_.clear();
    if (!rest.isEmpty()) lastLine_ = rest.section('\n', -1);
    const QString startError = p->error() == QProcess::FailedToStart ? p->errorString() : QString();
    p->disconnect(this);
    p->deleteLater();
    const bool ok = normalExit && exitCode == 0 && startError.isEmpty();
    QString error;
    if (!startError.isEmpty())
        error = tr("cannot run %1 (%2): check the trainer's path (STREETGAN_TRAINER)").arg(TrainerLocator::trainer(), startError);
    else if (!ok && !lastLine_.isEmpty())
        error = QString(lastLine_).remove(QStringLiteral("streetgan-trainer: "));
    else if (!ok)
        error = tr("%1 ended with exit code %2 and no message").arg(what_).arg(exitCode);
    emit finished(ok, out, error);
}

void TrainerChild::cancel() {
    if (!process_) return;
    QProcess* p = process_;
    process_ = nullptr;
    p->disconnect(this);
    p->kill();
    p->waitForFinished(1000);  // a killed child ends at once; reap it here
    p->deleteLater();
    pending_.clear();
}

}  // namespace streetgan::ui
