// Starts a run on this computer: `streetgan-trainer start --detach ARGS` as a child process
// (TrainerLocator finds the trainer), which returns once the daemon runs; started() gives the run
// folder it printed, failed() the trainer's one-line error. Never waits on the GUI thread.
// GUI thread.
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
