#include "runs/NewRunDialog.h"

#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>

#include "base/run/TrainConfig.h"
#include "base/run/TrainOption.h"
#include "runs/SlurmJobFields.h"

namespace streetgan::ui {

NewRunDialog::NewRunDialog(const QStringList& targets, QWidget* parent, const QStringList& unavailable) : QDialog(parent) {
    setWindowTitle(tr("New training run"));
    auto* layout = new QVBoxLayout(this);
    auto* presets = new QHBoxLayout;
    for (const auto& [key, text] :
         {std::pair{"tiny-cpu", tr("Tiny CPU run")}, std::pair{"reference-64", tr("Reference DCGAN 64 px")}, std::pair{"msls-128", tr("MSLS 128 px (GPU)")}}) {
        auto* b = new QPushButton(text);
        connect(b, &QPushButton::clicked, this, [this, k = QString(key)] { applyPreset(k); });
        presets->addWidget(b);
    }
    layout->addLayout(presets);
    auto* form = new QFormLayout;
    buildTarget(targets, unavailable);
    QHBoxLayout* dataRow = buildFields();
    form->addRow(tr("Train on:"), target_);
    form->addRow(tr("Run name:"), name_);
    form->addRow(tr("Model preset:"), preset_);
    form->addRow(tr("Data:"), dataKind_);
    form->addRow(tr("Data path:"), dataRow);
    form->addRow(tr("Read photos:"), readPhotos_);
    form->addRow(tr("Steps:"), steps_);
    form->addRow(tr("Batch:"), batch_);
    form->addRow(tr("Learning rate:"), lr_);
    form->addRow(tr("Device:"), device_);
    form->addRow(tr("Loader threads:"), loaderThreads_);
    form->addRow(tr("Log every (steps):"), logEvery_);
    form->addRow(tr("Sample grid every:"), sampleEvery_);
    form->addRow(tr("Checkpoint every:"), checkpointRow());
    form->addRow(tr("G_ema half-life (kimg):"), emaKimg_);
    layout->addLayout(form);
    slurm_ = new SlurmJobFields;
    slurm_->setVisible(false);
    layout->addWidget(slurm_);
    multiHost_ = new MultiHostFields;
    multiHost_->setVisible(false);
    layout->addWidget(multiHost_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Start"));
    connect(target_, &QComboBox::currentIndexChanged, this, [this, buttons] {
        slurm_->setVisible(slurmTarget());
        multiHost_->setVisible(multiHostTarget());
        buttons->button(QDialogButtonBox::Ok)->setText(slurmTarget() ? tr("Submit") : tr("Start"));
    });
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto syncData = [this] {
        const bool synthetic = dataKind_->currentIndex() == 0;
        dataPath_->setEnabled(!synthetic);
        // Packing applies to a folder of photos; for other data the trainer's auto does nothing.
        readPhotos_->setEnabled(dataKind_->currentIndex() == 1);
        if (!readPhotos_->isEnabled()) readPhotos_->setCurrentText("auto");
        browse_->setEnabled(!synthetic && target_->currentIndex() == 0);
    };
    connect(dataKind_, &QComboBox::currentIndexChanged, this, syncData);
    connect(target_, &QComboBox::currentIndexChanged, this, syncData);
    connect(browse_, &QPushButton::clicked, this, [this] {
        QString p;
        if (dataKind_->currentIndex() == 2)
            p = QFileDialog::getOpenFileName(this, tr("Archive of photos"), {}, tr("Archives (*.zip *.tar *.tar.gz *.tgz)"));
        else
            p = QFileDialog::getExistingDirectory(this, dataKind_->currentIndex() == 3 ? tr("Packed cache folder") : tr("Folder of photos"));
        if (!p.isEmpty()) dataPath_->setText(p);
    });
    applyPreset("tiny-cpu");
    syncData();
}

void NewRunDialog::setSlurmTargets(const QList<bool>& slurm) {
    slurmRows_ = slurm;
    slurm_->setVisible(slurmTarget());
}

bool NewRunDialog::slurmTarget() const { return slurmRows_.value(target_->currentIndex(), false); }

SlurmJobSpec NewRunDialog::slurmJob() const { return slurm_->spec(); }

bool NewRunDialog::multiHostTarget() const { return multiHostRow_ >= 0 && target_->currentIndex() == multiHostRow_; }

void NewRunDialog::setMultiHostTarget(int row, const QList<MultiHostFields::Host>& hosts) {
    multiHostRow_ = row;
    multiHost_->setHosts(hosts);
    multiHost_->setVisible(multiHostTarget());
}

void NewRunDialog::accept() {
    if (slurmTarget()) {
        const QString problem = slurm_->problem();
        slurm_->showProblem(problem);
        if (!problem.isEmpty()) return;
    }
    if (multiHostTarget()) {
        const QString problem = multiHost_->problem();
        multiHost_->showProblem(problem);
        if (!problem.isEmpty()) return;
    }
    QDialog::accept();
}

// "Train on": this computer and the hosts; those that cannot train now stay listed, greyed, with
// the reason (not silently missing).
void NewRunDialog::buildTarget(const QStringList& targets, const QStringList& unavailable) {
    target_ = new QComboBox;
    target_->addItems(targets);
    if (auto* items = qobject_cast<QStandardItemModel*>(target_->model()))
        for (int i = 0; i < targets.size() && i < unavailable.size(); ++i) {
            if (unavailable[i].isEmpty()) continue;
            QStandardItem* item = items->item(i);
            item->setText(tr("%1 — %2").arg(targets[i], unavailable[i]));
            item->setToolTip(unavailable[i]);
            item->setEnabled(false);
            if (target_->currentIndex() == i) target_->setCurrentIndex(0);
        }
}

// The run's settings; returns the data path's row (its field and Browse).
QHBoxLayout* NewRunDialog::buildFields() {
    name_ = new QLineEdit("run-" + QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss"));
    preset_ = new QComboBox;
    preset_->addItems({"tiny-32", "naive-64", "safe-64", "safe-128", "msls-128"});
    dataKind_ = new QComboBox;
    dataKind_->addItems({tr("Synthetic streets"), tr("Folder of photos"), tr("Archive (.zip, .tar, .tar.gz)"), tr("Packed cache")});
    dataPath_ = new QLineEdit;
    dataPath_->setPlaceholderText(tr("path on the machine that trains"));
    browse_ = new QPushButton(tr("Browse…"));
    auto* dataRow = new QHBoxLayout;
    dataRow->addWidget(dataPath_, 1);
    dataRow->addWidget(browse_);
    readPhotos_ = new QComboBox;
    for (const std::string& c : TrainOption::choices(*TrainOption::find("data_path"))) readPhotos_->addItem(QString::fromStdString(c));
    setting("data_path", readPhotos_);
    steps_ = wholeBox("steps");
    batch_ = wholeBox("batch");
    lr_ = new QDoubleSpinBox;
    lr_->setDecimals(8);  // TrainConfig's smallest rate shows
    lr_->setSingleStep(0.0001);
    setting("lr", lr_);
    device_ = new QComboBox;
    device_->addItems({"auto", "cpu", "cuda"});
    setting("device", device_);
    loaderThreads_ = wholeBox("loader_threads");
    logEvery_ = wholeBox("log_every");
    sampleEvery_ = wholeBox("sample_every");
    checkpointEvery_ = wholeBox("checkpoint_every");
    keepCheckpoints_ = wholeBox("keep_checkpoints");
    bestMetric_ = new QComboBox;
    for (const std::string& c : TrainOption::choices(*TrainOption::find("best_metric"))) bestMetric_->addItem(QString::fromStdString(c));
    setting("best_metric", bestMetric_);
    emaKimg_ = new QDoubleSpinBox;
    emaKimg_->setDecimals(2);
    emaKimg_->setSpecialValueText(tr("per step (the decay of --ema)"));  // 0: the per-step rule
    setting("ema_kimg", emaKimg_);
    // Not in the presets: the trainer's own defaults (issue 43's settings), read, not restated.
    for (const auto& [o, box] : settings_)
        if (box == keepCheckpoints_ || box == bestMetric_ || box == emaKimg_ || box == readPhotos_) showTrainerDefault(*o, box);
    return dataRow;
}

QHBoxLayout* NewRunDialog::checkpointRow() {
    auto* row = new QHBoxLayout;
    row->addWidget(checkpointEvery_, 1);
    row->addWidget(new QLabel(tr("keep")));
    row->addWidget(keepCheckpoints_, 1);
    row->addWidget(new QLabel(tr("best by")));
    row->addWidget(bestMetric_, 1);
    return row;
}

void NewRunDialog::showTrainerDefault(const TrainOption::Spec& o, QWidget* box) {
    TrainConfig defaults;
    std::visit(
        [&](auto ref) {
            const auto& v = ref(defaults);
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
                if (auto* combo = qobject_cast<QComboBox*>(box)) combo->setCurrentText(QString::fromStdString(v));
            } else if constexpr (std::is_arithmetic_v<T>) {
                if (auto* spin = qobject_cast<QSpinBox*>(box)) spin->setValue(static_cast<int>(v));
                if (auto* real = qobject_cast<QDoubleSpinBox*>(box)) real->setValue(static_cast<double>(v));
            }
        },
        o.member);
}

void NewRunDialog::applyPreset(const QString& name) {
    if (name == "tiny-cpu") {
        preset_->setCurrentText("tiny-32");
        steps_->setValue(2000);
        batch_->setValue(32);
        lr_->setValue(0.0002);
        device_->setCurrentText("cpu");
        loaderThreads_->setValue(2);
        logEvery_->setValue(5);
        sampleEvery_->setValue(100);
        checkpointEvery_->setValue(1000);
    } else if (name == "reference-64") {
        preset_->setCurrentText("naive-64");
        steps_->setValue(50000);
        batch_->setValue(128);
        lr_->setValue(0.0002);
        device_->setCurrentText("auto");
        loaderThreads_->setValue(8);
        logEvery_->setValue(10);
        sampleEvery_->setValue(500);
        checkpointEvery_->setValue(5000);
    } else if (name == "msls-128") {
        preset_->setCurrentText("msls-128");
        steps_->setValue(200000);
        batch_->setValue(128);
        lr_->setValue(0.0002);
        device_->setCurrentText("cuda");
        loaderThreads_->setValue(12);
        logEvery_->setValue(20);
        sampleEvery_->setValue(1000);
        checkpointEvery_->setValue(10000);
    }
}

QString NewRunDialog::runName() const { return name_->text().trimmed(); }
int NewRunDialog::targetIndex() const { return target_->currentIndex(); }

// A setting's box takes its range and tip from the option's row of TrainOption's table, and gives
// the trainer that option's flag.
void NewRunDialog::setting(const char* key, QWidget* box) {
    const TrainOption::Spec* o = TrainOption::find(key);
    Q_ASSERT(o && *o->flag);
    box->setToolTip(QString::fromUtf8(o->help));
    constexpr double kIntMax = std::numeric_limits<int>::max();
    if (auto* spin = qobject_cast<QSpinBox*>(box)) spin->setRange(static_cast<int>(o->lo), static_cast<int>(std::min(o->hi, kIntMax)));
    if (auto* spin = qobject_cast<QDoubleSpinBox*>(box)) spin->setRange(o->lo, o->hi);
    settings_.append({o, box});
}

QSpinBox* NewRunDialog::wholeBox(const char* key) {
    auto* box = new QSpinBox;
    setting(key, box);
    return box;
}

QStringList NewRunDialog::trainerArguments(const QString& root) const {
    const QString data = dataKind_->currentIndex() == 0 || dataPath_->text().trimmed().isEmpty() ? QString("synthetic") : dataPath_->text().trimmed();
    QStringList args = {"--run-dir", root + "/" + runName(), "--preset", preset_->currentText(), "--data", data};
    for (const auto& [o, box] : settings_) {
        args << QString::fromStdString(TrainOption::flagName(*o));
        if (const auto* spin = qobject_cast<const QSpinBox*>(box))
            args << QString::number(spin->value());
        else if (const auto* real = qobject_cast<const QDoubleSpinBox*>(box))
            args << QString::number(real->value(), 'g', 8);
        else
            args << qobject_cast<const QComboBox*>(box)->currentText();
    }
    return args;
}

QStringList NewRunDialog::tinyRunArguments(const QString& runDir) {
    return {"--run-dir",          runDir, "--preset",  "tiny-32", "--data",           "synthetic", "--steps",     "2000", "--batch",        "32",
            "--device",           "cpu",  "--threads", "1",       "--loader-threads", "1",         "--log-every", "2",    "--sample-every", "50",
            "--checkpoint-every", "1000"};
}

}  // namespace streetgan::ui
