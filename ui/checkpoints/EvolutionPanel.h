// The same latent vectors through a run's checkpoints: one grid per checkpoint (the explore
// worker's `evolution` op: fixed noise or seeds, the same z for every checkpoint), played with
// play/pause and a slider, and exported as a GIF by the worker (its own RenderClient per export,
// so an export never stalls the page's interactive renders) with progress and cancel; the worker
// leaves nothing at the target on error or cancel. GUI thread.
#pragma once

#include <QImage>
#include <QList>
#include <QPointer>
#include <QWidget>

#include <nlohmann/json.hpp>

#include "checkpoints/CheckpointCatalog.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;

namespace streetgan::ui {

class RenderClient;

class EvolutionPanel : public QWidget {
    Q_OBJECT
public:
    /// `client` is shared with the page and must outlive the panel.
    explicit EvolutionPanel(RenderClient* client, QWidget* parent = nullptr);

    /// The checkpoints in order (local paths). Frames rendered for another list are dropped.
    void setCheckpoints(const QList<CheckpointChoice>& choices);
    /// More checkpoints after those offered (a followed run's new ones), as setCheckpoints() with
    /// the longer list, without comparing the lists.
    void appendCheckpoints(const QList<CheckpointChoice>& more);
    /// Latent source: the checkpoints' fixed noise (first `count` rows) or seeds seed..seed+count-1.
    void setSource(bool fixedNoise, int seed, int count);
    /// Renders one grid per checkpoint; answers with framesReady() or failed().
    void render();
    int frameCount() const { return static_cast<int>(frames_.size()); }
    QImage frame(int index) const { return frames_.value(index); }
    void showFrame(int index);
    int currentFrame() const;
    bool playing() const;
    /// Starts a GIF export to `path` (absolute .gif); answers with exportFinished().
    void exportGif(const QString& path);
    void cancelExport();
    bool exporting() const { return !exportClient_.isNull(); }

signals:
    void framesReady(int count);
    void failed(const QString& message);
    /// ok: the GIF is at `pathOrError`; else the error (or "cancelled").
    void exportFinished(bool ok, const QString& pathOrError);
    void statusMessage(const QString& message);

private:
    void wire();
    QHBoxLayout* buildPlayer();
    nlohmann::json request() const;
    void setBusy(bool rendering);
    void choicesChanged();

    RenderClient* client_;
    QList<CheckpointChoice> choices_;
    QList<QImage> frames_;
    QComboBox* source_;
    QSpinBox* seed_;
    QSpinBox* count_;
    QPushButton* renderButton_;
    QPushButton* play_;
    QSlider* slider_;
    QLabel* frameLabel_;
    QLabel* view_;
    QPushButton* exportButton_;
    QPushButton* cancelButton_;
    QProgressBar* progress_;
    QLabel* status_;
    QTimer* playTimer_;
    qint64 renderId_ = 0;
    QPointer<RenderClient> exportClient_;
    qint64 exportId_ = 0;
    QString exportPath_;
};

}  // namespace streetgan::ui
