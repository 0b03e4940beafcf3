// New run: presets, data source (synthetic by default; a folder, archive or packed cache with a
// file picker), hyperparameters, device, and where (this computer, a connected host, a Slurm
// cluster, or several hosts as one run: MultiHostFields). Produces
// the arguments of `streetgan-trainer start --detach`; each setting's range, tip and flag come from
// TrainOption's table.
#pragma once

#include <QDialog>
#include <QList>
#include <QPair>
#include <QStringList>
#include <QVector>

#include "base/run/TrainOption.h"
#include "base/slurm/SlurmJobSpec.h"
#include "runs/MultiHostFields.h"

class QComboBox;
class QLineEdit;
class QSpinBox;
class QDoubleSpinBox;
class QPushButton;
class QHBoxLayout;

namespace streetgan::ui {

class SlurmJobFields;

class NewRunDialog : public QDialog {
    Q_OBJECT
public:
    /// `targets`: "This computer" first, then the hosts' labels; `unavailable[i]`, where given and
    /// not empty, is why target i cannot train now: it is listed greyed with the reason.
    NewRunDialog(const QStringList& targets, QWidget* parent = nullptr, const QStringList& unavailable = {});
    /// The preset buttons: "tiny-cpu" (a quick CPU run), "reference-64", "msls-128".
    void applyPreset(const QString& name);
    /// The run's name (folder under the workspace or the host's root).
    QString runName() const;
    int targetIndex() const;
    /// Arguments after `start --detach`, with --run-dir `root`/name.
    QStringList trainerArguments(const QString& root) const;
    /// The arguments of the one-click first run: a tiny CPU run on synthetic streets.
    static QStringList tinyRunArguments(const QString& runDir);
    /// Marks the "Train on" rows that are Slurm login nodes (`slurm[i]`): for those the dialog
    /// shows the job's fields (SlurmJobFields) and Start submits.
    void setSlurmTargets(const QList<bool>& slurm);
    /// Whether the chosen row is a Slurm login node.
    bool slurmTarget() const;
    /// What the job asks of Slurm (valid once the dialog was accepted for a Slurm row).
    SlurmJobSpec slurmJob() const;
    SlurmJobFields* slurmFields() const { return slurm_; }
    /// Makes "Train on" row `row` the run across several hosts: for it the dialog shows the
    /// hosts' check-list (MultiHostFields) with `hosts`.
    void setMultiHostTarget(int row, const QList<MultiHostFields::Host>& hosts);
    /// Whether the chosen row is the run across several hosts.
    bool multiHostTarget() const;
    MultiHostFields* multiHostFields() const { return multiHost_; }
    /// Accepts unless the chosen row is Slurm's or several hosts' and its fields are refused: the
    /// refusal's one line then shows under them and the dialog stays open.
    void accept() override;

private:
    void buildTarget(const QStringList& targets, const QStringList& unavailable);
    QHBoxLayout* buildFields();
    void setting(const char* key, QWidget* box);
    QSpinBox* wholeBox(const char* key);
    /// The row of checkpoint every, how many to keep, and the best checkpoint's metric.
    QHBoxLayout* checkpointRow();
    /// Sets the box to the trainer's own default of its option (a default TrainConfig's).
    static void showTrainerDefault(const TrainOption::Spec& o, QWidget* box);
    QComboBox *target_, *preset_, *dataKind_, *device_;
    QLineEdit *name_, *dataPath_;
    QPushButton* browse_;
    QSpinBox *steps_, *batch_, *loaderThreads_, *logEvery_, *sampleEvery_, *checkpointEvery_, *keepCheckpoints_;
    QDoubleSpinBox *lr_, *emaKimg_;
    QComboBox* bestMetric_;
    QComboBox* readPhotos_;  // --data-path: for a folder of photos only (auto otherwise)
    SlurmJobFields* slurm_;
    QList<bool> slurmRows_;
    MultiHostFields* multiHost_;
    int multiHostRow_ = -1;
    QVector<QPair<const TrainOption::Spec*, QWidget*>> settings_;  // the trainer's flags, in the form's order
};

}  // namespace streetgan::ui
