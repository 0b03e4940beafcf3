#include "checkpoints/ParzenRunner.h"

#include <QDir>
#include <QFileInfo>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"
#include "common/JsonFields.h"
#include "common/JsonText.h"

namespace streetgan::ui {

ParzenRunner::ParzenRunner(QString trainer, QString cacheFile, QObject* parent)
    : QObject(parent), trainer_(std::move(trainer)), cacheFile_(std::move(cacheFile)) {
    if (cacheFile_.isEmpty()) cacheFile_ = QString::fromStdString(Paths::cacheDir("parzen.json"));
    loadCache();
}

ParzenRunner::~ParzenRunner() {
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(1000);
    }
}

QString ParzenRunner::cacheKey(const QString& checkpoint) const {
    const QFileInfo fi(checkpoint);
    return QStringLiteral("%1|%2|%3|%4").arg(fi.absoluteFilePath()).arg(fi.size()).arg(fi.lastModified().toMSecsSinceEpoch()).arg(extraArgs_.join(' '));
}

void ParzenRunner::loadCache() {
    QFile f(cacheFile_);
    if (!f.open(QIODevice::ReadOnly)) return;
    std::optional<nlohmann::json> doc = JsonText::parse(f.readAll());
    if (doc && doc->is_object()) cache_ = std::move(*doc);  // a damaged cache is ignored and rewritten
}

void ParzenRunner::saveCache() {
    try {
        QDir().mkpath(QFileInfo(cacheFile_).absolutePath());
        AtomicFile::write(cacheFile_.toStdString(), JsonText::write(cache_, JsonText::Format::Compact).toStdString());
    } catch (const std::exception&) {
        // The cache is a convenience: an unwritable cache folder costs a recomputation, not an error.
    }
}

std::optional<ParzenRunner::Result> ParzenRunner::cached(const QString& checkpoint) const {
    const nlohmann::json& o = JsonFields::at(cache_, cacheKey(checkpoint).toUtf8().constData());
    if (!o.is_object()) return std::nullopt;
    return Result{JsonFields::number(o, "log_likelihood"), JsonFields::number(o, "std_error"), JsonFields::number(o, "sigma")};
}

void ParzenRunner::enqueue(const QString& checkpoint) {
    if (checkpoint == running_ || queue_.contains(checkpoint)) return;
    queue_ << checkpoint;
    emit queued(checkpoint);
    startNext();
}

void ParzenRunner::cancel(const QString& which) {
    const QString checkpoint = which;  // a copy: `which` may be running_, which is cleared below
    if (queue_.removeAll(checkpoint) > 0) {
        emit cancelled(checkpoint);
        return;
    }
    if (process_ && running_ == checkpoint) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(1000);  // a killed child ends at once; reap it here
        process_->deleteLater();
        process_ = nullptr;
        running_.clear();
        emit cancelled(checkpoint);
        startNext();
    }
}

void ParzenRunner::cancelAll() {
    const QStringList waiting = queue_;
    queue_.clear();
    for (const QString& c : waiting) emit cancelled(c);
    if (!running_.isEmpty()) cancel(running_);
}

void ParzenRunner::startNext() {
    if (process_ || queue_.isEmpty()) return;
    running_ = queue_.takeFirst();
    process_ = new QProcess(this);
    process_->setProgram(trainer_);
    process_->setArguments(QStringList{"eval", "--checkpoint", running_, "--metric", "parzen", "--json"} + extraArgs_);
    connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus st) { onFinished(code, st); });
    connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) onFinished(-1, QProcess::CrashExit);
    });
    emit started(running_);
    process_->start();
}

void ParzenRunner::onFinished(int exitCode, QProcess::ExitStatus status) {
    QProcess* p = process_;
    const QString ck = running_;
    process_ = nullptr;
    running_.clear();
    const QByteArray out = p->readAllStandardOutput();
    const QString err = QString::fromLocal8Bit(p->readAllStandardError()).trimmed();
    const QString startError = p->error() == QProcess::FailedToStart ? p->errorString() : QString();
    p->disconnect(this);
    p->deleteLater();

    const nlohmann::json j = JsonText::parse(out).value_or(nlohmann::json());
    if (status == QProcess::NormalExit && exitCode == 0 && JsonFields::at(j, "log_likelihood").is_number()) {
        const Result r{JsonFields::number(j, "log_likelihood"), JsonFields::number(j, "std_error"), JsonFields::number(j, "sigma")};
        nlohmann::json entry = {{"log_likelihood", r.logLikelihood}, {"std_error", r.stdError}, {"sigma", r.sigma}};
        if (j.contains("data")) entry["data"] = j.at("data");
        cache_[cacheKey(ck).toStdString()] = std::move(entry);
        saveCache();
        emit finished(ck, r);
    } else {
        QString message;
        if (!startError.isEmpty())
            message = tr("cannot run %1 (%2): check the trainer's path").arg(trainer_, startError);
        else if (!err.isEmpty())
            message = err.section('\n', -1).remove(QStringLiteral("streetgan-trainer: "));
        else
            message = tr("the Parzen evaluation ended with exit code %1 and no result").arg(exitCode);
        emit failed(ck, message);
    }
    startNext();
}

}  // namespace streetgan::ui
