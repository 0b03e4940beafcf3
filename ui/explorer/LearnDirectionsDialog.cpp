#include "explorer/LearnDirectionsDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "base/latent/NamedDirection.h"
#include "common/JsonText.h"
#include "common/TrainerChild.h"

namespace streetgan::ui {

namespace {

QString percent(double share) { return QString::number(share * 100.0, 'f', 0) + "%"; }

}  // namespace

LearnDirectionsDialog::LearnDirectionsDialog(const QString& checkpoint, QWidget* parent)
    : QDialog(parent), checkpoint_(checkpoint), child_(new TrainerChild(this)) {
    setWindowTitle(tr("Learn named directions"));
    setObjectName("learnDirectionsDialog");
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildForm());
    progress_ = new QProgressBar;
    progress_->setObjectName("learnDirectionsProgress");
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(tr("idle"));
    layout->addWidget(progress_);
    status_ =
        new QLabel(tr("Directions are fitted as InterFaceGAN does: a classifier trained on the labelled photos scores generated samples, and a "
                      "boundary in z separates the most and least typical of them."));
    status_->setObjectName("learnDirectionsStatus");
    status_->setWordWrap(true);
    layout->addWidget(status_);
    results_ = new QTreeWidget;
    results_->setObjectName("learnDirectionsResults");
    results_->setHeaderLabels({tr("Direction"), tr("Towards"), tr("Boundary"), tr("Classifier")});
    results_->setRootIsDecorated(false);
    results_->setMinimumHeight(90);
    results_->header()->setStretchLastSection(false);
    results_->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    results_->headerItem()->setToolTip(2, tr("Held-out accuracy of the boundary in z (50% is chance)"));
    results_->headerItem()->setToolTip(3, tr("Held-out accuracy of the classifier on labelled photos (50% is chance)"));
    layout->addWidget(results_, 1);
    auto* buttons = new QDialogButtonBox;
    learn_ = buttons->addButton(tr("Learn"), QDialogButtonBox::ActionRole);
    learn_->setObjectName("learnDirectionsStart");
    cancel_ = buttons->addButton(tr("Cancel"), QDialogButtonBox::RejectRole);
    cancel_->setObjectName("learnDirectionsCancel");
    cancel_->setEnabled(false);
    add_ = buttons->addButton(tr("Add to session"), QDialogButtonBox::AcceptRole);
    add_->setObjectName("learnDirectionsAdd");
    add_->setEnabled(false);
    auto* close = buttons->addButton(QDialogButtonBox::Close);
    layout->addWidget(buttons);
    connect(learn_, &QPushButton::clicked, this, &LearnDirectionsDialog::start);
    connect(cancel_, &QPushButton::clicked, this, &LearnDirectionsDialog::cancel);
    connect(add_, &QPushButton::clicked, this, [this] {
        if (!result_.isEmpty()) emit directionsLearnt(result_);
    });
    connect(close, &QPushButton::clicked, this, &QDialog::close);
    connect(child_, &TrainerChild::stderrLine, this, &LearnDirectionsDialog::onStderrLine);
    connect(child_, &TrainerChild::finished, this, &LearnDirectionsDialog::onFinished);
    resize(560, 420);
}

LearnDirectionsDialog::~LearnDirectionsDialog() { child_->cancel(); }

QWidget* LearnDirectionsDialog::buildForm() {
    auto* form = new QWidget;
    auto* f = new QFormLayout(form);
    f->setContentsMargins(0, 0, 0, 0);
    data_ = new QComboBox;
    data_->setObjectName("learnDirectionsData");
    data_->addItem(tr("The synthetic streets (labels from the renderer)"), "synthetic");
    data_->addItem(tr("A folder of photos (MSLS: postprocessed.csv, raw.csv)"), "folder");
    folder_ = new QLineEdit;
    folder_->setObjectName("learnDirectionsFolder");
    folder_->setPlaceholderText(tr("MSLS folder: train_val, a city, or a database/query folder"));
    folder_->setEnabled(false);
    auto* browse = new QPushButton(tr("Browse…"));
    browse->setEnabled(false);
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(folder_, 1);
    folderRow->addWidget(browse);
    labels_ = new QLineEdit("night");
    labels_->setObjectName("learnDirectionsLabels");
    labels_->setToolTip(
        tr("Comma-separated: night, view_direction, season, city=berlin; on the synthetic streets also their scene parameters "
           "(time_of_day, camera_height...)"));
    samples_ = new QSpinBox;
    samples_->setObjectName("learnDirectionsSamples");
    samples_->setRange(100, 1000000);
    samples_->setSingleStep(1000);
    samples_->setValue(10000);
    samples_->setToolTip(tr("Generated samples the classifier scores; the most and the least typical 2% of them fit the boundary"));
    orthogonal_ = new QLineEdit;
    orthogonal_->setObjectName("learnDirectionsOrthogonal");
    orthogonal_->setPlaceholderText(tr("optional: e.g. city, so that night does not change the city"));
    f->addRow(tr("Data"), data_);
    f->addRow(QString(), folderRow);
    f->addRow(tr("Labels"), labels_);
    f->addRow(tr("Samples"), samples_);
    f->addRow(tr("Orthogonal to"), orthogonal_);
    connect(data_, &QComboBox::currentIndexChanged, this, [this, browse](int i) {
        const bool folder = data_->itemData(i).toString() == "folder";
        folder_->setEnabled(folder);
        browse->setEnabled(folder);
    });
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("A folder of labelled photos"), folder_->text());
        if (!dir.isEmpty()) folder_->setText(dir);
    });
    return form;
}

void LearnDirectionsDialog::setCheckpoint(const QString& checkpoint) {
    if (checkpoint == checkpoint_) return;
    cancel();
    checkpoint_ = checkpoint;
    result_.clear();
    add_->setEnabled(false);  // directions of another generator's z
    results_->clear();
}

void LearnDirectionsDialog::setData(const QString& data) {
    if (data == "synthetic") {
        data_->setCurrentIndex(0);
        return;
    }
    data_->setCurrentIndex(1);
    folder_->setText(data);
}

void LearnDirectionsDialog::setLabels(const QString& commaSeparated) { labels_->setText(commaSeparated); }
void LearnDirectionsDialog::setSamples(int samples) { samples_->setValue(samples); }
void LearnDirectionsDialog::setOrthogonalTo(const QString& commaSeparated) { orthogonal_->setText(commaSeparated); }
bool LearnDirectionsDialog::isRunning() const { return child_->isRunning(); }
QString LearnDirectionsDialog::statusLine() const { return status_->text(); }

void LearnDirectionsDialog::start() {
    const bool folder = data_->currentData().toString() == "folder";
    const QString data = folder ? folder_->text().trimmed() : QStringLiteral("synthetic");
    if (data.isEmpty()) {
        showStatus(tr("Choose the folder of labelled photos first"), true);
        return;
    }
    const QString labels = labels_->text().simplified().remove(' ');
    if (labels.isEmpty()) {
        showStatus(tr("Name at least one label (night, view_direction, season, city=berlin)"), true);
        return;
    }
    child_->cancel();
    outDir_ = std::make_unique<QTemporaryDir>();
    result_.clear();
    summary_.clear();
    warnings_.clear();
    results_->clear();
    add_->setEnabled(false);
    QStringList args{"directions", "--checkpoint", checkpoint_,
                     "--data",     data,           "--labels",
                     labels,       "--samples",    QString::number(samples_->value()),
                     "--json",     "--out",        outDir_->filePath("directions.json")};
    const QString orthogonal = orthogonal_->text().simplified().remove(' ');
    if (!orthogonal.isEmpty()) args << "--orthogonal-to" << orthogonal.split(',', Qt::SkipEmptyParts);
    progress_->setRange(0, 0);  // busy until the first stage line gives its count
    progress_->setFormat(tr("starting…"));
    showStatus(tr("Learning %1 from %2…").arg(labels, folder ? data : tr("the synthetic streets")), false);
    setRunning(true);
    child_->start(args, tr("learning directions"));
}

// Stage lines: "STAGE DONE/TOTAL" (DirectionsCommand: loading, the classifier, scoring samples,
// the boundary); warnings are kept for the end; anything else is only the last line.
void LearnDirectionsDialog::onStderrLine(const QString& line) {
    static const QRegularExpression stageLine(R"(^(.+) (\d+)/(\d+)$)");
    static const QString warning = QStringLiteral("streetgan-trainer: warning: ");
    if (line.startsWith(warning)) {
        warnings_ << line.mid(warning.size());
        return;
    }
    const QRegularExpressionMatch m = stageLine.match(line);
    if (!m.hasMatch()) return;
    progress_->setRange(0, std::max(1, m.captured(3).toInt()));
    progress_->setValue(m.captured(2).toInt());
    progress_->setFormat(tr("%1: %v of %m").arg(m.captured(1)));
}

void LearnDirectionsDialog::onFinished(bool ok, const QByteArray& out, const QString& error) {
    setRunning(false);
    progress_->setRange(0, 1);
    if (ok && showResult(out)) {
        progress_->setValue(1);
        progress_->setFormat(tr("done"));
        QString text = tr("%n direction(s) learnt: add them to the session as sliders.", nullptr, static_cast<int>(summary_.size()));
        if (!warnings_.isEmpty()) text += "\n" + warnings_.join('\n');
        showStatus(text, false);
        return;
    }
    const QString message = ok ? tr("learning directions gave no result (its output could not be read)") : error;
    progress_->setValue(0);
    progress_->setFormat(tr("failed"));
    showStatus(message, true);
    emit failed(message);
}

bool LearnDirectionsDialog::showResult(const QByteArray& out) {
    const std::optional<nlohmann::json> doc = JsonText::parse(out);
    const QString file = outDir_->filePath("directions.json");
    std::vector<NamedDirection> found;
    try {
        found = NamedDirection::readFile(file.toStdString());
    } catch (const std::exception&) {
        return false;
    }
    if (!doc || found.empty()) return false;
    for (const NamedDirection& d : found) {
        const QString name = QString::fromStdString(d.name);
        // "night" (a yes/no label), "view_direction: sideways", "camera_height: > 1.6 (median)".
        const QString towards =
            d.positive == "true" || d.positive.empty() ? QString::fromStdString(d.label) : QString::fromStdString(d.label + ": " + d.positive);
        auto* item = new QTreeWidgetItem(results_, {name, towards, percent(d.boundaryAccuracy), percent(d.classifierAccuracy)});
        item->setToolTip(2, tr("%1 of %2 held-out samples").arg(d.boundaryHeldOut).arg(d.boundaryHeldOut + d.boundaryTrain));
        item->setToolTip(3, tr("%1 held-out photos of %2").arg(d.classifierHeldOut).arg(d.classifierHeldOut + d.classifierTrain));
        summary_ << tr("%1: boundary %2, classifier %3").arg(name, percent(d.boundaryAccuracy), percent(d.classifierAccuracy));
    }
    for (int c = 0; c < results_->columnCount(); ++c) results_->resizeColumnToContents(c);
    result_ = file;
    add_->setEnabled(true);
    return true;
}

void LearnDirectionsDialog::cancel() {
    if (!child_->isRunning()) return;
    child_->cancel();
    setRunning(false);
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(tr("cancelled"));
    showStatus(tr("Cancelled; nothing was learnt"), false);
}

void LearnDirectionsDialog::setRunning(bool running) {
    learn_->setEnabled(!running);
    cancel_->setEnabled(running);
}

void LearnDirectionsDialog::showStatus(const QString& text, bool error) {
    status_->setStyleSheet(error ? "color: #b00020" : "");
    status_->setText(text);
}

}  // namespace streetgan::ui
