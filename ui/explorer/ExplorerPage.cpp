#include "explorer/ExplorerPage.h"

#include <QAction>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QRandomGenerator>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

#include "base/latent/NamedDirection.h"
#include "base/util/Errors.h"
#include "common/JsonFields.h"
#include "common/RenderClient.h"
#include "explorer/ExplorerColumns.h"
#include "explorer/ExportDialog.h"
#include "explorer/KeyframeList.h"
#include "explorer/KeyframeModel.h"
#include "explorer/LatentSliders.h"
#include "explorer/LearnDirectionsDialog.h"
#include "explorer/PathPanel.h"
#include "explorer/ProjectPhotoDialog.h"
#include "explorer/SeedGridDialog.h"
#include "explorer/SessionModel.h"
#include "explorer/WalkPreview.h"
#include "explorer/WorkerRequests.h"

namespace streetgan::ui {
namespace {

using nlohmann::json;
using F = JsonFields;

QString shortHash(const QString& sha) { return sha.left(12) + "…"; }

// The first local file of a drop that names an image the inverter reads (JPEG, PNG, WebP).
QString droppedImage(const QMimeData* mime) {
    if (!mime || !mime->hasUrls()) return {};
    for (const QUrl& url : mime->urls()) {
        const QString suffix = QFileInfo(url.toLocalFile()).suffix().toLower();
        if (url.isLocalFile() && QStringList{"jpg", "jpeg", "png", "webp"}.contains(suffix)) return url.toLocalFile();
    }
    return {};
}

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
    : QWidget(parent),
      view_(new RenderClient("auto", this)),
      worker_(new WorkerRequests(view_, this)),
      model_(new SessionModel(this)),
      loader_(new SessionLoader(view_, this)) {
    setObjectName("explorerPage");
    setAcceptDrops(true);  // an image file dropped anywhere on the page is projected
    loader_->setConfirm([this](const QString& warning) {
        return QMessageBox::question(this, tr("Another checkpoint"), warning + "\n\n" + tr("Continue with this checkpoint?"),
                                     QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
    });
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buildSessionBar());
    QWidget* left = buildKeyframesAndPath();
    QWidget* centre = buildCentre();
    sliders_ = new LatentSliders;

    // Three columns, or the side panels as tabs beside the preview when the page is narrow.
    columns_ = new ExplorerColumns(scrolling(left, 220), tr("Keyframes && path"), centre, scrolling(sliders_, 240), tr("Sliders"));
    layout->addWidget(columns_, 1);

    needsSession_ << left << sliders_;  // with the session bar's buttons, and WalkPreview's controls
    for (QWidget* w : needsSession_) w->setEnabled(false);

    connect(view_, &RenderClient::workerFailed, this, [this](const QString& m) { showError(tr("Render worker: %1").arg(m)); });
    connect(loader_, &SessionLoader::loaded, this, &ExplorerPage::install);
    connect(loader_, &SessionLoader::failed, this, &ExplorerPage::showError);
    connect(loader_, &SessionLoader::statusMessage, this, &ExplorerPage::statusMessage);
    connect(model_, &SessionModel::changed, this, &ExplorerPage::onSessionChanged);
    connect(preview_, &WalkPreview::frameShown, this, [this](int index) {
        error_->clear();
        emit frameShown(index);
    });
    connect(preview_, &WalkPreview::failed, this, &ExplorerPage::showError);
    connect(preview_, &WalkPreview::sizeEdited, this, &ExplorerPage::setSize);
    connect(preview_, &WalkPreview::upscaleEdited, this, &ExplorerPage::setUpscale);
    connect(preview_, &WalkPreview::targetFpsEdited, this, &ExplorerPage::setTargetFps);

    wireEdits();
}

// The session bar: new, open, save, export, undo/redo and the checkpoint line, wired.
QHBoxLayout* ExplorerPage::buildSessionBar() {
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
    auto* saveButton = button(tr("Save"), "sessionSave", tr("Save the session (docs/cli.md's session file)"));
    auto* saveAsButton = button(tr("Save as…"), "sessionSaveAs", tr("Save the session under another name"));
    auto* exportButton = button(tr("Export…"), "exportOpen", QString::fromStdString(ExportFormat::names()));
    auto* projectButton =
        button(tr("Project photo…"), "projectPhotoButton", tr("Find the z of a photo and add it as a keyframe (Ctrl+Shift+P; or drop an image here)"));
    bar->addSpacing(12);
    QUndoStack* undo = model_->undoStack();
    QAction* undoAction = undo->createUndoAction(this, tr("Undo"));
    QAction* redoAction = undo->createRedoAction(this, tr("Redo"));
    undoAction->setShortcut(QKeySequence::Undo);
    redoAction->setShortcut(QKeySequence::Redo);
    undoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    redoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(undoAction);
    addAction(redoAction);
    auto* undoButton = button(tr("Undo"), "undoButton", tr("Undo (Ctrl+Z)"));
    auto* redoButton = button(tr("Redo"), "redoButton", tr("Redo (Ctrl+Shift+Z)"));
    connect(undoButton, &QPushButton::clicked, undo, &QUndoStack::undo);
    connect(redoButton, &QPushButton::clicked, undo, &QUndoStack::redo);
    connect(undo, &QUndoStack::canUndoChanged, undoButton, &QWidget::setEnabled);
    connect(undo, &QUndoStack::canRedoChanged, redoButton, &QWidget::setEnabled);
    undoButton->setEnabled(false);
    redoButton->setEnabled(false);
    checkpointLabel_ = new QLabel(tr("no checkpoint open"));
    checkpointLabel_->setObjectName("explorerCheckpoint");
    checkpointLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Its long line ("file · preset · nz · px · device · sha256") must not set the page's minimum
    // width: it is clipped on narrow pages and shown whole in its tooltip.
    checkpointLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    checkpointLine_ = checkpointLabel_->text();
    checkpointLabel_->installEventFilter(this);  // elides the line to the label's width
    bar->addSpacing(12);
    bar->addWidget(checkpointLabel_, 1);
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
    connect(projectButton, &QPushButton::clicked, this, [this] { showProjectPhoto(); });
    auto* projectAction = new QAction(tr("Project a photo…"), this);
    projectAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    projectAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(projectAction, &QAction::triggered, this, [this] { showProjectPhoto(); });
    addAction(projectAction);

    needsSession_ = {newButton, saveButton, saveAsButton, exportButton, projectButton};
    return bar;
}

// Left: keyframes and path.
QWidget* ExplorerPage::buildKeyframesAndPath() {
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 4, 0);
    auto* kfGroup = new QGroupBox(tr("Keyframes"));
    auto* kfLayout = new QVBoxLayout(kfGroup);
    keyframes_ = new KeyframeList;
    keyframes_->setModel(model_->keyframes());
    kfLayout->addWidget(keyframes_);
    leftLayout->addWidget(kfGroup, 1);
    auto* pathGroup = new QGroupBox(tr("Path"));
    auto* pathLayout = new QVBoxLayout(pathGroup);
    path_ = new PathPanel;
    pathLayout->addWidget(path_);
    leftLayout->addWidget(pathGroup);

    return left;
}

// Centre: preview, scrubber, playback, output (WalkPreview), the error line.
QWidget* ExplorerPage::buildCentre() {
    auto* centre = new QWidget;
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(4, 0, 4, 0);
    preview_ = new WalkPreview(view_, model_);
    centreLayout->addWidget(preview_, 1);
    error_ = new QLabel;
    error_->setObjectName("explorerError");
    error_->setStyleSheet("color: #b00020");
    error_->setWordWrap(true);
    centreLayout->addWidget(error_);

    return centre;
}

// The keyframe list's, the path panel's and the sliders' edits: each one undoable edit.
void ExplorerPage::wireEdits() {
    connect(keyframes_, &KeyframeList::addSeedRequested, this, [this](qint64 s) { addSeedKeyframe(s); });
    connect(keyframes_, &KeyframeList::addRandomRequested, this, [this] { addRandomKeyframe(); });
    connect(keyframes_, &KeyframeList::addFromGridRequested, this, [this] { showSeedGrid(); });
    connect(keyframes_, &KeyframeList::moveRequested, this, [this](int r, int d) { moveKeyframe(r, d); });
    connect(keyframes_, &KeyframeList::duplicateRequested, this, [this](int r) { duplicateKeyframe(r); });
    connect(keyframes_, &KeyframeList::removeRequested, this, [this](int r) { removeKeyframe(r); });
    connect(keyframes_, &KeyframeList::segmentEasingRequested, this, [this](int r, const QString& e) { setSegmentEasing(r, e); });
    // Drag and drop: the model asks for the move; it is one undoable edit like the buttons' moves.
    connect(model_->keyframes(), &KeyframeModel::moveRequested, this, [this](int from, int to) { moveKeyframe(from, to - from); });
    connect(keyframes_, &KeyframeList::selectionChanged, this, [this](int row) {
        if (row < 0) return;
        setCurrentFrame(row * model_->session().framesPerSegment);  // the keyframe's own frame
        syncRawSliders();
    });

    connect(keyframes_, &KeyframeList::segmentTRangeRequested, this, [this](int r, double a, double b) { setSegmentTRange(r, a, b); });
    connect(keyframes_, &KeyframeList::segmentTRangeCleared, this, [this](int r) { clearSegmentTRange(r); });

    connect(path_, &PathPanel::interpolationEdited, this, &ExplorerPage::setInterpolation);
    connect(path_, &PathPanel::easingEdited, this, &ExplorerPage::setEasing);
    connect(path_, &PathPanel::framesPerSegmentEdited, this, &ExplorerPage::setFramesPerSegment);
    connect(path_, &PathPanel::loopEdited, this, &ExplorerPage::setLoop);
    connect(path_, &PathPanel::tRangeEdited, this, &ExplorerPage::setTRange);
    connect(path_, &PathPanel::referenceWalkRequested, this, [this] { buildReferenceWalk(); });

    connect(sliders_, &LatentSliders::dragStarted, model_, &SessionModel::startDrag);
    connect(sliders_, &LatentSliders::truncationEdited, this, [this](double psi) { setTruncation(psi); });
    connect(sliders_, &LatentSliders::directionEdited, this, [this](int i, double a) { setDirection(i, a); });
    connect(sliders_, &LatentSliders::componentsEdited, this, [this](int k) { setComponents(k); });
    connect(sliders_, &LatentSliders::rawEdited, this, [this](int d, double v) { setRawZ(d, v); });
    connect(sliders_, &LatentSliders::rawDimensionAdded, this, [this](int d) { addRawDimension(d); });
    connect(sliders_, &LatentSliders::rawDimensionRemoved, this, [this](int d) { removeRawDimension(d); });
    wireNamedDirections();
}

void ExplorerPage::wireNamedDirections() {
    connect(sliders_, &LatentSliders::namedEdited, this, [this](int i, double a) {
        const QSlider* slider = sliders_->namedSlider(i);
        if (ready_) model_->setNamedAmount(i, a, slider && slider->isSliderDown());
    });
    connect(sliders_, &LatentSliders::namedRenamed, this, [this](int i, const QString& name) {
        if (ready_) model_->renameNamedDirection(i, name);
    });
    connect(sliders_, &LatentSliders::namedRemoved, this, [this](int i) {
        if (ready_) model_->removeNamedDirection(i);
    });
    connect(sliders_, &LatentSliders::directionRenamed, this, [this](int i, const QString& name) {
        if (ready_) model_->renameDirection(i, name);
    });
    connect(sliders_, &LatentSliders::loadDirectionsRequested, this, [this] {
        if (!ready_) return;
        const QString path = QFileDialog::getOpenFileName(this, tr("Load directions"), {}, tr("Directions (*.json);;All files (*)"));
        if (path.isEmpty()) return;
        const QString error = loadDirections(path);
        if (!error.isEmpty()) showError(error);
    });
    connect(sliders_, &LatentSliders::learnDirectionsRequested, this, [this] { showLearnDirections(); });
}

QString ExplorerPage::loadDirections(const QString& path) {
    if (!ready_) return tr("Open a checkpoint first");
    std::vector<NamedDirection> read;
    try {
        read = NamedDirection::readFile(path.toStdString());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    if (read.empty()) return tr("%1 holds no direction: learn some with `streetgan-trainer directions` or Learn…").arg(path);
    std::vector<NamedDirectionEdit> edits;
    for (const NamedDirection& d : read) {
        // A direction lives in the z of the generator it was learnt on: another size is another model.
        if (static_cast<int>(d.z.size()) != nz_)
            return tr("%1: “%2” has %3 numbers, this checkpoint's z has %4: learn it on this checkpoint")
                .arg(path, QString::fromStdString(d.name))
                .arg(d.z.size())
                .arg(nz_);
        edits.push_back(NamedDirectionEdit{d.name, d.z, 0.0});
    }
    const int added = model_->addNamedDirections(edits);
    emit statusMessage(tr("%n direction(s) added from %1", nullptr, added).arg(QFileInfo(path).fileName()));
    return {};
}

ExplorerPage::~ExplorerPage() = default;

// ---------------------------------------------------------------------------------------------
// Layout: the columns, the checkpoint line

bool ExplorerPage::isCompact() const { return columns_->isCompact(); }

bool ExplorerPage::eventFilter(QObject* watched, QEvent* event) {
    if (watched == checkpointLabel_ && event->type() == QEvent::Resize) elideCheckpointLine();
    return QWidget::eventFilter(watched, event);
}

void ExplorerPage::elideCheckpointLine() {
    const QString shown = checkpointLabel_->fontMetrics().elidedText(checkpointLine_, Qt::ElideRight, checkpointLabel_->width());
    if (checkpointLabel_->text() != shown) checkpointLabel_->setText(shown);
}

// ---------------------------------------------------------------------------------------------
// Opening (SessionLoader) and saving

void ExplorerPage::openCheckpoint(const QString& checkpoint) { loader_->openCheckpoint(checkpoint); }
void ExplorerPage::openSession(const QString& path) { loader_->openSession(path, checkpoint_); }
void ExplorerPage::openDemo(bool play) { loader_->openDemo(checkpoint_, play); }
void ExplorerPage::setConfirmHook(Confirm confirm) { loader_->setConfirm(std::move(confirm)); }

void ExplorerPage::newSession() {
    if (checkpoint_.isEmpty()) {
        showError(tr("No checkpoint is open; open a checkpoint or the demo first"));
        return;
    }
    loader_->openCheckpoint(checkpoint_);
}

void ExplorerPage::install(const SessionLoader::Opened& opened) {
    const json& info = opened.info;
    checkpoint_ = opened.checkpoint;
    sha256_ = F::text(info, "sha256");
    nz_ = F::integer32(info, "nz");
    modelSize_ = F::integer32(info, "img_size");
    sessionPath_ = opened.sessionPath;
    seedZ_.clear();
    pendingRaw_ = {};
    ready_ = true;
    preview_->start(checkpoint_);
    for (QWidget* w : needsSession_) w->setEnabled(true);
    checkpointLine_ = tr("%1 · %2 · nz %3 · %4 px · %5 · sha256 %6")
                          .arg(QFileInfo(checkpoint_).fileName(), F::text(info, "preset"))
                          .arg(nz_)
                          .arg(modelSize_)
                          .arg(F::text(info, "device"), shortHash(sha256_));
    elideCheckpointLine();
    checkpointLabel_->setToolTip(checkpoint_ + "\n" + checkpointLine_);
    error_->clear();
    model_->reset(opened.session);
    if (projectPhoto_) projectPhoto_->setCheckpoint(checkpoint_);
    if (learnDirections_) learnDirections_->setCheckpoint(checkpoint_);
    emit statusMessage(tr("Explorer: %1 (%2 frames)").arg(QFileInfo(sessionPath_.isEmpty() ? checkpoint_ : sessionPath_).fileName()).arg(frameCount()));
    emit sessionLoaded();
    if (opened.play) setPlaying(true);
}

bool ExplorerPage::saveSession(const QString& path) {
    if (!ready_) return false;
    try {
        model_->save(path);
    } catch (const Error& e) {
        showError(QString::fromStdString(e.what()));
        return false;
    }
    sessionPath_ = QFileInfo(path).absoluteFilePath();
    emit statusMessage(tr("Saved session %1").arg(path));
    return true;
}

// ---------------------------------------------------------------------------------------------
// Edits: the session model makes each one undoable; the page adds the selection and the sliders'
// drag state, and ignores edits while nothing is open.

int ExplorerPage::insertRow() const {
    const int row = keyframes_->selected();
    return row < 0 ? keyframes_->count() : row + 1;
}

void ExplorerPage::addSeedKeyframe(qint64 seed) {
    if (!ready_) return;
    const int at = insertRow();
    model_->insertSeedKeyframe(at, seed);
    keyframes_->select(at);
}

void ExplorerPage::addRandomKeyframe() { addSeedKeyframe(QRandomGenerator::global()->bounded(std::numeric_limits<int>::max())); }

bool ExplorerPage::appendZKeyframe(const std::vector<double>& z) {
    if (!ready_) return false;
    if (static_cast<int>(z.size()) != nz_) {
        showError(tr("The projected z has %1 values but the open generator takes nz=%2; project the photo again").arg(z.size()).arg(nz_));
        return false;
    }
    const int at = keyframes_->count();
    model_->edit(tr("Add keyframe (projected photo)"), [&](LatentSession& s) { s.keyframes.push_back(SessionKeyframe{std::nullopt, z, std::nullopt}); });
    keyframes_->select(at);
    return true;
}

void ExplorerPage::moveKeyframe(int row, int delta) {
    if (ready_ && model_->moveKeyframe(row, row + delta)) keyframes_->select(row + delta);
}

void ExplorerPage::duplicateKeyframe(int row) {
    if (ready_ && model_->duplicateKeyframe(row)) keyframes_->select(row + 1);
}

void ExplorerPage::removeKeyframe(int row) {
    if (!ready_ || row < 0 || row >= keyframes_->count()) return;
    if (keyframes_->count() == 1) {
        showError(tr("A walk needs at least one keyframe; add another before deleting this one"));
        return;
    }
    model_->removeKeyframe(row);
}

void ExplorerPage::setInterpolation(const QString& name) {
    if (ready_ && !model_->setInterpolation(name)) showError(tr("Interpolation '%1' is unknown; use slerp or linear").arg(name));
}

void ExplorerPage::setEasing(const QString& name) {
    if (ready_ && !model_->setEasing(name)) showError(tr("Easing '%1' is unknown; use linear, ease-in-out, ease-in or ease-out").arg(name));
}

void ExplorerPage::setSegmentEasing(int row, const QString& name) {
    if (ready_ && row >= 0 && row < keyframes_->count() && !model_->setSegmentEasing(row, name))
        showError(tr("Easing '%1' is unknown; use linear, ease-in-out, ease-in or ease-out").arg(name));
}

void ExplorerPage::setFramesPerSegment(int frames) {
    if (ready_) model_->setFramesPerSegment(frames);
}

void ExplorerPage::setTRange(double start, double end) {
    if (ready_) model_->setTRange(start, end);
}

void ExplorerPage::setSegmentTRange(int row, double start, double end) {
    if (ready_) model_->setSegmentTRange(row, WalkRule::TRange{start, end});
}

void ExplorerPage::clearSegmentTRange(int row) {
    if (ready_) model_->setSegmentTRange(row, std::nullopt);
}

void ExplorerPage::buildReferenceWalk() {
    QRandomGenerator* random = QRandomGenerator::global();
    const qint64 a = random->bounded(std::numeric_limits<int>::max());
    qint64 b = a;
    while (b == a) b = random->bounded(std::numeric_limits<int>::max());  // one latent twice would be no walk
    buildReferenceWalk(a, b);
}

void ExplorerPage::buildReferenceWalk(qint64 seedFrom, qint64 seedTo) {
    if (!ready_ || !model_->makeReferenceWalk(seedFrom, seedTo)) return;
    keyframes_->select(0);
    setCurrentFrame(0);
}

void ExplorerPage::setLoop(bool loop) {
    if (ready_) model_->setLoop(loop);
}

void ExplorerPage::setSize(int pixels) {
    if (ready_) model_->setSize(pixels);
}

void ExplorerPage::setUpscale(const QString& name) {
    if (ready_ && !model_->setUpscale(name)) showError(tr("Upscale '%1' is unknown; use nearest or smooth").arg(name));
}

void ExplorerPage::setTargetFps(double fps) {
    if (ready_) model_->setTargetFps(fps);
}

void ExplorerPage::setTruncation(double psi) {
    if (ready_) model_->setTruncation(psi, sliders_->truncationSlider()->isSliderDown());
}

void ExplorerPage::setDirection(int index, double amount) {
    const QSlider* slider = sliders_->directionSlider(index);
    if (ready_) model_->setDirection(index, amount, slider && slider->isSliderDown());
}

void ExplorerPage::setComponents(int k) {
    if (ready_) model_->setComponents(k);
}

QList<int> ExplorerPage::rawDims() const { return model_->rawDims(nz_); }

void ExplorerPage::addRawDimension(int dim) {
    if (!ready_ || dim < 0 || dim >= nz_ || rawDims().contains(dim)) return;
    model_->addRawDimension(dim);
}

void ExplorerPage::removeRawDimension(int dim) {
    if (ready_) model_->removeRawDimension(dim);
}

void ExplorerPage::setRawZ(int dim, double value) {
    const int row = keyframes_->selected();
    const QSlider* slider = sliders_->rawSlider(dim);
    applyRaw(row, dim, value, slider && slider->isSliderDown());
}

void ExplorerPage::applyRaw(int row, int dim, double value, bool dragging) {
    const std::vector<SessionKeyframe>& ks = model_->session().keyframes;
    if (!ready_ || row < 0 || row >= static_cast<int>(ks.size()) || dim < 0 || dim >= nz_) return;
    const SessionKeyframe& k = ks[static_cast<size_t>(row)];
    std::vector<double> z = k.z;
    if (k.seed) {
        if (!seedZ_.contains(*k.seed)) {
            // The vector of a seed comes from the worker (LatentSeed::draw): remember the newest
            // value and apply it when the vector arrives.
            pendingRaw_ = {row, dim, *k.seed, value, dragging};
            fetchSeedZ(*k.seed);
            return;
        }
        z = seedZ_.value(*k.seed);
    }
    if (static_cast<int>(z.size()) != nz_) {
        showError(tr("Keyframe %1 has %2 values but the generator takes nz=%3; delete it or open its checkpoint").arg(row + 1).arg(z.size()).arg(nz_));
        return;
    }
    model_->setKeyframeZ(row, std::move(z), dim, value, dragging);
}

void ExplorerPage::fetchSeedZ(quint64 seed) {
    if (seedZRequests_.contains(seed)) return;
    const int nz = nz_;
    const qint64 id = worker_->send({{"op", "seed-z"}, {"seeds", json::array({seed})}, {"nz", nz}}, [this, seed, nz](const json& h, const QByteArray&) {
        seedZRequests_.remove(seed);
        if (!F::flag(h, "ok")) {
            showError(tr("Keyframe seed %1: %2").arg(seed).arg(F::text(h, "error")));
            return;
        }
        if (nz != nz_) return;  // another checkpoint was opened meanwhile
        std::vector<double> z;
        const json& all = F::at(h, "z");
        if (all.is_array() && !all.empty() && all[0].is_array())
            for (const json& v : all[0]) z.push_back(F::asDouble(v));
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

void ExplorerPage::onSessionChanged() {
    preview_->sessionChanged();
    syncWidgets();
    emit sessionChanged();
}

const json& ExplorerPage::session() const { return model_->json(); }
int ExplorerPage::frameCount() const { return model_->frameCount(); }
QUndoStack* ExplorerPage::undoStack() const { return model_->undoStack(); }
bool ExplorerPage::hasUnsavedChanges() const { return ready_ && model_->hasUnsavedChanges(); }

int ExplorerPage::selectedKeyframe() const { return keyframes_->selected(); }
void ExplorerPage::selectKeyframe(int row) { keyframes_->select(row); }
QString ExplorerPage::errorLine() const { return error_->text(); }

void ExplorerPage::setCurrentFrame(int index) { preview_->setCurrentFrame(index); }
void ExplorerPage::setPlaying(bool playing) { preview_->setPlaying(playing); }
void ExplorerPage::setGridPreview(bool on) { preview_->setGridPreview(on); }
int ExplorerPage::currentFrame() const { return preview_->currentFrame(); }
QImage ExplorerPage::previewImage() const { return preview_->previewImage(); }
bool ExplorerPage::isPlaying() const { return preview_->isPlaying(); }
double ExplorerPage::measuredFps() const { return preview_->measuredFps(); }
QSlider* ExplorerPage::scrubber() const { return preview_->scrubber(); }

void ExplorerPage::syncWidgets() {
    const LatentSession& s = model_->session();
    path_->setSession(s);
    keyframes_->setPathTRange(s.tRange.start, s.tRange.end);
    syncRawSliders();
}

void ExplorerPage::syncRawSliders() {
    const LatentSession& s = model_->session();
    QHash<int, double> directions;
    for (const DirectionEdit& d : s.directions) directions.insert(d.index, d.amount);
    const QList<int> dims = rawDims();
    QList<double> values;
    const int row = keyframes_->selected();
    if (row >= 0 && row < static_cast<int>(s.keyframes.size()) && !dims.isEmpty()) {
        const SessionKeyframe& k = s.keyframes[static_cast<size_t>(row)];
        std::vector<double> z = k.z;
        if (k.seed) {
            if (seedZ_.contains(*k.seed))
                z = seedZ_.value(*k.seed);
            else
                fetchSeedZ(*k.seed);  // the sliders show its values once it arrives
        }
        if (static_cast<int>(z.size()) == nz_)
            for (int d : dims) values.append(z[static_cast<size_t>(d)]);
    }
    sliders_->setState(s.truncation, s.pcaComponents, nz_, directions, dims, values);
    sliders_->setDirectionNames(model_->directionNames());
    QStringList names;
    QList<double> amounts;
    for (const NamedDirectionEdit& d : s.namedDirections) {
        names << QString::fromStdString(d.name);
        amounts << d.amount;
    }
    sliders_->setNamed(names, amounts);
}

bool ExplorerPage::discardChanges() {
    if (!hasUnsavedChanges()) return true;
    return QMessageBox::question(this, tr("Unsaved session"), tr("The session has unsaved changes. Discard them?"), QMessageBox::Discard | QMessageBox::Cancel,
                                 QMessageBox::Cancel) == QMessageBox::Discard;
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
    auto* d = new SeedGridDialog(view_, checkpoint_, model_->session().truncation, this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    connect(d, &SeedGridDialog::seedChosen, this, [this](qint64 seed) { addSeedKeyframe(seed); });
    d->open();
    return d;
}

ExportDialog* ExplorerPage::showExportDialog() {
    if (!ready_) return nullptr;
    auto* d = new ExportDialog(checkpoint_, model_->session(), this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    const QString base =
        sessionPath_.isEmpty() ? QDir::homePath() + "/walk" : QFileInfo(sessionPath_).absolutePath() + "/" + QFileInfo(sessionPath_).completeBaseName();
    d->setOutputPath(base + ".gif");
    connect(d, &ExportDialog::optionsChosen, this, [this](const LatentSession& chosen) {
        if (ready_) model_->setExportOptions(chosen);
    });
    connect(d, &ExportDialog::exportFinished, this, [this](bool ok, const QString& m) { emit statusMessage(ok ? m : tr("Export: %1").arg(m)); });
    d->open();
    return d;
}

ProjectPhotoDialog* ExplorerPage::showProjectPhoto(const QString& photo) {
    if (!ready_) return nullptr;
    if (!projectPhoto_) {
        projectPhoto_ = new ProjectPhotoDialog(checkpoint_, this);
        projectPhoto_->setAttribute(Qt::WA_DeleteOnClose);
        connect(projectPhoto_, &ProjectPhotoDialog::keyframeRequested, this, [this](const std::vector<double>& z) {
            if (appendZKeyframe(z)) emit statusMessage(tr("Added the projected photo as keyframe %1").arg(keyframes_->count()));
        });
    }
    projectPhoto_->setCheckpoint(checkpoint_);
    projectPhoto_->show();
    projectPhoto_->raise();
    if (!photo.isEmpty()) projectPhoto_->setPhoto(photo);
    return projectPhoto_;
}

LearnDirectionsDialog* ExplorerPage::showLearnDirections() {
    if (!ready_) return nullptr;
    if (!learnDirections_) {
        learnDirections_ = new LearnDirectionsDialog(checkpoint_, this);
        learnDirections_->setAttribute(Qt::WA_DeleteOnClose);
        connect(learnDirections_, &LearnDirectionsDialog::directionsLearnt, this, [this](const QString& file) {
            const QString error = loadDirections(file);
            if (!error.isEmpty()) showError(error);
        });
    }
    learnDirections_->setCheckpoint(checkpoint_);
    learnDirections_->show();
    learnDirections_->raise();
    return learnDirections_;
}

void ExplorerPage::dragEnterEvent(QDragEnterEvent* event) {
    if (ready_ && !droppedImage(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void ExplorerPage::dropEvent(QDropEvent* event) {
    const QString photo = droppedImage(event->mimeData());
    if (!ready_ || photo.isEmpty()) return;
    event->acceptProposedAction();
    showProjectPhoto(photo);
}

}  // namespace streetgan::ui
