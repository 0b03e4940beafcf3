#include "runs/SlurmJobFields.h"

#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>

#include "base/util/Errors.h"

namespace streetgan::ui {

namespace {
QSpinBox* countBox(int min, int max, int value, const QString& tip) {
    auto* b = new QSpinBox;
    b->setRange(min, max);
    b->setValue(value);
    b->setToolTip(tip);
    return b;
}
}  // namespace

SlurmJobFields::SlurmJobFields(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    // The ranges are the widgets' only; SlurmJobSpec::validate decides (the same as the CLI's).
    nodes_ = countBox(1, 100000, 1, tr("Nodes of the job (#SBATCH --nodes)"));
    tasksPerNode_ = countBox(1, 4096, 1, tr("Ranks per node, one srun task each (#SBATCH --ntasks-per-node)"));
    gpusPerNode_ = countBox(0, 1024, 0, tr("GPUs per node, one per rank on it; 0: a CPU job (#SBATCH --gpus-per-node)"));
    time_ = new QLineEdit;
    time_->setObjectName("slurmTime");
    time_->setPlaceholderText(tr("the partition's, or HH:MM:SS, D-HH:MM..."));
    partition_ = new QLineEdit;
    partition_->setObjectName("slurmPartition");
    partition_->setPlaceholderText(tr("the cluster's default"));
    account_ = new QLineEdit;
    account_->setObjectName("slurmAccount");
    account_->setPlaceholderText(tr("yours by default"));
    extra_ = new QPlainTextEdit;
    extra_->setPlaceholderText(tr("one #SBATCH option a line, e.g. --mem=16G"));
    extra_->setMaximumHeight(extra_->fontMetrics().lineSpacing() * 4);
    problem_ = new QLabel;
    problem_->setObjectName("slurmProblem");
    problem_->setWordWrap(true);
    problem_->setStyleSheet("color: palette(highlight)");
    problem_->hide();
    form->addRow(tr("Nodes:"), nodes_);
    form->addRow(tr("Tasks per node:"), tasksPerNode_);
    form->addRow(tr("GPUs per node:"), gpusPerNode_);
    form->addRow(tr("Time limit:"), time_);
    form->addRow(tr("Partition:"), partition_);
    form->addRow(tr("Account:"), account_);
    form->addRow(tr("Extra #SBATCH lines:"), extra_);
    form->addRow(problem_);
}

SlurmJobSpec SlurmJobFields::spec() const {
    SlurmJobSpec job;
    job.nodes = nodes_->value();
    job.tasksPerNode = tasksPerNode_->value();
    job.gpusPerNode = gpusPerNode_->value();
    job.timeLimit = time_->text().trimmed().toStdString();
    job.partition = partition_->text().trimmed().toStdString();
    job.account = account_->text().trimmed().toStdString();
    for (const QString& line : extra_->toPlainText().split('\n', Qt::SkipEmptyParts))
        if (!line.trimmed().isEmpty()) job.extraLines.push_back(line.trimmed().toStdString());
    return job;
}

QString SlurmJobFields::problem() const {
    SlurmJobSpec job = spec();
    // The run's folder and command are the launcher's, known only once it starts: stand-ins that
    // pass, so that the line is about these fields.
    job.runDir = "/streetgan-runs/run";
    job.command = {"streetgan-trainer", "train"};
    try {
        job.validate();
        return {};
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
}

void SlurmJobFields::showProblem(const QString& line) {
    problem_->setText(line);
    problem_->setVisible(!line.isEmpty());
}

void SlurmJobFields::setSpec(const SlurmJobSpec& job) {
    nodes_->setValue(job.nodes);
    tasksPerNode_->setValue(job.tasksPerNode);
    gpusPerNode_->setValue(job.gpusPerNode);
    time_->setText(QString::fromStdString(job.timeLimit));
    partition_->setText(QString::fromStdString(job.partition));
    account_->setText(QString::fromStdString(job.account));
    QStringList lines;
    for (const std::string& l : job.extraLines) lines << QString::fromStdString(l);
    extra_->setPlainText(lines.join('\n'));
}

}  // namespace streetgan::ui
