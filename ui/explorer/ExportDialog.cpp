#include "explorer/ExportDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

#include "common/JsonFields.h"
#include "common/RenderClient.h"

namespace streetgan::ui {
namespace {

QSpinBox* spin(int lo, int hi, int value, const char* name) {
    auto* s = new QSpinBox;
    s->setRange(lo, hi);
    s->setValue(value);
    s->setObjectName(name);
    return s;
}

}  // namespace

ExportDialog::ExportDialog(const QString& checkpoint, const LatentSession& session, QWidget* parent)
    : QDialog(parent), checkpoint_(checkpoint), session_(session), client_(new RenderClient("auto", this)) {
    setWindowTitle(tr("Export walk"));
    setObjectName("exportDialog");
    setMinimumWidth(560);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buildForm(session));
    layout->addWidget(buildGifGroup(session));
    layout->addWidget(buildGridGroup(session));
    progress_ = new QProgressBar;
    progress_->setObjectName("exportProgress");
    progress_->setRange(0, 1);
    progress_->setValue(0);
    layout->addWidget(progress_);
    error_ = new QLabel;
    error_->setObjectName("exportError");
    error_->setWordWrap(true);
    error_->setStyleSheet("color: #b00020");
    error_->setMinimumHeight(2 * error_->fontMetrics().lineSpacing() + 4);  // a long path wraps: room for two lines
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(error_);
    auto* buttons = new QDialogButtonBox;
    export_ = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    cancel_ = buttons->addButton(tr("Close"), QDialogButtonBox::RejectRole);
    export_->setObjectName("exportButton");
    cancel_->setObjectName("exportCancel");
    layout->addWidget(buttons);

    wire();
    updateFormat();
}

// Where to, the size, the walk and the output line (the settings every format shares).
QFormLayout* ExportDialog::buildForm(const LatentSession& session) {
    auto* form = new QFormLayout;
    auto* pathRow = new QHBoxLayout;
    path_ = new QLineEdit;
    path_->setObjectName("exportPath");
    path_->setPlaceholderText(tr("walk.gif, grid.png, walk.mp4 or a folder for a PNG sequence"));
    auto* browse = new QPushButton(tr("Browse…"));
    pathRow->addWidget(path_, 1);
    pathRow->addWidget(browse);
    form->addRow(tr("Save to"), pathRow);
    format_ = new QLabel;
    format_->setObjectName("exportFormat");
    form->addRow(tr("Format"), format_);
    // Ranges are LatentSession's (core validates them again in the worker).
    size_ = spin(8, 2048, session.size, "exportSize");
    size_->setSuffix(tr(" px"));
    size_->setToolTip(tr("Output edge in pixels, upscaled from the model's resolution"));
    upscale_ = new QComboBox;
    upscale_->setObjectName("exportUpscale");
    upscale_->addItem(tr("nearest (hard pixels)"), "nearest");
    upscale_->addItem(tr("smooth"), "smooth");
    upscale_->setCurrentIndex(session.upscale == LatentSession::Upscale::Smooth ? 1 : 0);
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(size_);
    sizeRow->addWidget(upscale_, 1);
    form->addRow(tr("Size"), sizeRow);
    delay_ = spin(10, 60000, session.frameDelayMs, "exportDelay");
    delay_->setSuffix(tr(" ms"));
    form->addRow(tr("Frame delay"), delay_);
    // Loops apply to every animation that has a loop count (ExportFormat::kLoops), not to GIF alone.
    loopCount_ = spin(0, 65535, session.gifLoopCount, "exportLoopCount");
    loopCount_->setSpecialValueText(tr("forever"));
    form->addRow(tr("Loops"), loopCount_);
    framesPerSegment_ = spin(1, 1000, session.framesPerSegment, "exportFramesPerSegment");
    framesPerSegment_->setToolTip(tr("Frames from one keyframe to the next (the Path panel's setting)"));
    loop_ = new QCheckBox(tr("Closed loop"));
    loop_->setObjectName("exportLoop");
    loop_->setToolTip(tr("The walk returns to the first keyframe (the Path panel's setting)"));
    loop_->setChecked(session.loop);
    auto* walkRow = new QHBoxLayout;
    walkRow->addWidget(framesPerSegment_);
    walkRow->addWidget(new QLabel(tr("frames per segment")));
    walkRow->addSpacing(12);
    walkRow->addWidget(loop_, 1);
    form->addRow(tr("Walk"), walkRow);
    summary_ = new QLabel;
    summary_->setObjectName("exportSummary");
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setToolTip(tr("What the export will write, before it starts; the file size is reported once it is written"));
    QFont bold = summary_->font();
    bold.setBold(true);
    summary_->setFont(bold);
    form->addRow(tr("Output"), summary_);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getSaveFileName(this, tr("Export walk"), path_->text(), QString::fromStdString(ExportFormat::fileFilters()));
        if (!p.isEmpty()) setOutputPath(p);
    });
    return form;
}

QGroupBox* ExportDialog::buildGifGroup(const LatentSession& session) {
    gifGroup_ = new QGroupBox(tr("GIF"));
    auto* gifForm = new QFormLayout(gifGroup_);
    palette_ = new QComboBox;
    palette_->setObjectName("exportPalette");
    palette_->addItem(tr("per frame"), "per-frame");
    palette_->addItem(tr("global"), "global");
    palette_->setCurrentIndex(session.gifPerFramePalette ? 0 : 1);
    gifForm->addRow(tr("Palette"), palette_);
    dithering_ = new QDoubleSpinBox;
    dithering_->setObjectName("exportDithering");
    dithering_->setRange(0, 1);
    dithering_->setSingleStep(0.1);
    dithering_->setValue(session.gifDithering);
    gifForm->addRow(tr("Dithering"), dithering_);
    speed_ = spin(1, 10, session.gifSpeed, "exportSpeed");
    speed_->setToolTip(tr("libimagequant speed: 1 = best palette (slow) … 10 = fastest"));
    gifForm->addRow(tr("Quantiser speed"), speed_);

    return gifGroup_;
}

QGroupBox* ExportDialog::buildGridGroup(const LatentSession& session) {
    gridGroup_ = new QGroupBox(tr("PNG grid"));
    auto* gridForm = new QFormLayout(gridGroup_);
    nrow_ = spin(1, 1024, session.nrow, "exportNrow");
    gridForm->addRow(tr("Images per row"), nrow_);
    padding_ = spin(0, 256, session.padding, "exportPadding");
    padding_->setSuffix(tr(" px"));
    gridForm->addRow(tr("Padding"), padding_);

    return gridGroup_;
}

// Edits update the summary; Export and Close; the worker's progress and answer.
void ExportDialog::wire() {
    connect(path_, &QLineEdit::textChanged, this, [this] { updateFormat(); });
    for (QSpinBox* box : {size_, delay_, framesPerSegment_, nrow_, padding_, loopCount_})
        connect(box, &QSpinBox::valueChanged, this, &ExportDialog::updateSummary);
    connect(loop_, &QCheckBox::toggled, this, &ExportDialog::updateSummary);
    connect(export_, &QPushButton::clicked, this, [this] { startExport(); });
    connect(cancel_, &QPushButton::clicked, this, [this] { isRunning() ? cancelExport() : reject(); });
    connect(client_, &RenderClient::progress, this, [this](qint64 id, qint64 done, qint64 total) {
        if (id != request_ || total <= 0) return;
        progress_->setRange(0, static_cast<int>(std::min<qint64>(total, INT_MAX)));
        progress_->setValue(static_cast<int>(std::min(done, total)));
    });
    connect(client_, &RenderClient::finished, this, [this](qint64 id, const nlohmann::json& h, const QByteArray&) {
        if (id != request_) return;
        setRunning(false);
        if (JsonFields::flag(h, "ok")) {
            progress_->setRange(0, 1);
            progress_->setValue(1);
            const QString message = tr("Wrote %1 (%2 frames, %3 KiB in %4 s)")
                                        .arg(JsonFields::text(h, "out"))
                                        .arg(JsonFields::integer(h, "frames"))
                                        .arg(JsonFields::integer(h, "file_bytes") / 1024)
                                        .arg(JsonFields::number(h, "seconds"), 0, 'f', 1) +
                                    (h.contains("warning") ? " — " + JsonFields::text(h, "warning") : QString());
            error_->setStyleSheet("");
            error_->setText(message);
            emit exportFinished(true, message);
        } else {
            progress_->setValue(0);
            const bool cancelled = JsonFields::flag(h, "cancelled");
            const QString message = cancelled ? tr("cancelled") : JsonFields::text(h, "error");
            error_->setStyleSheet(cancelled ? "" : "color: #b00020");
            error_->setText(cancelled ? tr("Export cancelled; nothing was written.") : message);
            emit exportFinished(false, message);
        }
        if (closeWhenDone_) QDialog::reject();
    });
}

ExportDialog::~ExportDialog() {
    // Closing the dialog waits for a cancelled export (reject()); this only covers the app quitting
    // mid-export, where the worker is stopped (its temporary file is its own to clean up).
    if (isRunning()) client_->cancel(request_);
}

ExportDialog::Format ExportDialog::formatFor(const QString& path) {
    if (path.trimmed().isEmpty()) return std::nullopt;
    return ExportFormat::forPath(path.toStdString());
}

namespace {

QString choices() { return QString::fromStdString(ExportFormat::choices()); }

}  // namespace

void ExportDialog::setOutputPath(const QString& path) { path_->setText(path); }
QString ExportDialog::outputPath() const { return path_->text().trimmed(); }
QString ExportDialog::errorLine() const { return error_->text(); }

void ExportDialog::updateFormat() {
    const Format f = formatFor(outputPath());
    format_->setText(f ? tr(ExportFormat::of(*f).label) : outputPath().isEmpty() ? QString() : tr("unknown: use %1").arg(choices()));
    const unsigned uses = f ? ExportFormat::of(*f).uses : 0;
    loopCount_->setEnabled(uses & ExportFormat::kLoops);
    gifGroup_->setEnabled(uses & ExportFormat::kGifQuantiser);
    gridGroup_->setEnabled(uses & ExportFormat::kGridLayout);
    export_->setEnabled(!isRunning() && f.has_value());
    updateSummary();
}

void ExportDialog::updateSummary() { summary_->setText(summaryText()); }

QString ExportDialog::summaryText() const { return summary(session(), formatFor(outputPath())); }

QString ExportDialog::summary(const LatentSession& s, Format format) {
    // The frame count is the export's own (base's WalkRule through LatentSession).
    const int64_t frames = s.frameCount();
    const QString framesText = frames == 1 ? tr("1 frame") : tr("%1 frames").arg(frames);
    const ExportFormat::Spec* spec = format ? &ExportFormat::of(*format) : nullptr;
    // A file stores the delay at its format's resolution (GIF: centiseconds, GifWriter rounds
    // ms / 10): its duration is the rounded one.
    const int step = spec ? spec->delayStepMs : 1;
    const int delayMs = std::max(step, static_cast<int>(std::lround(static_cast<double>(s.frameDelayMs) / step)) * step);
    const double seconds = static_cast<double>(frames) * delayMs / 1000.0;
    const QString duration =
        seconds < 60 ? tr("%1 s").arg(seconds, 0, 'f', 2) : tr("%1 min %2 s").arg(static_cast<int>(seconds / 60)).arg(std::fmod(seconds, 60.0), 0, 'f', 1);
    const QString timing = tr("%1 at %2 fps").arg(duration).arg(1000.0 / delayMs, 0, 'f', 1);
    const QString px = tr("%1 × %1 px").arg(s.size);
    if (!spec) return tr("%1 · %2 · %3 (choose %4)").arg(px, framesText, timing, choices());
    const QString name = tr(spec->name);
    if (spec->still) {
        // ImageGrid::makeGrid's layout (torchvision's make_grid): min(nrow, N) columns,
        // ceil(N / columns) rows, padding around every frame; one frame is the frame itself.
        if (frames <= 1) return tr("%1 · %2 · %3 (a still image)").arg(name, px, framesText);
        const int64_t cols = std::min<int64_t>(s.nrow, frames), rows = (frames + cols - 1) / cols;
        const int64_t w = cols * (s.size + s.padding) + s.padding, h = rows * (s.size + s.padding) + s.padding;
        return tr("%1 · %2 × %3 px (%4 × %5 frames of %6 px) · %7 (a still image)").arg(name).arg(w).arg(h).arg(cols).arg(rows).arg(s.size).arg(framesText);
    }
    if (!*spec->extension) return tr("%1 · %2 files of %3 · %4 when played").arg(name).arg(frames).arg(px, timing);
    QString text = tr("%1 · %2 · %3 · %4").arg(name, px, framesText, timing);
    if (spec->uses & ExportFormat::kLoops) text += tr(" · %1").arg(s.gifLoopCount == 0 ? tr("loops forever") : tr("plays %1 times").arg(s.gifLoopCount));
    if (spec->evenSize && s.size % 2 != 0) text += tr(" — %1 needs an even size: use %2 or %3 px").arg(name).arg(s.size - 1).arg(s.size + 1);
    return text;
}

LatentSession ExportDialog::session() const {
    LatentSession s = session_;
    s.size = size_->value();
    s.frameDelayMs = delay_->value();
    s.gifPerFramePalette = palette_->currentData().toString() == "per-frame";
    s.gifDithering = dithering_->value();
    s.gifLoopCount = loopCount_->value();
    s.gifSpeed = speed_->value();
    s.upscale = upscale_->currentData().toString() == "smooth" ? LatentSession::Upscale::Smooth : LatentSession::Upscale::Nearest;
    s.nrow = nrow_->value();
    s.padding = padding_->value();
    s.framesPerSegment = framesPerSegment_->value();
    s.loop = loop_->isChecked();
    return s;
}

void ExportDialog::fail(const QString& message) {
    error_->setStyleSheet("color: #b00020");
    error_->setText(message);
    emit exportFinished(false, message);
}

bool ExportDialog::startExport() {
    if (isRunning()) return false;
    const QString out = outputPath();
    if (!formatFor(out)) {
        fail(out.isEmpty() ? tr("Export: no output path; type %1").arg(choices()) : tr("Export: '%1' has an unknown extension; use %2").arg(out, choices()));
        return false;
    }
    const LatentSession s = session();
    if (!(s == session_)) {
        session_ = s;
        emit optionsChosen(s);
    }
    error_->clear();
    progress_->setRange(0, 0);  // busy until the first progress header
    request_ = client_->exportSession(checkpoint_, s.toJson(), QFileInfo(out).absoluteFilePath());
    setRunning(true);
    return true;
}

void ExportDialog::cancelExport() {
    if (isRunning()) client_->cancel(request_);
}

void ExportDialog::setRunning(bool running) {
    if (!running) request_ = -1;
    export_->setEnabled(!running && formatFor(outputPath()).has_value());
    cancel_->setText(running ? tr("Cancel") : tr("Close"));
    path_->setEnabled(!running);
}

void ExportDialog::reject() {
    if (isRunning()) {  // Escape or the window's close button mid-export: cancel, close once it has ended
        closeWhenDone_ = true;
        cancelExport();
        return;
    }
    QDialog::reject();
}

}  // namespace streetgan::ui
