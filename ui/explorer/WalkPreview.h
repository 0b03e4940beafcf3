// The explorer's centre panel, a view of the walk: the current frame (or, as a grid preview, every
// frame at once) with where it lies ("frame 3 / 16 · 1→2 · t 1.067": its segment and its t, past
// 0..1 when the t range extrapolates), the scrubber over the whole walk, playback at the session's
// frame rate with the achieved rate ("23.8 fps": frames actually shown over the last second; "—"
// while paused), and the output row (target rate, grid preview, size, upscale). Narrower than its
// controls in one row, the rows wrap (frame label under the scrubber, output settings under the
// rates), so the preview itself (kept square, at least 256 px) is the minimum. It also renders the
// keyframe thumbnails into the session's KeyframeModel (after a short pause in the edits, so a
// slider drag does not render them per move).
//
// Frames come from the explore worker through the page's RenderClient: latest("view") and
// latest("thumbs"), so scrubbing never queues up; answers of an older session revision are
// dropped; frames of the current revision are cached. Like KeyframeList, the output row only asks
// for edits (targetFpsEdited, sizeEdited, upscaleEdited); ExplorerPage makes them undoable and
// sessionChanged() brings the widgets back in line with the session.
//
// Thread contract: GUI thread; the RenderClient and the SessionModel must outlive it.
#pragma once

#include <QCache>
#include <QElapsedTimer>
#include <QImage>
#include <QList>
#include <QWidget>

class QBoxLayout;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;

namespace streetgan::ui {

class RenderClient;
class SessionModel;
class WorkerRequests;

class WalkPreview : public QWidget {
    Q_OBJECT
public:
    WalkPreview(RenderClient* client, SessionModel* model, QWidget* parent = nullptr);
    ~WalkPreview() override;

    /// A newly opened session of `checkpoint` (absolute path): frame 0, no measured rate yet;
    /// the controls are enabled from now on.
    void start(const QString& checkpoint);
    /// The session changed: a new revision; the widgets, the scrubber and the frame follow it.
    void sessionChanged();

    void setCurrentFrame(int index);
    void setPlaying(bool playing);
    void setGridPreview(bool on);
    int currentFrame() const { return frame_; }
    QImage previewImage() const { return preview_; }
    bool isPlaying() const;
    /// The rate of the last playback (kept after a pause; 0 before any).
    double measuredFps() const { return measuredFps_; }
    /// Frames shown per second while playing, over the last second (or three frame delays when
    /// longer); 0 while paused or before two frames were shown. The readout shows it.
    double achievedFps() const;
    /// The readout's text: "23.8 fps", or "—" while paused.
    QString fpsText() const;
    /// The narrowest this preview can be: its controls wrapped, the preview at its minimum.
    QSize minimumSizeHint() const override;
    QSlider* scrubber() const { return scrubber_; }
    /// The frame label's text for frame `index` ("frame 3 / 16 · 1→2 · t 1.067").
    QString frameText(int index) const;
    QLabel* frameLabel() const { return frameLabel_; }

signals:
    /// A frame (or the grid preview, index -1) is on screen.
    void frameShown(int index);
    /// The worker refused a frame (one line).
    void failed(const QString& message);
    void targetFpsEdited(double fps);
    void sizeEdited(int pixels);
    void upscaleEdited(const QString& name);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void buildRatesAndOutput();
    void syncWidgets();
    void requestFrame();
    void requestThumbnails();
    void showImage(const QImage& image, int index);
    void updatePixmap();
    void tick();
    void updateFpsReadout();
    /// One row of controls or two, by the width (resizeEvent).
    void arrangeRows();

    WorkerRequests* worker_;
    SessionModel* model_;
    QString checkpoint_;
    bool ready_ = false;
    quint64 revision_ = 0;
    int frame_ = 0;
    QImage preview_;
    QCache<int, QImage> cache_;

    QTimer* playTimer_;
    QTimer* thumbTimer_;
    QElapsedTimer clock_;
    QList<qint64> shownAt_;  ///< ms of the frames shown while playing (last few seconds)
    double measuredFps_ = 0;
    QTimer* fpsTimer_;  ///< refreshes the readout while playing (it falls when frames stall)

    QLabel* image_;
    QSlider* scrubber_;
    QLabel* frameLabel_;
    QPushButton* play_;
    QDoubleSpinBox* targetFps_;
    QLabel* measured_;
    QBoxLayout *scrubRow_, *outRow_;
    QWidget *playScrub_, *rates_, *output_;
    QCheckBox* grid_;
    QSpinBox* size_;
    QComboBox* upscale_;
};

}  // namespace streetgan::ui
