// One `streetgan-trainer SUBCOMMAND ...` run as a child process of a dialog (TrainerLocator finds
// the binary): its stderr handed out a line at a time as it comes (progress lines), its stdout kept
// for the end, and the one line a user reads when it fails, built by one rule: the trainer's own
// last stderr line (without its "streetgan-trainer: " prefix), or why it could not be started, or
// its exit code. Cancel and destruction kill the child and reap it (it ends at once).
//
// Thread contract: GUI thread (QProcess signals); nothing blocks except cancel() and the destructor.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

class QProcess;

namespace streetgan::ui {

class TrainerChild : public QObject {
    Q_OBJECT
public:
    explicit TrainerChild(QObject* parent = nullptr);
    ~TrainerChild() override;

    /// Starts the trainer with `args` (a running child is killed first). `what` names the work in
    /// the failure line when the child says nothing ("the projection", "learning directions").
    void start(const QStringList& args, const QString& what);
    /// Kills a running child and reaps it; no finished() follows.
    void cancel();
    bool isRunning() const { return process_ != nullptr; }
    /// The running child's process id (0 when none).
    qint64 processId() const;

signals:
    /// One line of the child's stderr (trimmed, non-empty), as it comes.
    void stderrLine(const QString& line);
    /// The child ended: `ok` when it exited 0; `out` its whole stdout; `error` the one line when not ok.
    void finished(bool ok, const QByteArray& out, const QString& error);

private:
    void readStderr();
    void onFinished(int exitCode, bool normalExit);
    QProcess* process_ = nullptr;
    QByteArray pending_;
    QString lastLine_, what_;
};

}  // namespace streetgan::ui
