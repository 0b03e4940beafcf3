#include "explorer/ProjectPhotoDialog.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImageReader>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <algorithm>

#include "common/JsonFields.h"
#include "common/JsonText.h"
#include "common/TrainerChild.h"

namespace streetgan::ui {
namespace {

using F = JsonFields;

// The inverter's `--out` PNG is ImageGrid::makeGrid(target, reconstruction; 2 per row, padding 2):
// the reconstruction is the second cell.
constexpr int kGridPadding = 2;

QImage reconstructionOf(const QImage& pair) {
    const int side = pair.height() - 2 * kGridPadding;
    if (side <= 0 || pair.width() < 2 * side + 3 * kGridPadding) return {};
    return pair.copy(2 * kGridPadding + side, kGridPadding, side, side);
}

// The photo as the inverter sees it: the centred square of its short side (InversionTarget). Read
// on the GUI thread, so only what is shown: the square, decoded down to the preview's size where
// the format can (JPEG), and nothing past the inverter's own limit (ImageDecoder's 40 Mpx, whose
// refusal the child's line then gives): a 40 Mpx photo is never decoded whole here.
QImage centredSquare(const QString& path) {
    constexpr qint64 kMaxPixels = 40'000'000;
    QImageReader reader(path);
    const QSize size = reader.size();  // from the header
    if (!size.isValid() || qint64{size.width()} * size.height() > kMaxPixels) return {};
    const int side = std::min(size.width(), size.height());
    reader.setClipRect(QRect((size.width() - side) / 2, (size.height() - side) / 2, side, side));
    if (side > ProjectPhotoDialog::kShownPx) reader.setScaledSize(QSize(ProjectPhotoDialog::kShownPx, ProjectPhotoDialog::kShownPx));
    return reader.read();
}

QLabel* imageLabel(const char* name, const QString& empty) {
    auto* l = new QLabel(empty);
    l->setObjectName(name);
    l->setFixedSize(ProjectPhotoDialog::kShownPx, ProjectPhotoDialog::kShownPx);
    l->setAlignment(Qt::AlignCenter);
    l->setFrameShape(QFrame::StyledPanel);
    l->setWordWrap(true);
    return l;
}

QPixmap shown(const QImage& image) {
    // Nearest: a 64 px model's pixels stay visible as pixels rather than a blur.
    return QPixmap::fromImage(image.scaled(ProjectPhotoDialog::kShownPx, ProjectPhotoDialog::kShownPx, Qt::KeepAspectRatio, Qt::FastTransformation));
}

}  // namespace

ProjectPhotoDialog::ProjectPhotoDialog(const QString& checkpoint, QWidget* parent) : QDialog(parent), checkpoint_(checkpoint), child_(new TrainerChild(this)) {
    setWindowTitle(tr("Project a photo"));
    connect(child_, &TrainerChild::stderrLine, this, &ProjectPhotoDialog::onStderrLine);
    connect(child_, &TrainerChild::finished, this, &ProjectPhotoDialog::onFinished);
    setObjectName("projectPhotoDialog");
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buildImages());
    progress_ = new QProgressBar;
    progress_->setObjectName("projectPhotoProgress");
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(tr("idle"));
    layout->addWidget(progress_);
    status_ = new QLabel(tr("Open or drop a photo (JPEG, PNG or WebP)"));
    status_->setObjectName("projectPhotoStatus");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(status_);

    auto* row = new QHBoxLayout;
    auto* open = new QPushButton(tr("Open photo…"));
    open->setObjectName("projectPhotoOpen");
    quality_ = new QComboBox;
    quality_->setObjectName("projectPhotoQuality");
    quality_->addItem(tr("Fast"), kFastSteps);
    quality_->addItem(tr("Best"), 0);  // 0: no --steps, the CLI's default
    quality_->setToolTip(tr("Fast: %1 steps, seconds; Best: the inverter's default steps, a few dB more").arg(kFastSteps));
    project_ = new QPushButton(tr("Project"));
    project_->setObjectName("projectPhotoRun");
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setObjectName("projectPhotoCancel");
    add_ = new QPushButton(tr("Add as keyframe"));
    add_->setObjectName("projectPhotoAdd");
    add_->setToolTip(tr("Append the projected z to the end of the walk (undoable)"));
    auto* close = new QPushButton(tr("Close"));
    for (QWidget* w : QList<QWidget*>{open, quality_, project_, cancel_}) row->addWidget(w);
    row->addStretch(1);
    row->addWidget(add_);
    row->addWidget(close);
    layout->addLayout(row);
    project_->setEnabled(false);
    cancel_->setEnabled(false);
    add_->setEnabled(false);

    connect(open, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Project a photo"), QFileInfo(photo_).absolutePath(),
                                                       tr("Images (*.jpg *.jpeg *.png *.webp);;All files (*)"));
        if (!p.isEmpty()) setPhoto(p);
    });
    connect(project_, &QPushButton::clicked, this, &ProjectPhotoDialog::start);
    connect(cancel_, &QPushButton::clicked, this, &ProjectPhotoDialog::cancel);
    connect(add_, &QPushButton::clicked, this, [this] {
        if (result_) emit keyframeRequested(result_->z);
    });
    connect(close, &QPushButton::clicked, this, &QDialog::close);
}

// The photo and the reconstruction side by side, each with its caption.
QLayout* ProjectPhotoDialog::buildImages() {
    auto* images = new QHBoxLayout;
    photoView_ = imageLabel("projectPhotoImage", tr("no photo"));
    reconstructionView_ = imageLabel("projectPhotoReconstruction", tr("the reconstruction appears here"));
    const QList<QPair<QLabel*, QString>> columns = {{photoView_, tr("Photo (centred square)")}, {reconstructionView_, tr("Best reconstruction")}};
    for (const auto& [view, caption] : columns) {
        auto* column = new QVBoxLayout;
        column->addWidget(new QLabel(caption));
        column->addWidget(view);
        images->addLayout(column);
    }
    return images;
}

ProjectPhotoDialog::~ProjectPhotoDialog() { stopChild(); }

qint64 ProjectPhotoDialog::processId() const { return child_->processId(); }
QString ProjectPhotoDialog::statusLine() const { return status_->text(); }

void ProjectPhotoDialog::setCheckpoint(const QString& checkpoint) {
    if (checkpoint == checkpoint_) return;
    stopChild();
    clearResult();
    checkpoint_ = checkpoint;
    showStatus(tr("Another checkpoint is open: project the photo again"), false);
}

void ProjectPhotoDialog::setPhoto(const QString& photo) {
    photo_ = photo;
    const QImage square = centredSquare(photo);
    // A file Qt cannot read is still handed to the inverter: its refusal is the line shown.
    if (square.isNull())
        photoView_->setText(tr("no preview of %1").arg(QFileInfo(photo).fileName()));
    else
        photoView_->setPixmap(shown(square));
    photoView_->setToolTip(photo);
    start();
}

void ProjectPhotoDialog::start() {
    if (photo_.isEmpty()) return;
    stopChild();
    clearResult();
    outDir_ = std::make_unique<QTemporaryDir>();
    QStringList args{"invert", "--checkpoint", checkpoint_, "--image", photo_, "--json", "--out", outDir_->filePath("pair.png")};
    const int steps = quality_->currentData().toInt();
    if (steps > 0) args << "--steps" << QString::number(steps);
    progress_->setRange(0, 0);  // busy until the first step line gives the count
    progress_->setFormat(tr("starting…"));
    showStatus(tr("Projecting %1…").arg(QFileInfo(photo_).fileName()), false);
    project_->setEnabled(false);
    cancel_->setEnabled(true);
    child_->start(args, tr("the projection"));
}

bool ProjectPhotoDialog::isRunning() const { return child_->isRunning(); }

// Progress lines: "step N/M: loss L, best PSNR P dB" (InvertCommand); the restart summaries and
// anything else only count as the last line, the error message if the child fails.
void ProjectPhotoDialog::onStderrLine(const QString& line) {
    static const QRegularExpression stepLine(R"(^step (\d+)/(\d+):.*best PSNR ([-\d.]+) dB)");
    const QRegularExpressionMatch m = stepLine.match(line);
    if (!m.hasMatch()) return;
    progress_->setRange(0, m.captured(2).toInt());
    progress_->setValue(m.captured(1).toInt());
    progress_->setFormat(tr("step %v of %m · best PSNR %1 dB").arg(m.captured(3)));
}

void ProjectPhotoDialog::onFinished(bool ok, const QByteArray& out, const QString& error) {
    project_->setEnabled(true);
    cancel_->setEnabled(false);
    progress_->setRange(0, 1);
    if (ok && takeResult(out)) {
        progress_->setValue(1);
        progress_->setFormat(tr("done"));
        showStatus(tr("PSNR %1 dB · SSIM %2 · %3 s").arg(result_->psnr, 0, 'f', 1).arg(result_->ssim, 0, 'f', 2).arg(result_->seconds, 0, 'f', 1), false);
        emit projected();
        return;
    }
    const QString message = ok ? tr("the projection gave no result (its output could not be read)") : error;
    progress_->setValue(0);
    progress_->setFormat(tr("failed"));
    showStatus(message, true);
    emit failed(message);
}

// The child's JSON: z (its numbers taken as they are, so the keyframe is exactly the inverter's z),
// psnr, ssim, seconds; the reconstruction from the --out PNG.
bool ProjectPhotoDialog::takeResult(const QByteArray& out) {
    const nlohmann::json j = JsonText::parse(out).value_or(nlohmann::json());
    const nlohmann::json& z = F::at(j, "z");
    if (!z.is_array() || z.empty()) return false;
    Result r;
    for (const nlohmann::json& v : z) {
        if (!v.is_number()) return false;
        r.z.push_back(v.get<double>());
    }
    r.psnr = F::number(j, "psnr");
    r.ssim = F::number(j, "ssim");
    r.seconds = F::number(j, "seconds");
    r.reconstruction = reconstructionOf(QImage(outDir_->filePath("pair.png")));
    if (r.reconstruction.isNull())
        reconstructionView_->setText(tr("(the reconstruction image could not be read)"));
    else
        reconstructionView_->setPixmap(shown(r.reconstruction));
    result_ = std::move(r);
    resultJson_ = out;
    add_->setEnabled(true);
    return true;
}

void ProjectPhotoDialog::cancel() {
    if (!child_->isRunning()) return;
    stopChild();
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(tr("cancelled"));
    showStatus(tr("Cancelled; nothing was added"), false);
}

void ProjectPhotoDialog::stopChild() {
    child_->cancel();
    project_->setEnabled(!photo_.isEmpty());
    cancel_->setEnabled(false);
}

void ProjectPhotoDialog::clearResult() {
    result_.reset();
    resultJson_.clear();
    add_->setEnabled(false);
    reconstructionView_->setPixmap({});
    reconstructionView_->setText(tr("the reconstruction appears here"));
}

void ProjectPhotoDialog::showStatus(const QString& text, bool error) {
    status_->setStyleSheet(error ? "color: #b00020" : "");
    status_->setText(text);
}

}  // namespace streetgan::ui
