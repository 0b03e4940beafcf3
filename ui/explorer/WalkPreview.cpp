#include "explorer/WalkPreview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "common/JsonFields.h"
#include "common/RenderClient.h"
#include "explorer/KeyframeList.h"
#include "explorer/KeyframeModel.h"
#include "explorer/SessionModel.h"
#include "explorer/WorkerRequests.h"

namespace streetgan::ui {
namespace {

using nlohmann::json;
using F = JsonFields;

// Grid previews show every frame of the walk; they are a preview, so frames are capped at this
// edge (the output size still applies to single frames and exports).
constexpr int kGridPreviewEdge = 64;

}  // namespace

WalkPreview::WalkPreview(RenderClient* client, SessionModel* model, QWidget* parent)
    : QWidget(parent), worker_(new WorkerRequests(client, this)), model_(model), cache_(qsizetype{256} * 1024) {  // KiB of frames
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    image_ = new QLabel;
    image_->setObjectName("explorerPreview");
    image_->setAlignment(Qt::AlignCenter);
    image_->setMinimumSize(256, 256);
    image_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    image_->setStyleSheet("background: #202020; color: #c0c0c0");
    image_->setText(tr("Open a checkpoint or the demo to explore its latent space"));
    image_->setWordWrap(true);
    layout->addWidget(image_, 1);
    // Play and the scrubber, then the frame label: one row, or two when narrow (arrangeRows).
    playScrub_ = new QWidget;
    auto* playScrubRow = new QHBoxLayout(playScrub_);
    playScrubRow->setContentsMargins(0, 0, 0, 0);
    play_ = new QPushButton(tr("Play"));
    play_->setObjectName("playButton");
    play_->setCheckable(true);
    scrubber_ = new QSlider(Qt::Horizontal);
    scrubber_->setObjectName("scrubber");
    scrubber_->setRange(0, 0);
    scrubber_->setMinimumWidth(120);
    playScrubRow->addWidget(play_);
    playScrubRow->addWidget(scrubber_, 1);
    frameLabel_ = new QLabel(tr("frame – / –"));
    frameLabel_->setObjectName("frameLabel");
    // Wide enough for most walks' labels, so the scrubber does not change width while playing.
    frameLabel_->setMinimumWidth(frameLabel_->fontMetrics().horizontalAdvance("frame 000 / 000 · 00→00 · t -00.000"));
    scrubRow_ = new QBoxLayout(QBoxLayout::LeftToRight);
    scrubRow_->addWidget(playScrub_, 1);
    scrubRow_->addWidget(frameLabel_);
    layout->addLayout(scrubRow_);

    buildRatesAndOutput();
    outRow_ = new QBoxLayout(QBoxLayout::LeftToRight);
    outRow_->addWidget(rates_, 1);
    outRow_->addWidget(output_);
    layout->addLayout(outRow_);
    for (QWidget* w : {static_cast<QWidget*>(play_), static_cast<QWidget*>(scrubber_), static_cast<QWidget*>(targetFps_), static_cast<QWidget*>(grid_),
                       static_cast<QWidget*>(size_), static_cast<QWidget*>(upscale_)})
        w->setEnabled(false);  // until a session is open

    // Keyframe thumbnails follow edits after a pause, so a slider drag does not render them per move.
    thumbTimer_ = new QTimer(this);
    thumbTimer_->setSingleShot(true);
    thumbTimer_->setInterval(250);
    connect(thumbTimer_, &QTimer::timeout, this, &WalkPreview::requestThumbnails);
    playTimer_ = new QTimer(this);
    playTimer_->setTimerType(Qt::PreciseTimer);
    fpsTimer_ = new QTimer(this);
    fpsTimer_->setInterval(250);
    connect(fpsTimer_, &QTimer::timeout, this, &WalkPreview::updateFpsReadout);
    clock_.start();

    connect(size_, &QSpinBox::valueChanged, this, &WalkPreview::sizeEdited);
    connect(upscale_, &QComboBox::activated, this, [this] { emit upscaleEdited(upscale_->currentData().toString()); });
    connect(targetFps_, &QDoubleSpinBox::valueChanged, this, &WalkPreview::targetFpsEdited);
    connect(grid_, &QCheckBox::toggled, this, [this](bool on) { setGridPreview(on); });
    connect(scrubber_, &QSlider::valueChanged, this, [this](int v) { setCurrentFrame(v); });
    connect(play_, &QPushButton::toggled, this, [this](bool on) { setPlaying(on); });
    connect(playTimer_, &QTimer::timeout, this, &WalkPreview::tick);
}

// Rates (target, achieved), then the output settings: one row, or two when narrow (outRow_).
void WalkPreview::buildRatesAndOutput() {
    rates_ = new QWidget;
    auto* ratesRow = new QHBoxLayout(rates_);
    ratesRow->setContentsMargins(0, 0, 0, 0);
    targetFps_ = new QDoubleSpinBox;
    targetFps_->setObjectName("targetFps");
    targetFps_->setRange(0.1, 100);
    targetFps_->setDecimals(1);
    targetFps_->setSuffix(tr(" fps"));
    targetFps_->setToolTip(tr("Target frame rate of playback and exports (the session's frame delay)"));
    auto* achieved = new QLabel(tr("achieved"));
    measured_ = new QLabel(QStringLiteral("—"));
    measured_->setObjectName("measuredFps");
    measured_->setToolTip(tr("Frames actually shown per second over the last second of playback (the worker may render slower than the target)"));
    achieved->setToolTip(measured_->toolTip());
    measured_->setMinimumWidth(measured_->fontMetrics().horizontalAdvance("000.0 fps") + 4);
    ratesRow->addWidget(new QLabel(tr("Target")));
    ratesRow->addWidget(targetFps_);
    ratesRow->addSpacing(6);
    ratesRow->addWidget(achieved);
    ratesRow->addWidget(measured_);
    ratesRow->addStretch();
    output_ = new QWidget;
    auto* outputRow = new QHBoxLayout(output_);
    outputRow->setContentsMargins(0, 0, 0, 0);
    grid_ = new QCheckBox(tr("Grid preview"));
    grid_->setObjectName("gridPreview");
    grid_->setToolTip(tr("Show every frame of the walk as one grid"));
    size_ = new QSpinBox;
    size_->setObjectName("outputSize");
    size_->setRange(8, 2048);  // LatentSession's range; the worker refuses walks over 4 GiB of frames
    size_->setSuffix(tr(" px"));
    size_->setKeyboardTracking(false);
    size_->setToolTip(tr("Output edge in pixels (upscaled from the model's resolution)"));
    upscale_ = new QComboBox;
    upscale_->setObjectName("upscale");
    upscale_->addItem(tr("nearest"), "nearest");
    upscale_->addItem(tr("smooth"), "smooth");
    outputRow->addWidget(grid_);
    outputRow->addStretch();
    outputRow->addWidget(new QLabel(tr("Size")));
    outputRow->addWidget(size_);
    outputRow->addWidget(upscale_);
}

WalkPreview::~WalkPreview() { playTimer_->stop(); }

void WalkPreview::start(const QString& checkpoint) {
    setPlaying(false);
    checkpoint_ = checkpoint;
    ready_ = true;
    for (QWidget* w : {static_cast<QWidget*>(scrubber_), static_cast<QWidget*>(targetFps_), static_cast<QWidget*>(grid_), static_cast<QWidget*>(size_),
                       static_cast<QWidget*>(upscale_)})
        w->setEnabled(true);
    play_->setEnabled(true);
    frame_ = 0;
    measuredFps_ = 0;
    shownAt_.clear();
    updateFpsReadout();
}

void WalkPreview::sessionChanged() {
    ++revision_;
    cache_.clear();
    syncWidgets();
    frame_ = std::clamp(frame_, 0, std::max(0, model_->frameCount() - 1));
    requestFrame();
    thumbTimer_->start();
}

bool WalkPreview::isPlaying() const { return playTimer_->isActive(); }

void WalkPreview::syncWidgets() {
    const LatentSession& s = model_->session();
    const int n = model_->frameCount();
    const QSignalBlocker b1(size_), b2(upscale_), b3(targetFps_), b4(scrubber_);
    size_->setValue(s.size);
    upscale_->setCurrentIndex(std::max(0, upscale_->findData(s.upscale == LatentSession::Upscale::Smooth ? "smooth" : "nearest")));
    const int delay = s.frameDelayMs;
    // Only when the shown rate is another delay: typing 12.5 fps must not be rounded under the cursor.
    if (std::lround(1000.0 / targetFps_->value()) != delay) targetFps_->setValue(1000.0 / delay);
    playTimer_->setInterval(delay);
    scrubber_->setRange(0, std::max(0, n - 1));
    scrubber_->setValue(frame_);
    frameLabel_->setText(frameText(std::min(frame_, n - 1)));
}

QString WalkPreview::frameText(int index) const {
    const LatentSession& s = model_->session();
    const int n = model_->frameCount();
    if (index < 0 || index >= n) return tr("frame – / %1").arg(n);
    // Where the frame lies on the walk (base's WalkRule, the rule the worker renders with).
    const WalkRule::Place p = s.framePlace(index);
    return tr("frame %1 / %2 · %3→%4 · t %5").arg(index + 1).arg(n).arg(p.from + 1).arg(p.to + 1).arg(s.frameT(index), 0, 'f', 3);
}

void WalkPreview::setCurrentFrame(int index) {
    if (!ready_) return;
    const int n = model_->frameCount();
    index = std::clamp(index, 0, std::max(0, n - 1));
    frame_ = index;
    if (scrubber_->value() != index) {
        const QSignalBlocker b(scrubber_);
        scrubber_->setValue(index);
    }
    frameLabel_->setText(frameText(index));
    if (!grid_->isChecked()) requestFrame();
}

void WalkPreview::setGridPreview(bool on) {
    if (grid_->isChecked() != on) {
        grid_->setChecked(on);  // comes back here through toggled
        return;
    }
    if (on) setPlaying(false);
    play_->setEnabled(ready_ && !on);
    requestFrame();
}

void WalkPreview::requestFrame() {
    if (!ready_) return;
    const quint64 revision = revision_;
    if (grid_->isChecked()) {
        json s = model_->json();
        s["size"] = std::min(model_->session().size, kGridPreviewEdge);
        const json r{{"op", "frames"}, {"checkpoint", checkpoint_}, {"session", s}, {"from", 0}, {"count", model_->frameCount()}, {"grid", true}};
        worker_->latest("view", r, [this, revision](const json& h, const QByteArray& payload) {
            if (revision != revision_ || !grid_->isChecked()) return;
            if (!F::flag(h, "ok")) {
                emit failed(F::text(h, "error"));
                return;
            }
            const QList<QImage> images = RenderClient::images(h, payload);
            if (!images.isEmpty()) showImage(images.first(), -1);
        });
        return;
    }
    const int index = frame_;
    if (const QImage* cached = cache_.object(index)) {
        showImage(*cached, index);
        return;
    }
    worker_->latest("view", {{"op", "frames"}, {"checkpoint", checkpoint_}, {"session", model_->json()}, {"from", index}, {"count", 1}},
                    [this, revision, index](const json& h, const QByteArray& payload) {
                        if (revision != revision_ || grid_->isChecked()) return;  // a newer session's request is on its way
                        if (!F::flag(h, "ok")) {
                            emit failed(F::text(h, "error"));
                            return;
                        }
                        const QList<QImage> images = RenderClient::images(h, payload);
                        if (images.isEmpty()) return;
                        cache_.insert(index, new QImage(images.first()), std::max<qsizetype>(1, images.first().sizeInBytes() / 1024));
                        // Shown even when the scrubber has moved on: the newest answer beats a frozen view
                        // while the renderer is slower than the mouse or the playback rate.
                        showImage(images.first(), index);
                    });
}

void WalkPreview::requestThumbnails() {
    if (!ready_) return;
    // The keyframes as the walk shows them (truncation and directions applied): the same session
    // with one frame per segment, a loop and the default t range renders each keyframe itself
    // (frame s at t = 0 of segment s), also when the walk's own range passes it by.
    LatentSession thumbs = model_->session();
    thumbs.framesPerSegment = 1;
    thumbs.loop = true;
    thumbs.size = KeyframeList::kThumbPx;
    thumbs.tRange = {};
    for (SessionKeyframe& k : thumbs.keyframes) k.tRange.reset();
    const json s = thumbs.toJson();
    const quint64 revision = revision_;
    worker_->latest("thumbs", {{"op", "frames"}, {"checkpoint", checkpoint_}, {"session", s}}, [this, revision](const json& h, const QByteArray& payload) {
        if (revision != revision_ || !F::flag(h, "ok")) return;  // errors show up with the frame itself
        model_->keyframes()->setThumbnails(RenderClient::images(h, payload));
    });
}

void WalkPreview::showImage(const QImage& image, int index) {
    preview_ = image;
    updatePixmap();
    if (isPlaying() && index >= 0) {
        const qint64 now = clock_.elapsed();
        shownAt_.append(now);
        while (shownAt_.size() > 2 && now - shownAt_.first() > 5000) shownAt_.removeFirst();
        updateFpsReadout();
    }
    emit frameShown(index);
}

void WalkPreview::updatePixmap() {
    if (preview_.isNull()) return;
    const QSize avail = image_->size().expandedTo(QSize(16, 16));
    // Nearest when enlarging: the output's own upscale mode is what the session chose; the view
    // only fits it into the widget.
    const bool enlarging = preview_.width() < avail.width() && preview_.height() < avail.height();
    image_->setPixmap(QPixmap::fromImage(preview_).scaled(avail, Qt::KeepAspectRatio, enlarging ? Qt::FastTransformation : Qt::SmoothTransformation));
}

void WalkPreview::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    arrangeRows();
    updatePixmap();
}

void WalkPreview::arrangeRows() {
    const int gap = 12;  // room between the two halves of a row before it wraps
    const bool oneRow = width() >= std::max(playScrub_->minimumSizeHint().width() + 120 + frameLabel_->minimumWidth(),
                                            rates_->sizeHint().width() + output_->sizeHint().width() + gap);
    const QBoxLayout::Direction d = oneRow ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (scrubRow_->direction() == d) return;
    scrubRow_->setDirection(d);
    outRow_->setDirection(d);
}

QSize WalkPreview::minimumSizeHint() const {
    // The wrapped rows' width: the widest part or the preview's minimum (the rows wrap in
    // resizeEvent, so the layout's own one-row minimum does not hold the splitter back).
    int w = image_->minimumWidth();
    for (const QWidget* part : {playScrub_, static_cast<QWidget*>(frameLabel_), rates_, output_}) w = std::max(w, part->minimumSizeHint().width());
    const QMargins m = layout()->contentsMargins();
    return {w + m.left() + m.right(), QWidget::minimumSizeHint().height()};
}

double WalkPreview::achievedFps() const {
    if (!isPlaying() || shownAt_.size() < 2) return 0;
    // Frames shown within the window up to now: a stalled renderer brings the rate down to 0.
    const qint64 now = clock_.elapsed();
    const qint64 window = std::max<qint64>(1000, qint64{3} * playTimer_->interval());
    qsizetype first = shownAt_.size();
    while (first > 0 && now - shownAt_[first - 1] <= window) --first;
    const qsizetype n = shownAt_.size() - first;
    if (n < 2 || shownAt_.last() <= shownAt_[first]) return 0;
    return 1000.0 * static_cast<double>(n - 1) / static_cast<double>(shownAt_.last() - shownAt_[first]);
}

QString WalkPreview::fpsText() const { return measured_->text(); }

void WalkPreview::updateFpsReadout() {
    const double fps = achievedFps();
    if (fps > 0) measuredFps_ = fps;
    measured_->setText(isPlaying() && fps > 0 ? tr("%1 fps").arg(fps, 0, 'f', 1) : QStringLiteral("—"));
}

void WalkPreview::setPlaying(bool playing) {
    if (playing && (!ready_ || grid_->isChecked())) playing = false;
    if (play_->isChecked() != playing) {
        const QSignalBlocker b(play_);
        play_->setChecked(playing);
    }
    play_->setText(playing ? tr("Pause") : tr("Play"));
    if (playing == playTimer_->isActive()) return;
    if (playing) {
        shownAt_.clear();
        playTimer_->start(model_->session().frameDelayMs);
        fpsTimer_->start();
    } else {
        // measuredFps() keeps the last rate (for callers and the tests); the readout says "—".
        const double last = achievedFps();
        if (last > 0) measuredFps_ = last;
        playTimer_->stop();
        fpsTimer_->stop();
        shownAt_.clear();
    }
    updateFpsReadout();
}

void WalkPreview::tick() {
    const int n = model_->frameCount();
    if (n <= 0) return;
    setCurrentFrame((frame_ + 1) % n);
}

}  // namespace streetgan::ui
