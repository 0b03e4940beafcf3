// Two checkpoints side by side on the same latent vectors: two pickers and a seed; both sides
// ask the explore worker (RenderClient `latents`) for the same seeds (seed .. seed+15, one 4x4
// grid each), so any difference is the checkpoints'. Each side renders on its own RenderClient
// channel, so dragging the seed only renders the newest request. GUI thread.
#pragma once

#include <QImage>
#include <QList>
#include <QWidget>

#include "checkpoints/CheckpointCatalog.h"

class QComboBox;
class QLabel;
class QSpinBox;

namespace streetgan::ui {

class RenderClient;

class SideBySidePanel : public QWidget {
    Q_OBJECT
public:
    /// Latent vectors per side (a 4x4 grid).
    static constexpr int kCount = 16;

    /// `client` is shared with the page and must outlive the panel.
    explicit SideBySidePanel(RenderClient* client, QWidget* parent = nullptr);

    /// The checkpoints offered on both sides (local paths); keeps the selection where it can.
    void setCheckpoints(const QList<CheckpointChoice>& choices);
    /// More checkpoints after those offered (a followed run's new ones): added to both pickers,
    /// whose selections stay; nothing is compared or rendered again (a side with no checkpoint yet
    /// gets its default).
    void appendCheckpoints(const QList<CheckpointChoice>& more);
    void setLeft(int index);
    void setRight(int index);
    void setSeed(int seed);
    int seed() const;
    /// Renders both sides now (also done on every change of a picker or the seed).
    void render();

    QImage leftImage() const { return images_[0]; }
    QImage rightImage() const { return images_[1]; }
    QString leftCheckpoint() const;
    QString rightCheckpoint() const;

signals:
    /// Both sides show images for the current pickers and seed.
    void rendered();
    void failed(const QString& message);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void renderSide(int side);
    void fillPickers(qsizetype from, bool grows, const QString (&keep)[2]);
    void showImages();

    RenderClient* client_;
    QList<CheckpointChoice> choices_;
    QComboBox* pickers_[2];
    QLabel* views_[2];
    QSpinBox* seed_;
    QLabel* status_;
    QImage images_[2];
    qint64 pending_[2] = {0, 0};
};

}  // namespace streetgan::ui
