#include "checkpoints/EvolutionPanel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

#include "common/JsonFields.h"
#include "common/RenderClient.h"

namespace streetgan::ui {

// The controls and the worker's answers.
void EvolutionPanel::wire() {
    connect(source_, &QComboBox::currentIndexChanged, this, [this](int i) { seed_->setEnabled(i == 1); });
    connect(renderButton_, &QPushButton::clicked, this, [this] { render(); });
    connect(slider_, &QSlider::valueChanged, this, [this](int v) { showFrame(v); });
    connect(play_, &QPushButton::toggled, this, [this](bool on) {
        play_->setText(on ? tr("Pause") : tr("Play"));
        on ? playTimer_->start() : playTimer_->stop();
    });
    connect(playTimer_, &QTimer::timeout, this, [this] {
        if (frames_.isEmpty()) return;
        slider_->setValue((slider_->value() + 1) % static_cast<int>(frames_.size()));
    });
    connect(exportButton_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the evolution as a GIF"), QStringLiteral("evolution.gif"), tr("GIF (*.gif)"));
        if (!path.isEmpty()) exportGif(path);
    });
    connect(cancelButton_, &QPushButton::clicked, this, [this] { cancelExport(); });
    connect(client_, &RenderClient::progress, this, [this](qint64 id, qint64 done, qint64 total) {
        if (id == renderId_) status_->setText(tr("rendering checkpoint %1 of %2…").arg(done).arg(total));
    });
    connect(client_, &RenderClient::finished, this, [this](qint64 id, const nlohmann::json& header, const QByteArray& payload) {
        if (id != renderId_) return;
        renderId_ = 0;
        setBusy(false);
        if (!JsonFields::flag(header, "ok")) {
            const QString message = tr("Evolution: %1").arg(JsonFields::text(header, "error"));
            status_->setText(message);
            emit failed(message);
            return;
        }
        frames_ = RenderClient::images(header, payload);
        slider_->setRange(0, std::max(0, static_cast<int>(frames_.size()) - 1));
        status_->clear();
        showFrame(std::min(slider_->value(), static_cast<int>(frames_.size()) - 1));
        emit framesReady(static_cast<int>(frames_.size()));
    });
}

EvolutionPanel::EvolutionPanel(RenderClient* client, QWidget* parent) : QWidget(parent), client_(client) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    source_ = new QComboBox;
    source_->addItems({tr("Fixed noise"), tr("Seeds")});
    seed_ = new QSpinBox;
    seed_->setRange(0, 1'000'000'000);
    seed_->setEnabled(false);
    count_ = new QSpinBox;
    count_->setRange(1, 64);  // the fixed noise has 64 rows
    count_->setValue(16);
    renderButton_ = new QPushButton(tr("Render"));
    renderButton_->setToolTip(tr("Render one grid per checkpoint on the same latent vectors"));
    top->addWidget(new QLabel(tr("Latents:")));
    top->addWidget(source_);
    top->addWidget(new QLabel(tr("seed")));
    top->addWidget(seed_);
    top->addWidget(new QLabel(tr("images")));
    top->addWidget(count_);
    top->addWidget(renderButton_);
    top->addStretch(1);
    layout->addLayout(top);

    view_ = new QLabel(tr("Render to see the checkpoints' grids on the same latent vectors."));
    view_->setAlignment(Qt::AlignCenter);
    view_->setMinimumSize(160, 160);
    view_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    layout->addWidget(view_, 1);

    layout->addLayout(buildPlayer());
    status_ = new QLabel;
    status_->setWordWrap(true);
    layout->addWidget(status_);
    playTimer_ = new QTimer(this);
    playTimer_->setInterval(500);
    wire();
}

// Play, the frame slider, export and its progress.
QHBoxLayout* EvolutionPanel::buildPlayer() {
    auto* bottom = new QHBoxLayout;
    play_ = new QPushButton(tr("Play"));
    play_->setCheckable(true);
    slider_ = new QSlider(Qt::Horizontal);
    slider_->setRange(0, 0);
    frameLabel_ = new QLabel;
    frameLabel_->setMinimumWidth(150);
    exportButton_ = new QPushButton(tr("Export GIF…"));
    progress_ = new QProgressBar;
    progress_->setMaximumWidth(140);
    progress_->setVisible(false);
    cancelButton_ = new QPushButton(tr("Cancel"));
    cancelButton_->setVisible(false);
    bottom->addWidget(play_);
    bottom->addWidget(slider_, 1);
    bottom->addWidget(frameLabel_);
    bottom->addWidget(exportButton_);
    bottom->addWidget(progress_);
    bottom->addWidget(cancelButton_);
    return bottom;
}

void EvolutionPanel::setCheckpoints(const QList<CheckpointChoice>& choices) {
    if (choices == choices_) return;
    choices_ = choices;
    choicesChanged();
}

void EvolutionPanel::appendCheckpoints(const QList<CheckpointChoice>& more) {
    if (more.isEmpty()) return;
    choices_ += more;
    choicesChanged();
}

void EvolutionPanel::choicesChanged() {
    frames_.clear();
    slider_->setRange(0, 0);
    view_->setPixmap({});
    view_->setText(choices_.size() < 1 ? tr("No checkpoints yet.")
                                       : tr("%n checkpoint(s): Render to see them on the same latent vectors.", nullptr, static_cast<int>(choices_.size())));
    frameLabel_->clear();
}

void EvolutionPanel::setSource(bool fixedNoise, int seed, int count) {
    source_->setCurrentIndex(fixedNoise ? 0 : 1);
    seed_->setValue(seed);
    count_->setValue(count);
}

nlohmann::json EvolutionPanel::request() const {
    nlohmann::json paths = nlohmann::json::array();
    for (const auto& c : choices_) paths.push_back(c.path);
    const int n = count_->value();
    nlohmann::json req{{"op", "evolution"}, {"checkpoints", paths}, {"nrow", static_cast<int>(std::ceil(std::sqrt(double(n))))}, {"padding", 2}};
    if (source_->currentIndex() == 0) {
        req["fixed_noise"] = n;
    } else {
        nlohmann::json seeds = nlohmann::json::array();
        for (int i = 0; i < n; ++i) seeds.push_back(static_cast<qint64>(seed_->value()) + i);
        req["seeds"] = seeds;
    }
    return req;
}

void EvolutionPanel::render() {
    if (choices_.isEmpty()) {
        status_->setText(tr("No checkpoints to render."));
        emit failed(status_->text());
        return;
    }
    if (renderId_) client_->cancel(renderId_);
    playTimer_->stop();
    play_->setChecked(false);
    setBusy(true);
    status_->setText(tr("rendering %n checkpoint(s)…", nullptr, static_cast<int>(choices_.size())));
    renderId_ = client_->send(request());
}

void EvolutionPanel::setBusy(bool rendering) { renderButton_->setEnabled(!rendering); }

void EvolutionPanel::showFrame(int index) {
    if (index < 0 || index >= frames_.size()) return;
    if (slider_->value() != index) {
        slider_->setValue(index);  // comes back here through valueChanged
        return;
    }
    const QSize avail = view_->size().expandedTo(QSize(32, 32));
    view_->setPixmap(QPixmap::fromImage(frames_[index]).scaled(avail, Qt::KeepAspectRatio, Qt::FastTransformation));
    frameLabel_->setText(tr("%1  (%2 of %3)").arg(choices_.value(index).label).arg(index + 1).arg(frames_.size()));
}

int EvolutionPanel::currentFrame() const { return slider_->value(); }
bool EvolutionPanel::playing() const { return playTimer_->isActive(); }

void EvolutionPanel::exportGif(const QString& path) {
    if (exporting()) {
        emit exportFinished(false, tr("An export is already running: wait for it or cancel it."));
        return;
    }
    if (choices_.isEmpty()) {
        emit exportFinished(false, tr("No checkpoints to export: open a run with checkpoints first."));
        return;
    }
    exportPath_ = QFileInfo(path).absoluteFilePath();
    nlohmann::json req = request();
    req["out"] = exportPath_;
    // One worker per export (docs/explore-worker.md): the page's worker stays free for thumbnails.
    auto* c = new RenderClient(QStringLiteral("auto"), this);
    exportClient_ = c;
    progress_->setRange(0, static_cast<int>(choices_.size()));
    progress_->setValue(0);
    progress_->setVisible(true);
    cancelButton_->setVisible(true);
    exportButton_->setEnabled(false);
    status_->setText(tr("exporting %1…").arg(exportPath_));
    connect(c, &RenderClient::progress, this, [this](qint64, qint64 done, qint64 total) {
        progress_->setRange(0, static_cast<int>(total));
        progress_->setValue(static_cast<int>(done));
    });
    connect(c, &RenderClient::finished, this, [this, c](qint64 id, const nlohmann::json& header, const QByteArray&) {
        if (id != exportId_) return;
        exportId_ = 0;
        progress_->setVisible(false);
        cancelButton_->setVisible(false);
        exportButton_->setEnabled(true);
        c->deleteLater();
        exportClient_.clear();
        const bool ok = JsonFields::flag(header, "ok"), cancelled = JsonFields::flag(header, "cancelled");
        const QString text = ok ? exportPath_ : cancelled ? tr("cancelled") : JsonFields::text(header, "error");
        const QString message = ok ? tr("Exported %1 (%2 frames)").arg(exportPath_).arg(JsonFields::integer32(header, "frames"))
                                   : tr("GIF export %1: %2").arg(cancelled ? tr("cancelled") : tr("failed"), text);
        status_->setText(message);
        emit statusMessage(message);
        emit exportFinished(ok, text);
    });
    exportId_ = c->send(req);
}

void EvolutionPanel::cancelExport() {
    if (exportClient_ && exportId_) exportClient_->cancel(exportId_);
}

}  // namespace streetgan::ui
