// Parzen-window log-likelihoods on demand: a queue of checkpoints, each evaluated by a
// `streetgan-trainer eval --checkpoint CK --metric parzen --json` child process (QProcess), one
// at a time, cancellable (the child is killed). The eval judges the checkpoint on its own
// training data (EvalCommand's default). Results are cached in a small JSON file (by default
// parzen.json in the app's cache folder) keyed by the checkpoint's path, size, mtime and the
// eval arguments, so they survive a restart; the file is replaced atomically (AtomicFile).
// GUI thread (QProcess signals); nothing blocks.
#pragma once

#include <QHash>
#include <QObject>
#include <QProcess>
#include <QStringList>

#include <optional>

#include <nlohmann/json.hpp>

namespace streetgan::ui {

class ParzenRunner : public QObject {
    Q_OBJECT
public:
    struct Result {
        double logLikelihood = 0, stdError = 0, sigma = 0;
    };

    /// `trainer`: the streetgan-trainer binary; `cacheFile` empty: the app's cache folder.
    explicit ParzenRunner(QString trainer, QString cacheFile = {}, QObject* parent = nullptr);
    ~ParzenRunner() override;

    /// Extra eval arguments (e.g. {"--samples","2000"}); part of the cache key.
    void setExtraArguments(const QStringList& args) { extraArgs_ = args; }
    QString cacheFile() const { return cacheFile_; }

    /// The cached result for the file as it is now (same size and mtime), if any.
    std::optional<Result> cached(const QString& checkpoint) const;
    /// Queues `checkpoint` (no-op when queued or running). Emits queued().
    void enqueue(const QString& checkpoint);
    /// Removes it from the queue, or kills its running eval; emits cancelled().
    void cancel(const QString& checkpoint);
    void cancelAll();
    bool busy() const { return process_ != nullptr || !queue_.isEmpty(); }
    QString running() const { return running_; }

signals:
    void queued(const QString& checkpoint);
    void started(const QString& checkpoint);
    void finished(const QString& checkpoint, const streetgan::ui::ParzenRunner::Result& result);
    void failed(const QString& checkpoint, const QString& message);
    void cancelled(const QString& checkpoint);

private:
    void startNext();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    QString cacheKey(const QString& checkpoint) const;
    void loadCache();
    void saveCache();

    QString trainer_, cacheFile_;
    QStringList extraArgs_;
    QStringList queue_;
    QProcess* process_ = nullptr;
    QString running_;
    nlohmann::json cache_ = nlohmann::json::object();  ///< cache key -> {"log_likelihood", "std_error", "sigma", "data"}
};

}  // namespace streetgan::ui
