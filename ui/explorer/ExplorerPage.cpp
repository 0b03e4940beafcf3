#include "explorer/ExplorerPage.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QRandomGenerator>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QScrollBar>
#include <QSplitter>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>
#include <cmath>
#include <utility>

#include "explorer/DemoCheckpoint.h"
#include "explorer/ExportDialog.h"
#include "explorer/KeyframeList.h"
#include "explorer/LatentSliders.h"
#include "common/RenderClient.h"
#include "explorer/SeedGridDialog.h"
#include "explorer/SessionUndoCommand.h"
#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"

namespace streetgan::ui {
namespace {

// The app's own session key (CLI.md: "the app may write more"; LatentSession keeps unknown keys):
// the z dimensions that have a slider, so a saved session reopens with the same sliders.
const QString kRawDimsKey = QStringLiteral("explorer_raw_dims");
// Grid previews show every frame of the walk; they are a preview, so frames are capped at this
// edge (the output size still applies to single frames and exports).
constexpr int kGridPreviewEdge = 64;
// Merge keys of SessionUndoCommand: one per slider.
constexpr int kMergeTruncation = 1, kMergeDirection = 1000, kMergeRaw = 100000;

bool superseded(const QJsonObject& h) {
    return h.value("superseded").toBool() || h.value("error").toString().contains("superseded");
}

QString shortHash(const QString& sha) { return sha.left(12) + "…"; }

QScrollArea* scrolling(QWidget* w, int width) {
    auto* s = new QScrollArea;
    s->setWidget(w);
    s->setWidgetResizable(true);
    s->setFrameShape(QFrame::NoFrame);
    // No horizontal scrolling, so never narrower than the panel's own minimum (else its buttons
    // and labels are clipped when the window is small and both docks are open).
    s->setMinimumWidth(std::max(width, w->minimumSizeHint().width() + s->verticalScrollBar()->sizeHint().width()));
    s->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return s;
}

}  // namespace

ExplorerPage::ExplorerPage(QWidget* parent)
    : QWidget(parent), view_(new RenderClient("auto", this)), undo_(new QUndoStack(this)), cache_(256 * 1024) {
    setObjectName("explorerPage");
    confirm_ = [this](const QString& warning) {
        return QMessageBox::question(this, tr("Another checkpoint"), warning + "\n\n" + tr("Continue with this checkpoint?"),
                                     QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
    };
    auto* layout = new QVBoxLayout(this);

    // Session bar.
    auto* bar = new QHBoxLayout;
    auto button = [&](const QString& text, const char* name, const QString& tip) {
        auto* b = new QPushButton(text);
        b->setObjectName(name);
        b->setToolTip(tip);
        bar->addWidget(b);
        return b;
    };
    auto* newButton = button(tr("New"), "sessionNew", tr("A new session for the open checkpoint"));
    auto* openButton = button(tr("Open…"), "sessionOpen", tr("Open a session file (.json) or a checkpoint (.pt)"));
    auto* saveButton = button(tr("Save"), "sessionSave", tr("Save the session (CLI.md's session file)"));
    auto* saveAsButton = button(tr("Save as…"), "sessionSaveAs", tr("Save the session under another name"));
    auto* exportButton = button(tr("Export…"), "exportOpen", tr("GIF, PNG grid, PNG sequence or MP4"));
    bar->addSpacing(12);
    QAction* undoAction = undo_->createUndoAction(this, tr("Undo"));
    QAction* redoAction = undo_->createRedoAction(this, tr("Redo"));
    undoAction->setShortcut(QKeySequence::Undo);
    redoAction->setShortcut(QKeySequence::Redo);
    undoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    redoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(undoAction);
    addAction(redoAction);
    auto* undoButton = button(tr("Undo"), "undoButton", tr("Undo (Ctrl+Z)"));
    auto* redoButton = button(tr("Redo"), "redoButton", tr("Redo (Ctrl+Shift+Z)"));
    connect(undoButton, &QPushButton::clicked, undo_, &QUndoStack::undo);
    connect(redoButton, &QPushButton::clicked, undo_, &QUndoStack::redo);
    connect(undo_, &QUndoStack::canUndoChanged, undoButton, &QWidget::setEnabled);
    connect(undo_, &QUndoStack::canRedoChanged, redoButton, &QWidget::setEnabled);
    undoButton->setEnabled(false);
    redoButton->setEnabled(false);
    checkpointLabel_ = new QLabel(tr("no checkpoint open"));
    checkpointLabel_->setObjectName("explorerCheckpoint");
    checkpointLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addSpacing(12);
    bar->addWidget(checkpointLabel_, 1);
    layout->addLayout(bar);

    // Left: keyframes and path.
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 4, 0);
    auto* kfGroup = new QGroupBox(tr("Keyframes"));
    auto* kfLayout = new QVBoxLayout(kfGroup);
    keyframes_ = new KeyframeList;
    kfLayout->addWidget(keyframes_);
    leftLayout->addWidget(kfGroup, 1);
    auto* pathGroup = new QGroupBox(tr("Path"));
    auto* pathForm = new QFormLayout(pathGroup);
    interpolation_ = new QComboBox;
    interpolation_->setObjectName("interpolation");
    interpolation_->addItem(tr("SLERP"), "slerp");
    interpolation_->addItem(tr("linear"), "linear");
    pathForm->addRow(tr("Interpolation"), interpolation_);
    easing_ = new QComboBox;
    easing_->setObjectName("easing");
    for (const char* e : {"linear", "ease-in-out", "ease-in", "ease-out"}) easing_->addItem(e, e);
    pathForm->addRow(tr("Easing"), easing_);
    framesPerSegment_ = new QSpinBox;
    framesPerSegment_->setObjectName("framesPerSegment");
    framesPerSegment_->setRange(1, 1000);
    pathForm->addRow(tr("Frames per segment"), framesPerSegment_);
    loop_ = new QCheckBox(tr("Closed loop (back to the first keyframe)"));
    loop_->setObjectName("loop");
    pathForm->addRow(loop_);
    leftLayout->addWidget(pathGroup);

    // Centre: preview, scrubber, playback, output.
    auto* centre = new QWidget;
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(4, 0, 4, 0);
    image_ = new QLabel;
    image_->setObjectName("explorerPreview");
    image_->setAlignment(Qt::AlignCenter);
    image_->setMinimumSize(256, 256);
    image_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    image_->setStyleSheet("background: #202020; color: #c0c0c0");
    image_->setText(tr("Open a checkpoint or the demo to explore its latent space"));
    image_->setWordWrap(true);
    centreLayout->addWidget(image_, 1);
    auto* scrubRow = new QHBoxLayout;
    play_ = new QPushButton(tr("Play"));
    play_->setObjectName("playButton");
    play_->setCheckable(true);
    scrubber_ = new QSlider(Qt::Horizontal);
    scrubber_->setObjectName("scrubber");
    scrubber_->setRange(0, 0);
    frameLabel_ = new QLabel(tr("frame – / –"));
    frameLabel_->setObjectName("frameLabel");
    frameLabel_->setMinimumWidth(110);
    scrubRow->addWidget(play_);
    scrubRow->addWidget(scrubber_, 1);
    scrubRow->addWidget(frameLabel_);
    centreLayout->addLayout(scrubRow);
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
    centreLayout->addLayout(outRow);
    error_ = new QLabel;
    error_->setObjectName("explorerError");
    error_->setStyleSheet("color: #b00020");
    error_->setWordWrap(true);
    centreLayout->addWidget(error_);

    sliders_ = new LatentSliders;

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(scrolling(left, 250));
    split->addWidget(centre);
    split->addWidget(scrolling(sliders_, 280));
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setStretchFactor(2, 0);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);

    needsSession_ = {newButton, saveButton, saveAsButton, exportButton, left, sliders_, play_, scrubber_, targetFps_, grid_, size_, upscale_};
    for (QWidget* w : needsSession_) w->setEnabled(false);

    // Keyframe thumbnails follow edits after a pause, so a slider drag does not render them per move.
    thumbTimer_ = new QTimer(this);
    thumbTimer_->setSingleShot(true);
    thumbTimer_->setInterval(250);
    connect(thumbTimer_, &QTimer::timeout, this, &ExplorerPage::requestThumbnails);
    playTimer_ = new QTimer(this);
    playTimer_->setTimerType(Qt::PreciseTimer);
    clock_.start();

    connect(view_, &RenderClient::finished, this, &ExplorerPage::onFinished);
    connect(view_, &RenderClient::workerFailed, this, [this](const QString& m) { showError(tr("Render worker: %1").arg(m)); });

    connect(newButton, &QPushButton::clicked, this, [this] {
        if (discardChanges()) newSession();
    });
    connect(openButton, &QPushButton::clicked, this, [this] {
        if (!discardChanges()) return;
        const QString p = QFileDialog::getOpenFileName(this, tr("Open session or checkpoint"), QFileInfo(sessionPath_).absolutePath(),
                                                       tr("Sessions and checkpoints (*.json *.pt *.pth);;All files (*)"));
        if (p.isEmpty()) return;
        p.endsWith(".json", Qt::CaseInsensitive) ? openSession(p) : openCheckpoint(p);
    });
    auto saveAs = [this] {
        const QString start = sessionPath_.isEmpty() ? QDir::homePath() + "/walk.json" : sessionPath_;
        const QString p = QFileDialog::getSaveFileName(this, tr("Save session"), start, tr("Session (*.json)"));
        if (!p.isEmpty()) saveSession(p);
    };
    connect(saveAsButton, &QPushButton::clicked, this, saveAs);
    connect(saveButton, &QPushButton::clicked, this, [this, saveAs] { sessionPath_.isEmpty() ? saveAs() : void(saveSession(sessionPath_)); });
    connect(exportButton, &QPushButton::clicked, this, [this] { showExportDialog(); });

    connect(keyframes_, &KeyframeList::addSeedRequested, this, [this](qint64 s) { addSeedKeyframe(s); });
    connect(keyframes_, &KeyframeList::addRandomRequested, this, [this] { addRandomKeyframe(); });
    connect(keyframes_, &KeyframeList::addFromGridRequested, this, [this] { showSeedGrid(); });
    connect(keyframes_, &KeyframeList::moveRequested, this, [this](int r, int d) { moveKeyframe(r, d); });
    connect(keyframes_, &KeyframeList::duplicateRequested, this, [this](int r) { duplicateKeyframe(r); });
    connect(keyframes_, &KeyframeList::removeRequested, this, [this](int r) { removeKeyframe(r); });
    connect(keyframes_, &KeyframeList::segmentEasingRequested, this, [this](int r, const QString& e) { setSegmentEasing(r, e); });
    connect(keyframes_, &KeyframeList::selectionChanged, this, [this](int row) {
        if (row < 0) return;
        setCurrentFrame(row * session_.value("frames_per_segment").toInt(8));  // the keyframe's own frame
        syncRawSliders();
    });

    connect(interpolation_, &QComboBox::activated, this, [this] { setInterpolation(interpolation_->currentData().toString()); });
    connect(easing_, &QComboBox::activated, this, [this] { setEasing(easing_->currentData().toString()); });
    connect(framesPerSegment_, &QSpinBox::valueChanged, this, [this](int v) { setFramesPerSegment(v); });
    connect(loop_, &QCheckBox::toggled, this, [this](bool on) { setLoop(on); });
    connect(size_, &QSpinBox::valueChanged, this, [this](int v) { setSize(v); });
    connect(upscale_, &QComboBox::activated, this, [this] { setUpscale(upscale_->currentData().toString()); });
    connect(targetFps_, &QDoubleSpinBox::valueChanged, this, [this](double v) { setTargetFps(v); });
    connect(grid_, &QCheckBox::toggled, this, [this](bool on) { setGridPreview(on); });
    connect(scrubber_, &QSlider::valueChanged, this, [this](int v) { setCurrentFrame(v); });
    connect(play_, &QPushButton::toggled, this, [this](bool on) { setPlaying(on); });
    connect(playTimer_, &QTimer::timeout, this, &ExplorerPage::tick);

    connect(sliders_, &LatentSliders::dragStarted, this, [this] { ++dragSerial_; });
    connect(sliders_, &LatentSliders::truncationEdited, this, [this](double psi) { setTruncation(psi); });
    connect(sliders_, &LatentSliders::directionEdited, this, [this](int i, double a) { setDirection(i, a); });
    connect(sliders_, &LatentSliders::componentsEdited, this, [this](int k) { setComponents(k); });
    connect(sliders_, &LatentSliders::rawEdited, this, [this](int d, double v) { setRawZ(d, v); });
    connect(sliders_, &LatentSliders::rawDimensionAdded, this, [this](int d) { addRawDimension(d); });
    connect(sliders_, &LatentSliders::rawDimensionRemoved, this, [this](int d) { removeRawDimension(d); });
}

ExplorerPage::~ExplorerPage() { playTimer_->stop(); }

// ---------------------------------------------------------------------------------------------
// Worker requests

qint64 ExplorerPage::request(const QJsonObject& r, Reply reply) {
    const qint64 id = view_->send(r);
    replies_.insert(id, std::move(reply));
    return id;
}

qint64 ExplorerPage::requestLatest(const QString& channel, const QJsonObject& r, Reply reply) {
    const qint64 id = view_->latest(channel, r);
    replies_.insert(id, std::move(reply));
    return id;
}

void ExplorerPage::onFinished(qint64 id, const QJsonObject& header, const QByteArray& payload) {
    auto it = replies_.find(id);
    if (it == replies_.end()) return;  // a SeedGridDialog's request, or one already dropped
    const Reply reply = std::move(it.value());
    replies_.erase(it);
    if (superseded(header)) return;
    reply(header, payload);
}

// ---------------------------------------------------------------------------------------------
// Opening and saving

void ExplorerPage::openCheckpoint(const QString& checkpoint) {
    const QFileInfo info(checkpoint);
    if (!info.isFile()) {
        showError(tr("Checkpoint %1 does not exist; choose a .pt file").arg(checkpoint));
        return;
    }
    load(info.absoluteFilePath(), {}, {});
}

void ExplorerPage::newSession() {
    if (checkpoint_.isEmpty()) {
        showError(tr("No checkpoint is open; open a checkpoint or the demo first"));
        return;
    }
    load(checkpoint_, {}, {});
}

void ExplorerPage::openSession(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        showError(tr("Session %1 cannot be read (%2); choose another file").arg(path, f.errorString()));
        return;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &parseError);
    if (!doc.isObject()) {
        showError(tr("Session %1 is not a JSON object (%2); choose a session file of CLI.md's format")
                      .arg(path, parseError.error ? parseError.errorString() : tr("not an object")));
        return;
    }
    QJsonObject session = doc.object();
    QString ck = session.value("checkpoint").toString();
    if (ck.isEmpty()) {
        if (checkpoint_.isEmpty()) {
            showError(tr("Session %1 names no checkpoint; open a checkpoint first, then the session").arg(path));
            return;
        }
        ck = checkpoint_;  // like render --checkpoint: the open checkpoint renders a session that names none
    } else if (QFileInfo(ck).isRelative()) {
        ck = QFileInfo(path).absoluteDir().filePath(ck);  // CLI.md: relative to the session file's folder
    }
    ck = QDir::cleanPath(QFileInfo(ck).absoluteFilePath());
    if (!QFileInfo(ck).isFile()) {
        showError(tr("Session %1 names checkpoint %2, which does not exist; open that checkpoint, then the session").arg(path, ck));
        return;
    }
    // The page keeps the checkpoint as an absolute path, so a session saved elsewhere still finds it.
    session["checkpoint"] = ck;
    load(ck, session, QFileInfo(path).absoluteFilePath());
}

void ExplorerPage::openDemo(bool play) {
    try {
        const QString walk = DemoCheckpoint::install();
        playWhenLoaded_ = play;
        openSession(walk);
        playWhenLoaded_ = false;  // load() took it, or the session could not be read
    } catch (const Error& e) {
        showError(tr("Demo: %1").arg(QString::fromStdString(e.what())));
    }
}

void ExplorerPage::load(const QString& checkpoint, QJsonObject session, const QString& sessionPath) {
    const quint64 serial = ++loadSerial_;
    const bool play = std::exchange(playWhenLoaded_, false);
    emit statusMessage(tr("Opening %1…").arg(QFileInfo(checkpoint).fileName()));
    request({{"op", "open"}, {"checkpoint", checkpoint}}, [=](const QJsonObject& info, const QByteArray&) mutable {
        if (serial != loadSerial_) return;  // another open started meanwhile
        if (!info.value("ok").toBool()) {
            showError(info.value("error").toString());
            return;
        }
        const QString sha = info.value("sha256").toString();
        if (session.isEmpty()) {
            // A new session: three seed keyframes; the worker fills every other default.
            session = {{"checkpoint", checkpoint},
                       {"keyframes", QJsonArray{QJsonObject{{"seed", 0}}, QJsonObject{{"seed", 1}}, QJsonObject{{"seed", 2}}}}};
        } else {
            const QString expected = session.value("checkpoint_sha256").toString().toLower();
            if (!expected.isEmpty() && expected != sha) {
                const QString warning = tr("Session %1 was made with another checkpoint (sha256 %2), not %3 (sha256 %4): its frames will differ.")
                                            .arg(QFileInfo(sessionPath).fileName(), shortHash(expected), QFileInfo(checkpoint).fileName(),
                                                 shortHash(sha));
                if (!confirm_(warning)) {
                    emit statusMessage(tr("Kept the open session; %1 was not opened").arg(sessionPath));
                    return;
                }
            }
        }
        session["checkpoint_sha256"] = sha;
        request({{"op", "session"}, {"session", session}}, [=](const QJsonObject& h, const QByteArray&) {
            if (serial != loadSerial_) return;
            if (!h.value("ok").toBool()) {
                showError(sessionPath.isEmpty() ? h.value("error").toString()
                                                : tr("Session %1: %2").arg(sessionPath, h.value("error").toString()));
                return;
            }
            install(h.value("session").toObject(), checkpoint, info, sessionPath);
            if (play) setPlaying(true);
        });
    });
}

void ExplorerPage::install(const QJsonObject& session, const QString& checkpoint, const QJsonObject& info, const QString& sessionPath) {
    setPlaying(false);
    checkpoint_ = checkpoint;
    sha256_ = info.value("sha256").toString();
    nz_ = info.value("nz").toInt();
    modelSize_ = info.value("img_size").toInt();
    sessionPath_ = sessionPath;
    seedZ_.clear();
    pendingRaw_ = {};
    undo_->clear();
    ready_ = true;
    for (QWidget* w : needsSession_) w->setEnabled(true);
    checkpointLabel_->setText(tr("%1 · %2 · nz %3 · %4 px · %5 · sha256 %6")
                                  .arg(QFileInfo(checkpoint).fileName(), info.value("preset").toString())
                                  .arg(nz_)
                                  .arg(modelSize_)
                                  .arg(info.value("device").toString(), shortHash(sha256_)));
    checkpointLabel_->setToolTip(checkpoint);
    error_->clear();
    frame_ = 0;
    measuredFps_ = 0;
    measured_->setText(tr("measured –"));
    applySession(session);
    undo_->setClean();
    // Warm the PCA cache now, behind the first frame, so the first direction slider moves at once.
    request({{"op", "pca"},
             {"checkpoint", checkpoint_},
             {"components", session_.value("pca_components").toInt(10)},
             {"samples", session_.value("pca_samples").toInteger(2000)},
             {"seed", session_.value("pca_seed").toInteger(0)}},
            [this](const QJsonObject& h, const QByteArray&) {
                if (!h.value("ok").toBool()) showError(tr("PCA directions: %1").arg(h.value("error").toString()));
            });
    emit statusMessage(tr("Explorer: %1 (%2 frames)").arg(QFileInfo(sessionPath.isEmpty() ? checkpoint : sessionPath).fileName()).arg(frameCount()));
    emit sessionLoaded();
}

bool ExplorerPage::saveSession(const QString& path) {
    if (!ready_) return false;
    const QByteArray bytes = QJsonDocument(session_).toJson(QJsonDocument::Indented);
    try {
        AtomicFile::write(path.toStdString(), bytes.constData(), static_cast<size_t>(bytes.size()));
    } catch (const Error& e) {
        showError(QString::fromStdString(e.what()));
        return false;
    }
    sessionPath_ = QFileInfo(path).absoluteFilePath();
    undo_->setClean();
    emit statusMessage(tr("Saved session %1").arg(path));
    return true;
}

// ---------------------------------------------------------------------------------------------
// Edits

void ExplorerPage::edit(const QString& text, const std::function<void(QJsonObject&)>& change, int mergeKey, bool dragging) {
    if (!ready_) return;
    QJsonObject after = session_;
    change(after);
    if (after == session_) return;
    if (!dragging) ++dragSerial_;  // a click or a key press is a step of its own
    undo_->push(new SessionUndoCommand([this](const QJsonObject& s) { applySession(s); }, session_, after, text, mergeKey, dragSerial_));
}

int ExplorerPage::insertRow() const {
    const int row = keyframes_->selected();
    return row < 0 ? static_cast<int>(session_.value("keyframes").toArray().size()) : row + 1;
}

void ExplorerPage::addSeedKeyframe(qint64 seed) {
    const int at = insertRow();
    edit(tr("Add keyframe (seed %1)").arg(seed), [&](QJsonObject& s) {
        QJsonArray k = s.value("keyframes").toArray();
        k.insert(at, QJsonObject{{"seed", seed}});
        s["keyframes"] = k;
    });
    keyframes_->select(at);
}

void ExplorerPage::addRandomKeyframe() {
    addSeedKeyframe(QRandomGenerator::global()->bounded(std::numeric_limits<int>::max()));
}

void ExplorerPage::moveKeyframe(int row, int delta) {
    QJsonArray k = session_.value("keyframes").toArray();
    const int to = row + delta;
    if (row < 0 || row >= k.size() || to < 0 || to >= k.size()) return;
    edit(tr("Move keyframe"), [&](QJsonObject& s) {
        const QJsonValue v = k.takeAt(row);
        k.insert(to, v);
        s["keyframes"] = k;
    });
    keyframes_->select(to);
}

void ExplorerPage::duplicateKeyframe(int row) {
    QJsonArray k = session_.value("keyframes").toArray();
    if (row < 0 || row >= k.size()) return;
    edit(tr("Duplicate keyframe"), [&](QJsonObject& s) {
        k.insert(row + 1, k.at(row));
        s["keyframes"] = k;
    });
    keyframes_->select(row + 1);
}

void ExplorerPage::removeKeyframe(int row) {
    QJsonArray k = session_.value("keyframes").toArray();
    if (row < 0 || row >= k.size()) return;
    if (k.size() == 1) {
        showError(tr("A walk needs at least one keyframe; add another before deleting this one"));
        return;
    }
    edit(tr("Delete keyframe"), [&](QJsonObject& s) {
        k.removeAt(row);
        s["keyframes"] = k;
    });
}

void ExplorerPage::setInterpolation(const QString& name) {
    edit(tr("Interpolation %1").arg(name), [&](QJsonObject& s) { s["interpolation"] = name; });
}

void ExplorerPage::setEasing(const QString& name) {
    edit(tr("Easing %1").arg(name), [&](QJsonObject& s) { s["easing"] = name; });
}

void ExplorerPage::setSegmentEasing(int row, const QString& name) {
    if (row < 0 || row >= session_.value("keyframes").toArray().size()) return;
    edit(tr("Segment %1 easing").arg(row + 1), [&](QJsonObject& s) {
        QJsonArray k = s.value("keyframes").toArray();
        QJsonObject o = k.at(row).toObject();
        if (name.isEmpty()) o.remove("easing");
        else o["easing"] = name;
        k[row] = o;
        s["keyframes"] = k;
    });
}

void ExplorerPage::setFramesPerSegment(int frames) {
    edit(tr("Frames per segment %1").arg(frames), [&](QJsonObject& s) { s["frames_per_segment"] = frames; });
}

void ExplorerPage::setLoop(bool loop) {
    edit(loop ? tr("Closed loop") : tr("Open path"), [&](QJsonObject& s) { s["loop"] = loop; });
}

void ExplorerPage::setSize(int pixels) {
    edit(tr("Size %1 px").arg(pixels), [&](QJsonObject& s) { s["size"] = pixels; });
}

void ExplorerPage::setUpscale(const QString& name) {
    edit(tr("Upscale %1").arg(name), [&](QJsonObject& s) { s["upscale"] = name; });
}

void ExplorerPage::setTargetFps(double fps) {
    if (fps <= 0) return;
    const int delay = std::clamp(static_cast<int>(std::lround(1000.0 / fps)), 10, 60000);
    edit(tr("Frame rate %1 fps").arg(fps, 0, 'f', 1), [&](QJsonObject& s) { s["frame_delay_ms"] = delay; });
}

void ExplorerPage::setTruncation(double psi) {
    const QSlider* s = sliders_->truncationSlider();
    edit(tr("Truncation %1").arg(psi, 0, 'f', 2), [&](QJsonObject& o) { o["truncation"] = psi; }, kMergeTruncation, s->isSliderDown());
}

void ExplorerPage::setDirection(int index, double amount) {
    const QSlider* slider = sliders_->directionSlider(index);
    edit(tr("Direction %1: %2 σ").arg(index).arg(amount, 0, 'f', 2), [&](QJsonObject& s) {
        QJsonArray ds = s.value("directions").toArray();
        int at = -1;
        for (int i = 0; i < ds.size(); ++i)
            if (ds[i].toObject().value("index").toInt() == index) at = i;
        if (amount == 0) {
            if (at >= 0) ds.removeAt(at);  // an edit of 0 sigma is no edit: keep the list short
        } else if (at >= 0) {
            ds[at] = QJsonObject{{"index", index}, {"amount", amount}};
        } else {
            ds.append(QJsonObject{{"index", index}, {"amount", amount}});
        }
        s["directions"] = ds;
    }, kMergeDirection + index, slider && slider->isSliderDown());
}

void ExplorerPage::setComponents(int k) {
    edit(tr("Top-%1 directions").arg(k), [&](QJsonObject& s) {
        s["pca_components"] = k;
        QJsonArray kept;
        for (const QJsonValue& d : s.value("directions").toArray())
            if (d.toObject().value("index").toInt() < k) kept.append(d);  // the validator refuses indices >= k
        s["directions"] = kept;
    });
}

QList<int> ExplorerPage::rawDims() const {
    QList<int> dims;
    for (const QJsonValue& v : session_.value(kRawDimsKey).toArray())
        if (v.toInt(-1) >= 0 && v.toInt() < nz_) dims.append(v.toInt());
    return dims;
}

void ExplorerPage::addRawDimension(int dim) {
    if (dim < 0 || dim >= nz_ || rawDims().contains(dim)) return;
    edit(tr("Slider for z%1").arg(dim), [&](QJsonObject& s) {
        QJsonArray dims = s.value(kRawDimsKey).toArray();
        dims.append(dim);
        s[kRawDimsKey] = dims;
    });
}

void ExplorerPage::removeRawDimension(int dim) {
    edit(tr("Remove slider z%1").arg(dim), [&](QJsonObject& s) {
        QJsonArray dims;
        for (const QJsonValue& v : s.value(kRawDimsKey).toArray())
            if (v.toInt() != dim) dims.append(v);
        if (dims.isEmpty()) s.remove(kRawDimsKey);
        else s[kRawDimsKey] = dims;
    });
}

void ExplorerPage::setRawZ(int dim, double value) {
    const int row = keyframes_->selected();
    const QSlider* slider = sliders_->rawSlider(dim);
    applyRaw(row, dim, value, slider && slider->isSliderDown());
}

void ExplorerPage::applyRaw(int row, int dim, double value, bool dragging) {
    const QJsonArray ks = session_.value("keyframes").toArray();
    if (!ready_ || row < 0 || row >= ks.size() || dim < 0 || dim >= nz_) return;
    const QJsonObject k = ks.at(row).toObject();
    QJsonArray z;
    if (k.contains("z")) {
        z = k.value("z").toArray();
    } else {
        const qint64 seed = k.value("seed").toInteger();
        if (!seedZ_.contains(seed)) {
            // The vector of a seed comes from the worker (LatentSeed::draw): remember the newest
            // value and apply it when the vector arrives.
            pendingRaw_ = {row, dim, seed, value, dragging};
            fetchSeedZ(seed);
            return;
        }
        for (double v : seedZ_.value(seed)) z.append(v);
    }
    if (z.size() != nz_) {
        showError(tr("Keyframe %1 has %2 values but the generator takes nz=%3; delete it or open its checkpoint").arg(row + 1).arg(z.size()).arg(nz_));
        return;
    }
    edit(tr("z%1 of keyframe %2").arg(dim).arg(row + 1), [&](QJsonObject& s) {
        QJsonArray all = s.value("keyframes").toArray();
        QJsonObject changed = k;
        changed.remove("seed");
        z[dim] = value;
        changed["z"] = z;
        all[row] = changed;
        s["keyframes"] = all;
    }, kMergeRaw + dim, dragging);
}

void ExplorerPage::fetchSeedZ(qint64 seed) {
    if (seedZRequests_.contains(seed)) return;
    const int nz = nz_;
    const qint64 id = request({{"op", "seed-z"}, {"seeds", QJsonArray{seed}}, {"nz", nz}}, [this, seed, nz](const QJsonObject& h, const QByteArray&) {
        seedZRequests_.remove(seed);
        if (!h.value("ok").toBool()) {
            showError(tr("Keyframe seed %1: %2").arg(seed).arg(h.value("error").toString()));
            return;
        }
        if (nz != nz_) return;  // another checkpoint was opened meanwhile
        QList<double> z;
        for (const QJsonValue& v : h.value("z").toArray().at(0).toArray()) z.append(v.toDouble());
        seedZ_.insert(seed, z);
        const PendingRaw p = pendingRaw_;
        pendingRaw_ = {};
        if (p.row >= 0 && p.seed == seed) applyRaw(p.row, p.dim, p.value, p.dragging);
        syncRawSliders();
    });
    seedZRequests_.insert(seed, id);
}

// ---------------------------------------------------------------------------------------------
// Session -> widgets, frames

void ExplorerPage::applySession(const QJsonObject& session) {
    session_ = session;
    ++revision_;
    cache_.clear();
    syncWidgets();
    frame_ = std::clamp(frame_, 0, std::max(0, frameCount() - 1));
    requestFrame();
    thumbTimer_->start();
    emit sessionChanged();
}

// CLI.md's rule, the same as core's LatentSession::frameCount (the app does not link core's LibTorch
// code); the scrubber needs it synchronously, and test_ui_explorer checks it against the worker's.
int ExplorerPage::frameCount() const {
    const int k = static_cast<int>(session_.value("keyframes").toArray().size());
    const int f = session_.value("frames_per_segment").toInt(8);
    if (k == 0) return 0;
    return session_.value("loop").toBool(true) ? k * f : (k - 1) * f + 1;
}

bool ExplorerPage::hasUnsavedChanges() const { return ready_ && !undo_->isClean(); }

int ExplorerPage::selectedKeyframe() const { return keyframes_->selected(); }
void ExplorerPage::selectKeyframe(int row) { keyframes_->select(row); }
bool ExplorerPage::isPlaying() const { return playTimer_->isActive(); }
QString ExplorerPage::errorLine() const { return error_->text(); }

void ExplorerPage::syncWidgets() {
    const QSignalBlocker b1(interpolation_), b2(easing_), b3(framesPerSegment_), b4(loop_), b5(size_), b6(upscale_), b7(targetFps_),
        b8(scrubber_);
    keyframes_->setKeyframes(session_.value("keyframes").toArray(), keyframes_->selected());
    interpolation_->setCurrentIndex(std::max(0, interpolation_->findData(session_.value("interpolation").toString("slerp"))));
    easing_->setCurrentIndex(std::max(0, easing_->findData(session_.value("easing").toString("linear"))));
    framesPerSegment_->setValue(session_.value("frames_per_segment").toInt(8));
    loop_->setChecked(session_.value("loop").toBool(true));
    size_->setValue(session_.value("size").toInt(128));
    upscale_->setCurrentIndex(std::max(0, upscale_->findData(session_.value("upscale").toString("nearest"))));
    const int delay = session_.value("frame_delay_ms").toInt(80);
    // Only when the shown rate is another delay: typing 12.5 fps must not be rounded under the cursor.
    if (std::lround(1000.0 / targetFps_->value()) != delay) targetFps_->setValue(1000.0 / delay);
    playTimer_->setInterval(delay);
    scrubber_->setRange(0, std::max(0, frameCount() - 1));
    scrubber_->setValue(frame_);
    frameLabel_->setText(tr("frame %1 / %2").arg(std::min(frame_, frameCount() - 1) + 1).arg(frameCount()));
    syncRawSliders();
}

void ExplorerPage::syncRawSliders() {
    QHash<int, double> directions;
    for (const QJsonValue& d : session_.value("directions").toArray())
        directions.insert(d.toObject().value("index").toInt(), d.toObject().value("amount").toDouble());
    const QList<int> dims = rawDims();
    QList<double> values;
    const int row = keyframes_->selected();
    const QJsonArray ks = session_.value("keyframes").toArray();
    if (row >= 0 && row < ks.size() && !dims.isEmpty()) {
        const QJsonObject k = ks.at(row).toObject();
        QList<double> z;
        if (k.contains("z")) {
            for (const QJsonValue& v : k.value("z").toArray()) z.append(v.toDouble());
        } else if (seedZ_.contains(k.value("seed").toInteger())) {
            z = seedZ_.value(k.value("seed").toInteger());
        } else {
            fetchSeedZ(k.value("seed").toInteger());  // the sliders show its values once it arrives
        }
        if (z.size() == nz_)
            for (int d : dims) values.append(z.at(d));
    }
    sliders_->setState(session_.value("truncation").toDouble(1.0), session_.value("pca_components").toInt(10), nz_, directions, dims, values);
}

void ExplorerPage::setCurrentFrame(int index) {
    if (!ready_) return;
    const int n = frameCount();
    index = std::clamp(index, 0, std::max(0, n - 1));
    frame_ = index;
    if (scrubber_->value() != index) {
        const QSignalBlocker b(scrubber_);
        scrubber_->setValue(index);
    }
    frameLabel_->setText(tr("frame %1 / %2").arg(index + 1).arg(n));
    if (!grid_->isChecked()) requestFrame();
}

void ExplorerPage::setGridPreview(bool on) {
    if (grid_->isChecked() != on) {
        grid_->setChecked(on);  // comes back here through toggled
        return;
    }
    if (on) setPlaying(false);
    play_->setEnabled(ready_ && !on);
    requestFrame();
}

void ExplorerPage::requestFrame() {
    if (!ready_) return;
    const quint64 revision = revision_;
    if (grid_->isChecked()) {
        QJsonObject s = session_;
        s["size"] = std::min(session_.value("size").toInt(128), kGridPreviewEdge);
        requestLatest("view", {{"op", "frames"}, {"checkpoint", checkpoint_}, {"session", s}, {"from", 0}, {"count", frameCount()}, {"grid", true}},
                      [this, revision](const QJsonObject& h, const QByteArray& payload) {
                          if (revision != revision_ || !grid_->isChecked()) return;
                          if (!h.value("ok").toBool()) return showError(h.value("error").toString());
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
    requestLatest("view", {{"op", "frames"}, {"checkpoint", checkpoint_}, {"session", session_}, {"from", index}, {"count", 1}},
                  [this, revision, index](const QJsonObject& h, const QByteArray& payload) {
                      if (revision != revision_ || grid_->isChecked()) return;  // a newer session's request is on its way
                      if (!h.value("ok").toBool()) return showError(h.value("error").toString());
                      const QList<QImage> images = RenderClient::images(h, payload);
                      if (images.isEmpty()) return;
                      cache_.insert(index, new QImage(images.first()), std::max<qsizetype>(1, images.first().sizeInBytes() / 1024));
                      // Shown even when the scrubber has moved on: the newest answer beats a frozen view
                      // while the renderer is slower than the mouse or the playback rate.
                      showImage(images.first(), index);
                  });
}

void ExplorerPage::requestThumbnails() {
    if (!ready_) return;
    // The keyframes as the walk shows them (truncation and directions applied): the same session
    // with one frame per segment and a loop renders exactly frame s*F of the walk for keyframe s.
    QJsonObject s = session_;
    s["frames_per_segment"] = 1;
    s["loop"] = true;
    s["size"] = KeyframeList::kThumbPx;
    const quint64 revision = revision_;
    requestLatest("thumbs", {{"op", "frames"}, {"checkpoint", checkpoint_}, {"session", s}}, [this, revision](const QJsonObject& h, const QByteArray& payload) {
        if (revision != revision_ || !h.value("ok").toBool()) return;  // errors show up with the frame itself
        keyframes_->setThumbnails(RenderClient::images(h, payload));
    });
}

void ExplorerPage::showImage(const QImage& image, int index) {
    preview_ = image;
    error_->clear();
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

void ExplorerPage::updatePixmap() {
    if (preview_.isNull()) return;
    const QSize avail = image_->size().expandedTo(QSize(16, 16));
    // Nearest when enlarging: the output's own upscale mode is what the session chose; the view
    // only fits it into the widget.
    const bool enlarging = preview_.width() < avail.width() && preview_.height() < avail.height();
    image_->setPixmap(QPixmap::fromImage(preview_).scaled(avail, Qt::KeepAspectRatio, enlarging ? Qt::FastTransformation : Qt::SmoothTransformation));
}

void ExplorerPage::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    updatePixmap();
}

void ExplorerPage::setPlaying(bool playing) {
    if (playing && (!ready_ || grid_->isChecked())) playing = false;
    if (play_->isChecked() != playing) {
        const QSignalBlocker b(play_);
        play_->setChecked(playing);
    }
    play_->setText(playing ? tr("Pause") : tr("Play"));
    if (playing == playTimer_->isActive()) return;
    shownAt_.clear();
    if (playing) {
        playTimer_->start(session_.value("frame_delay_ms").toInt(80));
    } else {
        playTimer_->stop();
        measured_->setText(measuredFps_ > 0 ? tr("last %1 fps").arg(measuredFps_, 0, 'f', 1) : tr("measured –"));
    }
}

void ExplorerPage::tick() {
    const int n = frameCount();
    if (n <= 0) return;
    setCurrentFrame((frame_ + 1) % n);
}

bool ExplorerPage::discardChanges() {
    if (!hasUnsavedChanges()) return true;
    return QMessageBox::question(this, tr("Unsaved session"), tr("The session has unsaved changes. Discard them?"),
                                 QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Cancel) == QMessageBox::Discard;
}

void ExplorerPage::showError(const QString& message) {
    error_->setText(message);
    emit errorOccurred(message);
    emit statusMessage(message);
}

// ---------------------------------------------------------------------------------------------
// Dialogs

SeedGridDialog* ExplorerPage::showSeedGrid() {
    if (!ready_) return nullptr;
    auto* d = new SeedGridDialog(view_, checkpoint_, session_.value("truncation").toDouble(1.0), this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    connect(d, &SeedGridDialog::seedChosen, this, [this](qint64 seed) { addSeedKeyframe(seed); });
    d->open();
    return d;
}

ExportDialog* ExplorerPage::showExportDialog() {
    if (!ready_) return nullptr;
    auto* d = new ExportDialog(checkpoint_, session_, this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    const QString base = sessionPath_.isEmpty() ? QDir::homePath() + "/walk" : QFileInfo(sessionPath_).absolutePath() + "/" + QFileInfo(sessionPath_).completeBaseName();
    d->setOutputPath(base + ".gif");
    connect(d, &ExportDialog::optionsChosen, this, [this](const QJsonObject& chosen) {
        edit(tr("Export settings"), [&](QJsonObject& s) {
            for (const char* key : {"size", "frame_delay_ms", "gif_palette", "gif_dithering", "gif_loop_count", "gif_speed", "upscale", "nrow", "padding"})
                s[key] = chosen.value(key);
        });
    });
    connect(d, &ExportDialog::exportFinished, this, [this](bool ok, const QString& m) {
        emit statusMessage(ok ? m : tr("Export: %1").arg(m));
    });
    d->open();
    return d;
}

}  // namespace streetgan::ui
