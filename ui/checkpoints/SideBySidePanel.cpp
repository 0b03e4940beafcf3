#include "checkpoints/SideBySidePanel.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

#include "common/JsonFields.h"
#include "common/RenderClient.h"

namespace streetgan::ui {

SideBySidePanel::SideBySidePanel(RenderClient* client, QWidget* parent) : QWidget(parent), client_(client) {
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    seed_ = new QSpinBox;
    seed_->setRange(0, 1'000'000'000);
    seed_->setToolTip(tr("Both sides render the latent vectors of seeds N .. N+%1").arg(kCount - 1));
    status_ = new QLabel;
    auto* grid = new QGridLayout;
    for (int side = 0; side < 2; ++side) {
        pickers_[side] = new QComboBox;
        pickers_[side]->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        pickers_[side]->setMinimumContentsLength(18);
        views_[side] = new QLabel(tr("no checkpoint"));
        views_[side]->setAlignment(Qt::AlignCenter);
        views_[side]->setMinimumSize(160, 160);
        views_[side]->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
        grid->addWidget(pickers_[side], 0, side);
        grid->addWidget(views_[side], 1, side);
        grid->setColumnStretch(side, 1);
        connect(pickers_[side], &QComboBox::currentIndexChanged, this, [this, side] { renderSide(side); });
    }
    grid->setRowStretch(1, 1);
    controls->addWidget(new QLabel(tr("Seed:")));
    controls->addWidget(seed_);
    controls->addWidget(status_, 1);
    layout->addLayout(controls);
    layout->addLayout(grid, 1);
    connect(seed_, &QSpinBox::valueChanged, this, [this] { render(); });
    connect(client_, &RenderClient::finished, this, [this](qint64 id, const nlohmann::json& header, const QByteArray& payload) {
        for (int side = 0; side < 2; ++side) {
            if (id != pending_[side]) continue;
            pending_[side] = 0;
            if (JsonFields::flag(header, "ok")) {
                const QList<QImage> imgs = RenderClient::images(header, payload);
                images_[side] = imgs.isEmpty() ? QImage() : imgs.front();
                status_->clear();
            } else if (JsonFields::text(header, "error") != QLatin1String("superseded")) {
                images_[side] = QImage();
                const QString message = tr("%1: %2").arg(pickers_[side]->currentText(), JsonFields::text(header, "error"));
                views_[side]->setText(message);
                views_[side]->setWordWrap(true);
                status_->setText(message);
                emit failed(message);
            }
            showImages();
            if (pending_[0] == 0 && pending_[1] == 0 && !images_[0].isNull() && !images_[1].isNull()) emit rendered();
        }
    });
}

void SideBySidePanel::setCheckpoints(const QList<CheckpointChoice>& choices) {
    if (choices == choices_) return;
    const QString keep[2] = {leftCheckpoint(), rightCheckpoint()};
    // A followed run adds its checkpoints at the end: only those are added, and a side is rendered
    // again only when its checkpoint changed (issue 48: a run of thousands of checkpoints refilled
    // both pickers and rendered both sides again for each new one, on screen or not).
    const bool grows = choices.size() > choices_.size() && std::equal(choices_.cbegin(), choices_.cend(), choices.cbegin());
    const qsizetype from = grows ? choices_.size() : 0;
    choices_ = choices;
    fillPickers(from, grows, keep);
}

void SideBySidePanel::appendCheckpoints(const QList<CheckpointChoice>& more) {
    if (more.isEmpty()) return;
    const QString keep[2] = {leftCheckpoint(), rightCheckpoint()};
    const qsizetype from = choices_.size();
    choices_ += more;
    fillPickers(from, true, keep);
}

// Adds choices_[from..] to both pickers (cleared first unless `grows`) and selects `keep` again
// (appended items leave a picker's index as it was: no search); a side renders when its
// checkpoint changed.
void SideBySidePanel::fillPickers(qsizetype from, bool grows, const QString (&keep)[2]) {
    for (int side = 0; side < 2; ++side) {
        QSignalBlocker block(pickers_[side]);
        if (!grows) pickers_[side]->clear();
        for (qsizetype i = from; i < choices_.size(); ++i) pickers_[side]->addItem(choices_[i].label, choices_[i].path);
        int select = keep[side].isEmpty() ? -1 : grows ? pickers_[side]->currentIndex() : pickers_[side]->findData(keep[side]);
        // Defaults: the first checkpoint on the left, the latest on the right.
        if (select < 0 && !choices_.isEmpty()) select = side == 0 ? 0 : static_cast<int>(choices_.size()) - 1;
        pickers_[side]->setCurrentIndex(select);
        if (pickers_[side]->currentData().toString() != keep[side] || !grows) renderSide(side);
    }
}

void SideBySidePanel::setLeft(int index) { pickers_[0]->setCurrentIndex(index); }
void SideBySidePanel::setRight(int index) { pickers_[1]->setCurrentIndex(index); }
void SideBySidePanel::setSeed(int seed) { seed_->setValue(seed); }
int SideBySidePanel::seed() const { return seed_->value(); }
QString SideBySidePanel::leftCheckpoint() const { return pickers_[0]->currentData().toString(); }
QString SideBySidePanel::rightCheckpoint() const { return pickers_[1]->currentData().toString(); }

void SideBySidePanel::render() {
    renderSide(0);
    renderSide(1);
}

void SideBySidePanel::renderSide(int side) {
    const QString ck = pickers_[side]->currentData().toString();
    images_[side] = QImage();
    if (ck.isEmpty()) {
        pending_[side] = 0;
        views_[side]->setText(tr("no checkpoint"));
        return;
    }
    nlohmann::json seeds = nlohmann::json::array();
    for (int i = 0; i < kCount; ++i) seeds.push_back(static_cast<qint64>(seed_->value()) + i);
    const nlohmann::json req{{"op", "latents"}, {"checkpoint", ck}, {"seeds", seeds}, {"grid", {{"nrow", 4}, {"padding", 2}, {"normalize", true}}}};
    pending_[side] = client_->latest(side == 0 ? QStringLiteral("side-by-side-left") : QStringLiteral("side-by-side-right"), req);
}

void SideBySidePanel::showImages() {
    for (int side = 0; side < 2; ++side) {
        if (images_[side].isNull()) continue;
        const QSize avail = views_[side]->size().expandedTo(QSize(32, 32));
        // Nearest-neighbour upscaling keeps the model's pixels visible (it renders at 32–128 px).
        views_[side]->setPixmap(QPixmap::fromImage(images_[side]).scaled(avail, Qt::KeepAspectRatio, Qt::FastTransformation));
    }
}

void SideBySidePanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    showImages();
}

}  // namespace streetgan::ui
