// The latent explorer: walks through a generator's latent space between keyframes, rendered by the
// explore worker (docs/explore-worker.md; CPU, or CUDA when present; eval mode). The page holds the
// session as CLI.md's session JSON; the worker validates it and fills its defaults (core's
// LatentSession is the one validator) and renders its frames with `render`'s code.
//
//  - keyframes: from a seed, at random, or picked in a seed grid (SeedGridDialog); reorder,
//    delete, duplicate (KeyframeList);
//  - path: SLERP or linear, easing, frames per segment, loop; a scrubber over the whole walk;
//    playback at a target frame rate (the session's frame_delay_ms) with the measured rate shown;
//  - sliders (LatentSliders): truncation, top-k PCA directions (±3 σ), raw z dimensions of the
//    selected keyframe (a seed keyframe becomes its vector, from the worker's `seed-z`);
//  - output size and upscale, a grid preview of the whole walk;
//  - undo/redo: every edit is one SessionUndoCommand (slider drags merge into one step);
//  - New / Open / Save / Save As of session files, Export… (ExportDialog, its own worker).
// Interactive frames use RenderClient::latest("view"), so scrubbing never queues up; answers of
// an older session revision are dropped. Opening is asynchronous: sessionLoaded() or
// errorOccurred() follows. Nothing here blocks on the worker.
//
// Thread contract: GUI thread.
#pragma once

#include <QCache>
#include <QElapsedTimer>
#include <QHash>
#include <QImage>
#include <QJsonObject>
#include <QList>
#include <QWidget>
#include <functional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;
class QUndoStack;

namespace streetgan::ui {

class ExportDialog;
class KeyframeList;
class LatentSliders;
class RenderClient;
class SeedGridDialog;

class ExplorerPage : public QWidget {
    Q_OBJECT
public:
    /// Asked when a session was made for another checkpoint (hash mismatch): the warning line;
    /// true = continue with this checkpoint (the session then records this checkpoint's hash, so a
    /// save makes it this checkpoint's session); false keeps what was open. The default asks with
    /// a QMessageBox.
    using Confirm = std::function<bool(const QString& warning)>;

    explicit ExplorerPage(QWidget* parent = nullptr);
    ~ExplorerPage() override;

    // Opening (asynchronous; sessionLoaded() or errorOccurred() follows).
    /// A checkpoint with a new session (three seed keyframes, every default).
    void openCheckpoint(const QString& checkpoint);
    /// A session file (CLI.md); its checkpoint is resolved against the file's folder.
    void openSession(const QString& path);
    /// The embedded demo checkpoint and walk (DemoCheckpoint); `play`: start playback once it is
    /// open (the app's first start shows moving street scenes).
    void openDemo(bool play = false);
    /// A new session for the open checkpoint.
    void newSession();
    /// Writes the session atomically; false (and the error line) when it cannot.
    bool saveSession(const QString& path);

    // Edits (each one undo step; ignored while nothing is open).
    void addSeedKeyframe(qint64 seed);
    void addRandomKeyframe();
    void moveKeyframe(int row, int delta);
    void duplicateKeyframe(int row);
    void removeKeyframe(int row);
    void setInterpolation(const QString& name);  ///< "slerp" | "linear"
    void setEasing(const QString& name);         ///< Easing names of CLI.md
    /// Easing of the segment leaving keyframe `row` ("" = the path's easing).
    void setSegmentEasing(int row, const QString& name);
    void setFramesPerSegment(int frames);
    void setLoop(bool loop);
    void setSize(int pixels);
    void setUpscale(const QString& name);  ///< "nearest" | "smooth"
    void setTargetFps(double fps);         ///< sets frame_delay_ms
    void setTruncation(double psi);
    void setDirection(int index, double amount);
    void setComponents(int k);
    /// Dimension `dim` of the selected keyframe's z (a seed keyframe becomes its vector first).
    void setRawZ(int dim, double value);
    void addRawDimension(int dim);
    void removeRawDimension(int dim);

    // View.
    void setCurrentFrame(int index);
    void setPlaying(bool playing);
    void setGridPreview(bool on);
    SeedGridDialog* showSeedGrid();
    ExportDialog* showExportDialog();

    // State.
    bool isReady() const { return ready_; }
    /// Edits since the session was opened or saved (for a "save changes?" prompt).
    bool hasUnsavedChanges() const;
    const QJsonObject& session() const { return session_; }
    QString checkpoint() const { return checkpoint_; }
    QString checkpointSha256() const { return sha256_; }
    QString sessionPath() const { return sessionPath_; }
    int nz() const { return nz_; }
    /// Frames of the walk (CLI.md: loop K*F, else (K-1)*F+1).
    int frameCount() const;
    int currentFrame() const { return frame_; }
    int selectedKeyframe() const;
    void selectKeyframe(int row);
    QImage previewImage() const { return preview_; }
    bool isPlaying() const;
    double measuredFps() const { return measuredFps_; }
    QString errorLine() const;
    QUndoStack* undoStack() const { return undo_; }
    KeyframeList* keyframeList() const { return keyframes_; }
    LatentSliders* sliders() const { return sliders_; }
    QSlider* scrubber() const { return scrubber_; }
    void setConfirmHook(Confirm confirm) { confirm_ = std::move(confirm); }

signals:
    void sessionLoaded();
    void sessionChanged();
    /// A frame (or the grid preview, index -1) is on screen.
    void frameShown(int index);
    void statusMessage(const QString& message);
    void errorOccurred(const QString& message);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    using Reply = std::function<void(const QJsonObject& header, const QByteArray& payload)>;
    qint64 request(const QJsonObject& r, Reply reply);
    qint64 requestLatest(const QString& channel, const QJsonObject& r, Reply reply);
    void onFinished(qint64 id, const QJsonObject& header, const QByteArray& payload);

    void load(const QString& checkpoint, QJsonObject session, const QString& sessionPath);
    void install(const QJsonObject& session, const QString& checkpoint, const QJsonObject& info, const QString& sessionPath);
    /// One undoable edit: `change` edits a copy of the session. mergeKey >= 0 with `dragging`
    /// merges into the previous step of the same drag.
    void edit(const QString& text, const std::function<void(QJsonObject&)>& change, int mergeKey = -1, bool dragging = false);
    void applySession(const QJsonObject& session);
    void syncWidgets();
    void syncRawSliders();
    void requestFrame();
    void requestThumbnails();
    void showImage(const QImage& image, int index);
    void updatePixmap();
    void showError(const QString& message);
    /// Asks before the open session's unsaved edits are dropped (New, Open…); true = go on.
    bool discardChanges();
    void tick();
    void fetchSeedZ(qint64 seed);
    void applyRaw(int row, int dim, double value, bool dragging);
    QList<int> rawDims() const;
    int insertRow() const;

    RenderClient* view_;
    QUndoStack* undo_;
    Confirm confirm_;
    QHash<qint64, Reply> replies_;

    QJsonObject session_;
    QString checkpoint_, sha256_, sessionPath_;
    int nz_ = 0, modelSize_ = 0;
    bool ready_ = false;
    bool playWhenLoaded_ = false;
    quint64 loadSerial_ = 0;
    quint64 revision_ = 0;
    quint64 dragSerial_ = 0;
    int frame_ = 0;
    QImage preview_;
    QCache<int, QImage> cache_;
    QHash<qint64, QList<double>> seedZ_;
    QHash<qint64, qint64> seedZRequests_;  ///< seed -> request id in flight
    struct PendingRaw {
        int row = -1, dim = 0;
        qint64 seed = 0;
        double value = 0;
        bool dragging = false;
    } pendingRaw_;

    QTimer* playTimer_;
    QTimer* thumbTimer_;
    QElapsedTimer clock_;
    QList<qint64> shownAt_;  ///< ms of the frames shown while playing (last ~2 s)
    double measuredFps_ = 0;

    QLabel* checkpointLabel_;
    KeyframeList* keyframes_;
    QComboBox *interpolation_, *easing_, *upscale_;
    QSpinBox *framesPerSegment_, *size_;
    QCheckBox *loop_, *grid_;
    QLabel* image_;
    QSlider* scrubber_;
    QLabel* frameLabel_;
    QPushButton* play_;
    QDoubleSpinBox* targetFps_;
    QLabel* measured_;
    QLabel* error_;
    LatentSliders* sliders_;
    QList<QWidget*> needsSession_;
};

}  // namespace streetgan::ui
