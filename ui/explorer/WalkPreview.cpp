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
    auto* scrubRow = new QHBoxLayout;
    play_ = new QPushButton(tr("Play"));
    play_->setObjectName("playButton");
    play_->setCheckable(true);
    scrubber_ = new QSlider(Qt::Horizontal);
    scrubber_->setObjectName("scrubber");
    scrubber_->setRange(0, 0);
    frameLabel_ = new QLabel(tr("frame – / –"));
    frameLabel_->setObjectName("frameLabel");
    // Wide enough for most walks' labels, so the scrubber does not change width while playing.
    frameLabel_->setMinimumWidth(frameLabel_->fontMetrics().horizontalAdvance("frame 000 / 000 · 00→00 · t -00.000"));
    scrubRow->addWidget(play_);
    scrubRow->addWidget(scrubber_, 1);
    scrubRow->addWidget(frameLabel_);
    layout->addLayout(scrubRow);
    auto* outRow = new QHBoxLayout;
    targetFps_ = new QDoubleSpinBox;
    targetFps_->setObjectName("targetFps");
    targetFps_->setRange(0.1, 100);
    targetFps_->setDecimals(1);
    targetFps_->setSuffix(tr(" fps"));
    targetFps_->setToolTip(tr("Target frame rate of playback and exports (the session's frame delay)"));
    measured_ = new QLabel(tr("measured –"));
    measured_->setObjectName("measuredFps");
    measured_->setMinimumWidth(110);
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
    outRow->addWidget(new QLabel(tr("Target")));
    outRow->addWidget(targetFps_);
    outRow->addWidget(measured_);
    outRow->addStretch();
    outRow->addWidget(grid_);
    outRow->addWidget(new QLabel(tr("Size")));
    outRow->addWidget(size_);
    outRow->addWidget(upscale_);
    layout->addLayout(outRow);
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
    clock_.start();

    connect(size_, &QSpinBox::valueChanged, this, &WalkPreview::sizeEdited);
    connect(upscale_, &QComboBox::activated, this, [this] { emit upscaleEdited(upscale_->currentData().toString()); });
    connect(targetFps_, &QDoubleSpinBox::valueChanged, this, &WalkPreview::targetFpsEdited);
    connect(grid_, &QCheckBox::toggled, this, [this](bool on) { setGridPreview(on); });
    connect(scrubber_, &QSlider::valueChanged, this, [this](int v) { setCurrentFrame(v); });
    connect(play_, &QPushButton::toggled, this, [this](bool on) { setPlaying(on); });
    connect(playTimer_, &QTimer::timeout, this, &WalkPreview::tick);
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
    measured_->setText(tr("measured –"));
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
        while (shownAt_.size() > 2 && now - shownAt_.first() > 2000) shownAt_.removeFirst();
        if (shownAt_.size() >= 2 && shownAt_.last() > shownAt_.first()) {
            measuredFps_ = 1000.0 * (shownAt_.size() - 1) / static_cast<double>(shownAt_.last() - shownAt_.first());
            measured_->setText(tr("measured %1 fps").arg(measuredFps_, 0, 'f', 1));
        }
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
    updatePixmap();
}

void WalkPreview::setPlaying(bool playing) {
    if (playing && (!ready_ || grid_->isChecked())) playing = false;
    if (play_->isChecked() != playing) {
        const QSignalBlocker b(play_);
        play_->setChecked(playing);
    }
    play_->setText(playing ? tr("Pause") : tr("Play"));
    if (playing == playTimer_->isActive()) return;
    shownAt_.clear();
    if (playing) {
        playTimer_->start(model_->session().frameDelayMs);
    } else {
        playTimer_->stop();
        measured_->setText(measuredFps_ > 0 ? tr("last %1 fps").arg(measuredFps_, 0, 'f', 1) : tr("measured –"));
    }
}

void WalkPreview::tick() {
    const int n = model_->frameCount();
    if (n <= 0) return;
    setCurrentFrame((frame_ + 1) % n);
}

}  // namespace streetgan::ui
