// The latent explorer: walks through a generator's latent space between keyframes, rendered by the
// explore worker (docs/explore-worker.md; CPU, or CUDA when present; eval mode). The session is a
// SessionModel (base's LatentSession, its undo history and the KeyframeModel); this page is its
// view: layout, wiring, and the worker conversation. The worker validates a session when it is
// opened and fills its defaults (core's LatentSession is the one validator) and renders its frames
// with `render`'s code.
//
//  - keyframes: from a seed, at random, or picked in a seed grid (SeedGridDialog); reorder (also by
//    drag and drop), delete, duplicate (KeyframeList, a view on the KeyframeModel);
//  - path (PathPanel): SLERP or linear, easing, frames per segment, loop, the t range (per path,
//    and per segment in KeyframeList; beyond 0..1 the walk extrapolates), the reference project's
//    walk in one click; a scrubber over the whole walk, the frame's t shown (WalkPreview);
//    playback at a target frame rate (the session's frame_delay_ms) with the measured rate shown;
//  - sliders (LatentSliders): truncation, top-k PCA directions (±3 σ), raw z dimensions of the
//    selected keyframe (a seed keyframe becomes its vector, from the worker's `seed-z`);
//  - output size and upscale, a grid preview of the whole walk;
//  - undo/redo: every edit is one SessionUndoCommand (slider drags merge into one step);
//  - New / Open / Save / Save As of session files, Export… (ExportDialog, its own worker);
//  - Project photo… (Ctrl+Shift+P) or an image file dropped on the page: ProjectPhotoDialog runs
//    `invert` on the open checkpoint; its z becomes a keyframe at the end of the walk (one step).
// Interactive frames use RenderClient::latest("view"), so scrubbing never queues up; answers of
// an older session revision are dropped. Opening is asynchronous: sessionLoaded() or
// errorOccurred() follows. Nothing here blocks on the worker.
//
// Width: three columns (keyframes and path | preview | sliders) when they fit; narrower, the two
// side panels become tabs of one column beside the preview (ExplorerColumns), so the page works
// from its minimumSizeHint() (about 700 px: a 1280 px screen with both docks open) up to 4K.
//
// Thread contract: GUI thread.
#pragma once

#include <QHash>
#include <QImage>
#include <QList>
#include <QPointer>
#include <QWidget>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "explorer/SessionLoader.h"

class QDragEnterEvent;
class QDropEvent;
class QHBoxLayout;
class QLabel;
class QSlider;
class QUndoStack;

namespace streetgan::ui {

class ExplorerColumns;
class ExportDialog;
class KeyframeList;
class LatentSliders;
class PathPanel;
class LearnDirectionsDialog;
class ProjectPhotoDialog;
class RenderClient;
class SeedGridDialog;
class SessionModel;
class WalkPreview;
class WorkerRequests;

class ExplorerPage : public QWidget {
    Q_OBJECT
public:
    /// Asked when a session was made for another checkpoint (hash mismatch): the warning line;
    /// true = continue with this checkpoint (the session then records this checkpoint's hash, so a
    /// save makes it this checkpoint's session); false keeps what was open. The default asks with
    /// a QMessageBox.
    using Confirm = SessionLoader::Confirm;

    explicit ExplorerPage(QWidget* parent = nullptr);
    ~ExplorerPage() override;

    // Opening (asynchronous; sessionLoaded() or errorOccurred() follows).
    /// A checkpoint with a new session (three seed keyframes, every default).
    void openCheckpoint(const QString& checkpoint);
    /// A session file (docs/cli.md); its checkpoint is resolved against the file's folder.
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
    /// Appends a keyframe of the vector `z` (a projected photo's) to the end of the walk; false,
    /// with the error line, when it is not nz values.
    bool appendZKeyframe(const std::vector<double>& z);
    void setInterpolation(const QString& name);  ///< "slerp" | "linear"
    void setEasing(const QString& name);         ///< Easing names of docs/cli.md
    /// Easing of the segment leaving keyframe `row` ("" = the path's easing).
    void setSegmentEasing(int row, const QString& name);
    void setFramesPerSegment(int frames);
    /// The path's t range (WalkRule.h; outside 0..1 the walk extrapolates past its keyframes).
    void setTRange(double start, double end);
    /// The t range of the segment leaving keyframe `row`; clear: back to the path's.
    void setSegmentTRange(int row, double start, double end);
    void clearSegmentTRange(int row);
    /// The reference project's walk (LatentSession::makeReferenceWalk: t 0 to 8, 16 frames, no
    /// loop) as one undo step, with two random seeds or the given ones; shows its first frame.
    void buildReferenceWalk();
    void buildReferenceWalk(qint64 seedFrom, qint64 seedTo);
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
    /// Adds the directions of a `streetgan-trainer directions --out` file as named sliders (at 0);
    /// "" or the one line saying why not (not such a file, learnt for another z size).
    QString loadDirections(const QString& path);

    // View.
    void setCurrentFrame(int index);
    void setPlaying(bool playing);
    void setGridPreview(bool on);
    SeedGridDialog* showSeedGrid();
    ExportDialog* showExportDialog();
    /// The one Project-a-photo dialog (made on first use), projecting `photo` when given.
    ProjectPhotoDialog* showProjectPhoto(const QString& photo = {});
    /// The one Learn-directions dialog (made on first use); what it learns is added by loadDirections.
    LearnDirectionsDialog* showLearnDirections();

    // State.
    bool isReady() const { return ready_; }
    /// Edits since the session was opened or saved (for a "save changes?" prompt).
    bool hasUnsavedChanges() const;
    /// The session as its file holds it (every key; LatentSession::toJson).
    const nlohmann::json& session() const;
    SessionModel* sessionModel() const { return model_; }
    QString checkpoint() const { return checkpoint_; }
    QString checkpointSha256() const { return sha256_; }
    QString sessionPath() const { return sessionPath_; }
    int nz() const { return nz_; }
    /// Frames of the walk (base's LatentSession::frameCount: loop K*F, else (K-1)*F+1).
    int frameCount() const;
    int currentFrame() const;
    int selectedKeyframe() const;
    void selectKeyframe(int row);
    QImage previewImage() const;
    bool isPlaying() const;
    double measuredFps() const;
    QString errorLine() const;
    QUndoStack* undoStack() const;
    KeyframeList* keyframeList() const { return keyframes_; }
    LatentSliders* sliders() const { return sliders_; }
    PathPanel* pathPanel() const { return path_; }
    QSlider* scrubber() const;
    WalkPreview* walkPreview() const { return preview_; }
    void setConfirmHook(Confirm confirm);
    /// True while the side panels are tabs of one column (the page is too narrow for three:
    /// ExplorerColumns).
    bool isCompact() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    /// An image file dropped on the page is projected (showProjectPhoto).
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

signals:
    void sessionLoaded();
    void sessionChanged();
    /// A frame (or the grid preview, index -1) is on screen.
    void frameShown(int index);
    void statusMessage(const QString& message);
    void errorOccurred(const QString& message);

private:
    QHBoxLayout* buildSessionBar();
    QWidget* buildKeyframesAndPath();
    QWidget* buildCentre();
    void wireEdits();
    void wireNamedDirections();
    void install(const SessionLoader::Opened& opened);
    /// The session changed (an edit, undo, redo or a newly opened one): widgets, frames.
    void onSessionChanged();
    void syncWidgets();
    void syncRawSliders();
    void showError(const QString& message);
    /// Asks before the open session's unsaved edits are dropped (New, Open…); true = go on.
    bool discardChanges();
    void fetchSeedZ(quint64 seed);
    void applyRaw(int row, int dim, double value, bool dragging);
    QList<int> rawDims() const;
    int insertRow() const;
    /// The checkpoint line, elided to its label's width (its tooltip has it whole).
    void elideCheckpointLine();

    RenderClient* view_;
    WorkerRequests* worker_;
    SessionModel* model_;
    SessionLoader* loader_;

    QString checkpoint_, sha256_, sessionPath_;
    int nz_ = 0, modelSize_ = 0;
    bool ready_ = false;
    QHash<quint64, std::vector<double>> seedZ_;
    QHash<quint64, qint64> seedZRequests_;  ///< seed -> request id in flight
    struct PendingRaw {
        int row = -1, dim = 0;
        quint64 seed = 0;
        double value = 0;
        bool dragging = false;
    } pendingRaw_;

    QLabel* checkpointLabel_;
    QString checkpointLine_;
    KeyframeList* keyframes_;
    PathPanel* path_;
    WalkPreview* preview_;
    QLabel* error_;
    LatentSliders* sliders_;
    ExplorerColumns* columns_;
    QList<QWidget*> needsSession_;
    QPointer<ProjectPhotoDialog> projectPhoto_;
    QPointer<LearnDirectionsDialog> learnDirections_;
};

}  // namespace streetgan::ui
