#include "explorer/SeedGridDialog.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

#include <utility>

#include "common/JsonFields.h"
#include "common/RenderClient.h"

namespace streetgan::ui {

SeedGridDialog::SeedGridDialog(RenderClient* client, const QString& checkpoint, double truncation, QWidget* parent)
    : QDialog(parent), client_(client), checkpoint_(checkpoint), truncation_(truncation) {
    setWindowTitle(tr("Pick a keyframe"));
    setObjectName("seedGridDialog");
    auto* layout = new QVBoxLayout(this);
    auto* grid = new QGridLayout;
    grid->setSpacing(2);
    for (int i = 0; i < kCells; ++i) {
        auto* b = new QToolButton;
        b->setObjectName(QString("seedCell%1").arg(i));
        b->setIconSize(QSize(kCellPx, kCellPx));
        b->setFixedSize(kCellPx + 6, kCellPx + 6);
        b->setAutoRaise(true);
        grid->addWidget(b, i / kSide, i % kSide);
        cells_.append(b);
        connect(b, &QToolButton::clicked, this, [this, i] {
            if (!loaded_) return;
            emit seedChosen(seedAt(i));
            accept();
        });
    }
    layout->addLayout(grid);
    auto* row = new QHBoxLayout;
    status_ = new QLabel;
    status_->setObjectName("seedGridStatus");
    auto* another = new QPushButton(tr("Another page"));
    another->setObjectName("anotherPageButton");
    auto* cancel = new QPushButton(tr("Cancel"));
    row->addWidget(status_, 1);
    row->addWidget(another);
    row->addWidget(cancel);
    layout->addLayout(row);
    connect(another, &QPushButton::clicked, this, [this] { showPage(page_ + 1); });
    connect(cancel, &QPushButton::clicked, this, &QDialog::reject);

    connect(client_, &RenderClient::finished, this, [this](qint64 id, const nlohmann::json& header, const QByteArray& payload) {
        if (id != request_) return;
        request_ = -1;
        if (!JsonFields::flag(header, "ok")) {
            const QString message = tr("Seed grid: %1").arg(JsonFields::text(header, "error"));
            status_->setText(message);
            emit failed(message);
            return;
        }
        const QList<QImage> images = RenderClient::images(header, payload);
        for (int i = 0; i < cells_.size(); ++i) {
            cells_[i]->setIcon(i < images.size() ? QIcon(QPixmap::fromImage(images[i])) : QIcon());
            cells_[i]->setToolTip(tr("seed %1").arg(seedAt(i)));
        }
        loaded_ = true;
        status_->setText(tr("seeds %1–%2: click one to add it as a keyframe").arg(seedAt(0)).arg(seedAt(kCells - 1)));
        emit pageShown(page_);
    });
    showPage(0);
}

void SeedGridDialog::showPage(int page) {
    if (request_ >= 0) client_->cancel(std::exchange(request_, -1));
    page_ = std::max(0, page);
    loaded_ = false;
    nlohmann::json seeds = nlohmann::json::array();
    for (int i = 0; i < kCells; ++i) seeds.push_back(seedAt(i));
    status_->setText(tr("rendering seeds %1–%2…").arg(seedAt(0)).arg(seedAt(kCells - 1)));
    request_ = client_->send(
        {{"op", "latents"}, {"checkpoint", checkpoint_}, {"seeds", seeds}, {"size", kCellPx}, {"upscale", "nearest"}, {"truncation", truncation_}});
}

}  // namespace streetgan::ui
