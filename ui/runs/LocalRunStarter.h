// Starts a run on this computer through the launcher seam (LocalRunLauncher: `streetgan-trainer
// start --detach ARGS`, built by TrainerCommandLine, run by /bin/sh from the home folder, so a
// relative path means the same here as on an SSH host). TrainerLocator finds the trainer. Each
// start runs on a short-lived thread of its own, as the trainer returns only once the daemon
// trains; started() gives the run folder it printed, failed() the trainer's one-line error.
// GUI thread (the signals arrive there; a start still under way when the starter is destroyed
// finishes on its thread and reports to no one).
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

namespace streetgan::ui {

class LocalRunStarter : public QObject {
    Q_OBJECT
public:
    explicit LocalRunStarter(QObject* parent = nullptr);
    /// Starts one run; several may start at once.
    void start(const QStringList& args);
    /// The trainer this starts (TrainerLocator::trainer()).
    static QString program();

signals:
    void started(const QString& runDir);
    /// `message`: the trainer's error, or why it could not be run; `notRun`: the program did not
    /// start at all (missing, not executable).
    void failed(const QString& message, bool notRun);
};

}  // namespace streetgan::ui
