// New run's fields of a Slurm job (shown when "Train on" is a Slurm login node): nodes, tasks and
// GPUs per node, time limit, partition, account and extra #SBATCH lines. spec() is what they ask
// of Slurm; problem() is SlurmJobSpec::validate's one line for them (the one check of every value,
// as `streetgan-trainer submit` runs it), shown under the fields when the dialog is accepted.
// GUI thread.
#pragma once

#include <QWidget>

#include "base/slurm/SlurmJobSpec.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace streetgan::ui {

class SlurmJobFields : public QWidget {
    Q_OBJECT
public:
    explicit SlurmJobFields(QWidget* parent = nullptr);
    /// The job as the fields ask it (runDir, jobName and command are the launcher's).
    SlurmJobSpec spec() const;
    /// "" when Slurm may be asked; else the first bad value's line (SlurmJobSpec::validate).
    QString problem() const;
    /// Shows `line` under the fields (empty: hides it).
    void showProblem(const QString& line);
    /// Sets the fields from `job` (a test, or the values used last).
    void setSpec(const SlurmJobSpec& job);

private:
    QSpinBox *nodes_, *tasksPerNode_, *gpusPerNode_;
    QLineEdit *time_, *partition_, *account_;
    QPlainTextEdit* extra_;
    QLabel* problem_;
};

}  // namespace streetgan::ui
