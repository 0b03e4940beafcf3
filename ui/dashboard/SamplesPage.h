// Every sample grid the run wrote (samples/step_N.png): a step slider, play as an animation,
// zoom (fit, 100–400 %), export. A TensorBoard run's timeline is its logged images, or the
// img_list grids of its newest checkpoint (the reference's fixed-noise grids, one per saved
// epoch; RunSession::checkpointGrids): a source box chooses when it has both, and a remote run's
// checkpoint is downloaded only when the user asks (it may be hundreds of MB). Images are loaded (or, for a remote run, downloaded through
// SftpClient) by the session's worker; stale answers (an older job id) are dropped. GUI thread.
#pragma once

#include <QCache>
#include <QImage>
#include <QPointer>
#include <QWidget>

#include <vector>

#include "events/EventBatch.h"

class QLabel;
class QSlider;
class QComboBox;
class QPushButton;
class QScrollArea;
class QTimer;

namespace streetgan::ui {

class RunSession;

class SamplesPage : public QWidget {
    Q_OBJECT
public:
    explicit SamplesPage(QWidget* parent = nullptr);
    void setSession(RunSession* session);
    /// Shows grid `index` of the run's samples.
    void showIndex(int index);
    int count() const;
    int currentIndex() const;
    /// Whether the timeline shown is the checkpoint's img_list grids (else the logged samples).
    bool showingCheckpointGrids() const;
    /// Chooses the timeline (what the source box does).
    void showCheckpointGrids(bool on);
    /// Whether the source box is offered (the run has logged images and checkpoint grids).
    bool offersSourceChoice() const;
    bool hasImage() const { return !current_.isNull(); }

signals:
    void imageShown(int index);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    void updatePixmap();
    void onImage(quint64 job, const QString& rel, const QImage& image);
    /// The timeline shown: the checkpoint's grids or the logged samples.
    size_t refCount() const;
    RunFileRef refAt(size_t index) const;
    void onGridsChanged();
    void restart();

    QPointer<RunSession> session_;
    QLabel* stepLabel_;
    QComboBox* source_;
    QWidget* offerBar_;
    QLabel* offerLabel_;
    QPushButton* fetchButton_;
    QSlider* slider_;
    QPushButton* play_;
    QComboBox* zoom_;
    QScrollArea* scroll_;
    QLabel* image_;
    QTimer* playTimer_;
    QImage current_;
    QString currentPath_;
    quint64 job_ = 0;
    int pendingIndex_ = -1;
    /// A grid was chosen while the page was hidden: loaded when it is shown (a run followed for
    /// days writes a grid every few seconds; issue 48: little CPU for what nobody sees).
    bool deferred_ = false;
    bool fetchAsked_ = false;  ///< the user asked for a remote checkpoint's grids: its failure is shown
    /// Grids recently shown, by cost in KiB: 32 MiB hold ~130 grids of a 64-px model, and 7 of a
    /// 128-px one (a count bound would let 64 grids of 4 MB each, 256 MB, pile up).
    QCache<QString, QImage> cache_{qsizetype{32} * 1024};
};

}  // namespace streetgan::ui
