#include "dashboard/SamplesPage.h"

#include <algorithm>

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

#include "events/EventBatch.h"
#include "runs/RunSession.h"

namespace streetgan::ui {

SamplesPage::SamplesPage(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    play_ = new QPushButton(tr("Play"));
    play_->setCheckable(true);
    play_->setToolTip(tr("Play the grids as an animation (Space)"));
    play_->setShortcut(Qt::Key_Space);
    slider_ = new QSlider(Qt::Horizontal);
    slider_->setRange(0, 0);
    stepLabel_ = new QLabel(tr("no sample grids yet"));
    stepLabel_->setMinimumWidth(160);
    zoom_ = new QComboBox;
    zoom_->addItems({tr("Fit"), "100 %", "200 %", "400 %"});
    auto* exportButton = new QPushButton(tr("Export…"));
    source_ = new QComboBox;
    source_->addItems({tr("Logged images"), tr("Checkpoint img_list")});
    source_->setToolTip(tr("The images the run logged, or the fixed-noise grids its newest checkpoint keeps (img_list)"));
    source_->setVisible(false);
    controls->addWidget(source_);
    controls->addWidget(play_);
    controls->addWidget(slider_, 1);
    controls->addWidget(stepLabel_);
    controls->addWidget(new QLabel(tr("Zoom:")));
    controls->addWidget(zoom_);
    controls->addWidget(exportButton);
    layout->addLayout(controls);
    offerBar_ = new QWidget;
    auto* offer = new QHBoxLayout(offerBar_);
    offer->setContentsMargins(0, 0, 0, 0);
    offerLabel_ = new QLabel;
    offerLabel_->setWordWrap(true);
    fetchButton_ = new QPushButton(tr("Fetch and show"));
    offer->addWidget(offerLabel_, 1);
    offer->addWidget(fetchButton_);
    offerBar_->setVisible(false);
    layout->addWidget(offerBar_);
    scroll_ = new QScrollArea;
    scroll_->setAlignment(Qt::AlignCenter);
    image_ = new QLabel;
    image_->setAlignment(Qt::AlignCenter);
    scroll_->setWidget(image_);
    scroll_->setWidgetResizable(true);
    layout->addWidget(scroll_, 1);
    playTimer_ = new QTimer(this);
    playTimer_->setInterval(250);

    connect(slider_, &QSlider::valueChanged, this, [this](int v) { showIndex(v); });
    connect(source_, &QComboBox::currentIndexChanged, this, [this] { restart(); });
    connect(fetchButton_, &QPushButton::clicked, this, [this] {
        if (!session_) return;
        fetchButton_->setEnabled(false);
        fetchAsked_ = true;
        offerLabel_->setText(tr("Fetching the checkpoint…"));
        session_->loadCheckpointGrids(true);
    });
    connect(zoom_, &QComboBox::currentIndexChanged, this, [this] {
        scroll_->setWidgetResizable(zoom_->currentIndex() == 0);
        updatePixmap();
    });
    connect(play_, &QPushButton::toggled, this, [this](bool on) {
        play_->setText(on ? tr("Pause") : tr("Play"));
        on ? playTimer_->start() : playTimer_->stop();
    });
    connect(playTimer_, &QTimer::timeout, this, [this] {
        if (count() == 0) return;
        slider_->setValue((slider_->value() + 1) % count());
    });
    connect(exportButton, &QPushButton::clicked, this, [this] {
        if (current_.isNull()) return;
        const QString path = QFileDialog::getSaveFileName(this, tr("Export sample grid"), QFileInfo(currentPath_).fileName(), tr("PNG (*.png)"));
        if (!path.isEmpty() && !current_.save(path))
            QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1. Choose a folder you can write to.").arg(path));
    });
}

void SamplesPage::setSession(RunSession* session) {
    if (session_) disconnect(session_, nullptr, this, nullptr);
    session_ = session;
    cache_.clear();
    current_ = QImage();
    image_->clear();
    slider_->setRange(0, 0);
    offerBar_->setVisible(false);
    fetchAsked_ = false;
    {
        const QSignalBlocker block(source_);
        source_->setCurrentIndex(0);
    }
    source_->setVisible(false);
    if (!session) {
        stepLabel_->setText(tr("no run"));
        return;
    }
    connect(session, &RunSession::appended, this, [this] { refresh(); });
    connect(session, &RunSession::imageReady, this, [this](quint64 job, const QString& rel, const QString&, const QImage& img) { onImage(job, rel, img); });
    connect(session, &RunSession::imageFailed, this, [this](quint64 job, const QString& m) {
        if (job == job_) stepLabel_->setText(m);
    });
    connect(session, &RunSession::checkpointGridsChanged, this, [this] { onGridsChanged(); });
    connect(session, &RunSession::checkpointGridsOffered, this, [this](const QString& checkpoint, qint64 size) {
        offerLabel_->setText(tr("The run's newest checkpoint, %1 (%2 MB), may hold its fixed-noise grids (img_list).")
                                 .arg(checkpoint)
                                 .arg(static_cast<double>(size) / 1e6, 0, 'f', 1));
        fetchButton_->setVisible(true);
        fetchButton_->setEnabled(true);
        offerBar_->setVisible(true);
    });
    connect(session, &RunSession::checkpointGridsFailed, this, [this](const QString& m) {
        offerLabel_->setText(tr("No checkpoint grids: %1").arg(m));
        fetchButton_->setVisible(false);
        offerBar_->setVisible(fetchAsked_ || (session_->series().samples().empty() && session_->checkpointGrids().empty()));
    });
    connect(session, &RunSession::downloadProgress, this, [this](qint64 done, qint64 total) {
        if (offerBar_->isVisible() && !fetchButton_->isEnabled() && total > 0)
            offerLabel_->setText(
                tr("Fetching the checkpoint… %1 of %2 MB").arg(static_cast<double>(done) / 1e6, 0, 'f', 1).arg(static_cast<double>(total) / 1e6, 0, 'f', 1));
    });
    if (!session->checkpointGrids().empty()) onGridsChanged();
    refresh();
}

void SamplesPage::onGridsChanged() {
    offerBar_->setVisible(false);
    const bool logged = !session_->series().samples().empty();
    source_->setVisible(logged);
    if (!logged && !showingCheckpointGrids())
        source_->setCurrentIndex(1);  // restarts through the signal
    else if (showingCheckpointGrids())
        restart();
}

bool SamplesPage::showingCheckpointGrids() const { return source_->currentIndex() == 1; }

void SamplesPage::showCheckpointGrids(bool on) { source_->setCurrentIndex(on ? 1 : 0); }

bool SamplesPage::offersSourceChoice() const { return source_->isVisibleTo(this); }

size_t SamplesPage::refCount() const { return showingCheckpointGrids() ? session_->checkpointGrids().size() : session_->series().samples().size(); }

RunFileRef SamplesPage::refAt(size_t index) const {
    return showingCheckpointGrids() ? session_->checkpointGrids()[index] : session_->series().samples()[index];
}

void SamplesPage::restart() {
    current_ = QImage();
    image_->clear();
    job_ = 0;
    {
        const QSignalBlocker block(slider_);
        slider_->setRange(0, std::max(0, count() - 1));
        slider_->setValue(slider_->maximum());
    }
    if (count() > 0)
        showIndex(count() - 1);
    else
        stepLabel_->setText(tr("no sample grids yet"));
}

int SamplesPage::count() const { return session_ ? static_cast<int>(refCount()) : 0; }
int SamplesPage::currentIndex() const { return slider_->value(); }

void SamplesPage::refresh() {
    source_->setVisible(!session_->checkpointGrids().empty() && !session_->series().samples().empty());
    const int n = count();
    if (n == 0 || n - 1 == slider_->maximum()) {
        if (n > 0 && current_.isNull() && job_ == 0) showIndex(n - 1);
        return;
    }
    const bool atEnd = slider_->value() == slider_->maximum();
    slider_->setRange(0, n - 1);
    if (atEnd && !play_->isChecked()) slider_->setValue(n - 1);
    if (current_.isNull() && job_ == 0) showIndex(slider_->value());
}

void SamplesPage::showIndex(int index) {
    if (!session_ || index < 0 || index >= count()) return;
    if (slider_->maximum() < count() - 1) slider_->setRange(0, count() - 1);
    if (slider_->value() != index) {
        slider_->setValue(index);  // comes back here through valueChanged
        return;
    }
    pendingIndex_ = index;
    const RunFileRef ref = refAt(static_cast<size_t>(index));
    if (showingCheckpointGrids())
        stepLabel_->setText(
            tr("img_list[%1] of %2  (%3 of %4)").arg(ref.step).arg(QFileInfo(session_->gridsCheckpoint()).fileName()).arg(index + 1).arg(count()));
    else
        stepLabel_->setText(tr("step %1  (%2 of %3)").arg(ref.step).arg(index + 1).arg(count()));
    const QString rel = QString::fromStdString(ref.path);
    deferred_ = !isVisible();
    if (deferred_) {  // the grid shown is not this one any more; a late answer is only cached
        current_ = QImage();
        job_ = 0;
        return;
    }
    if (QImage* cached = cache_.object(rel)) {
        current_ = *cached;
        currentPath_ = rel;
        updatePixmap();
        emit imageShown(index);
        return;
    }
    job_ = session_->requestImage(rel);
}

void SamplesPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (deferred_) showIndex(slider_->value());
}

void SamplesPage::onImage(quint64 job, const QString& rel, const QImage& image) {
    cache_.insert(rel, new QImage(image), std::max<qsizetype>(1, image.sizeInBytes() / 1024));
    if (job != job_) return;  // a newer request is pending: drop this one
    current_ = image;
    currentPath_ = rel;
    updatePixmap();
    emit imageShown(pendingIndex_);
}

void SamplesPage::updatePixmap() {
    if (current_.isNull()) return;
    const int z = zoom_->currentIndex();
    QPixmap pm = QPixmap::fromImage(current_);
    if (z == 0) {
        const QSize avail = scroll_->viewport()->size() - QSize(4, 4);
        pm = pm.scaled(avail.expandedTo(QSize(16, 16)), Qt::KeepAspectRatio,
                       z == 0 && avail.width() > pm.width() ? Qt::FastTransformation : Qt::SmoothTransformation);
    } else {
        const int factor = z == 1 ? 1 : z == 2 ? 2 : 4;
        pm = pm.scaled(pm.size() * factor, Qt::KeepAspectRatio, Qt::FastTransformation);
    }
    image_->setPixmap(pm);
    if (z != 0) image_->resize(pm.size());
}

}  // namespace streetgan::ui
