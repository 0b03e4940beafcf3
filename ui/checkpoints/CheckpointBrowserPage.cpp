#include "checkpoints/CheckpointBrowserPage.h"

#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

#include "checkpoints/CheckpointTableModel.h"
#include "checkpoints/EvolutionPanel.h"
#include "checkpoints/ParzenRunner.h"
#include "checkpoints/SideBySidePanel.h"
#include "common/JsonFields.h"
#include "common/RenderClient.h"
#include "common/TrainerLocator.h"
#include "common/WorkerThreads.h"
#include "remote/RemoteCheckpointFetcher.h"
#include "runs/RunSession.h"

namespace streetgan::ui {

CheckpointBrowserPage::CheckpointBrowserPage(QWidget* parent, QString trainer, QString parzenCache) : QWidget(parent) {
    qRegisterMetaType<std::vector<streetgan::RemoteFileInfo>>();
    setAcceptDrops(true);
    render_ = new RenderClient(QStringLiteral("auto"), this);
    parzen_ = new ParzenRunner(trainer.isEmpty() ? TrainerLocator::trainer() : trainer, parzenCache, this);
    model_ = new CheckpointTableModel(this);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buildTools());
    table_ = new QTableView;
    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setIconSize(QSize(CheckpointTableModel::kThumbnailEdge, CheckpointTableModel::kThumbnailEdge));
    table_->verticalHeader()->setDefaultSectionSize(CheckpointTableModel::kThumbnailEdge + 6);
    table_->verticalHeader()->hide();
    // Columns grow to their new rows' contents (fitColumns), the name takes the room left and the
    // thumbnail's is fixed: ResizeToContents measured a thousand rows' cells at each change.
    table_->horizontalHeader()->setSectionResizeMode(CheckpointTableModel::Name, QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(CheckpointTableModel::Thumbnail, QHeaderView::Fixed);
    table_->setColumnWidth(CheckpointTableModel::Thumbnail,
                           std::max(CheckpointTableModel::kThumbnailEdge + 12, table_->horizontalHeader()->sectionSizeHint(CheckpointTableModel::Thumbnail)));
    for (int c = CheckpointTableModel::Epoch; c < CheckpointTableModel::ColumnCount; ++c)  // the titles' widths, grown by the rows
        table_->horizontalHeader()->resizeSection(c, table_->horizontalHeader()->sectionSizeHint(c));
    table_->setWordWrap(false);  // a long one-line error stays one line (the tooltip shows it whole)
    table_->setContextMenuPolicy(Qt::CustomContextMenu);
    table_->setAcceptDrops(false);  // drops land on the page

    tabs_ = new QTabWidget;
    evolution_ = new EvolutionPanel(render_);
    sideBySide_ = new SideBySidePanel(render_);
    tabs_->addTab(evolution_, tr("Evolution"));
    tabs_->addTab(sideBySide_, tr("Side by side"));

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(table_);
    split->addWidget(tabs_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    status_ = new QLabel(tr("No run selected. Drop a .pt checkpoint here to browse it."));
    status_->setWordWrap(true);
    layout->addWidget(status_);

    fullScanTimer_ = new QTimer(this);
    fullScanTimer_->setSingleShot(true);
    fullScanTimer_->setInterval(kFullScanMs);
    connect(fullScanTimer_, &QTimer::timeout, this, [this] {
        if (session_ && !session_->isRemote()) reloadLocal(true);
    });
    wireTable();
    wireParzen();
    wireRender();
}

// The row of buttons over the table, wired.
QHBoxLayout* CheckpointBrowserPage::buildTools() {
    auto* tools = new QHBoxLayout;
    parzenButton_ = new QPushButton(tr("Compute Parzen"));
    parzenButton_->setToolTip(
        tr("Parzen-window log-likelihood of the selected checkpoints (all when none is selected), "
           "on the data each was trained on; runs in the background"));
    cancelParzenButton_ = new QPushButton(tr("Cancel Parzen"));
    cancelParzenButton_->setEnabled(false);
    explorerButton_ = new QPushButton(tr("Open in explorer"));
    downloadAllButton_ = new QPushButton(tr("Download all"));
    downloadAllButton_->setObjectName("downloadAllButton");
    downloadAllButton_->setToolTip(tr("Download every checkpoint of the remote run that is not on this computer yet (cached)"));
    downloadAllButton_->setVisible(false);  // remote runs only
    auto* addButton = new QPushButton(tr("Add checkpoint…"));
    addButton->setToolTip(tr("Add a checkpoint file (a reference Python checkpoint too); .pt/.pth files can also be dropped here"));
    auto* refreshButton = new QPushButton(tr("Refresh"));
    tools->addWidget(parzenButton_);
    tools->addWidget(cancelParzenButton_);
    tools->addWidget(explorerButton_);
    tools->addWidget(downloadAllButton_);
    tools->addStretch(1);
    tools->addWidget(addButton);
    tools->addWidget(refreshButton);
    connect(parzenButton_, &QPushButton::clicked, this, [this] {
        QList<int> rows = selectedRows();
        if (rows.isEmpty())
            for (int r = 0; r < model_->rowCount(); ++r) rows << r;
        computeParzen(rows);
    });
    connect(cancelParzenButton_, &QPushButton::clicked, this, [this] { cancelParzen(); });
    connect(downloadAllButton_, &QPushButton::clicked, this, [this] { downloadAll(); });
    connect(explorerButton_, &QPushButton::clicked, this, [this] {
        const QList<int> rows = selectedRows();
        if (!rows.isEmpty())
            openRowInExplorer(rows.front());
        else
            setStatus(tr("Select a checkpoint to open in the explorer."));
    });
    connect(addButton, &QPushButton::clicked, this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(this, tr("Add checkpoints"), QString(), tr("PyTorch checkpoints (*.pt *.pth);;All files (*)"));
        for (const QString& f : files) addReferenceCheckpoint(f);
    });
    connect(refreshButton, &QPushButton::clicked, this, [this] { refresh(); });
    return tools;
}

// Double-click and the context menu of a row; thumbnails follow the scrolling.
void CheckpointBrowserPage::wireTable() {
    QScrollBar* bar = table_->verticalScrollBar();
    connect(bar, &QScrollBar::valueChanged, this, [this] { requestThumbnails(); });
    connect(bar, &QScrollBar::rangeChanged, this, [this] { requestThumbnails(); });
    // The columns fit the rows that come or change (their first and last 64 when many at once).
    const auto fitRange = [this](int first, int last) {
        fitColumns(first, std::min(last, first + 63));
        if (last - first >= 64) fitColumns(last - 63, last);
    };
    connect(model_, &QAbstractItemModel::rowsInserted, this, [fitRange](const QModelIndex&, int first, int last) { fitRange(first, last); });
    connect(model_, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& tl, const QModelIndex& br) {
        if (br.row() - tl.row() < 64) fitColumns(tl.row(), br.row());
    });
    connect(model_, &QAbstractItemModel::modelReset, this, [this, fitRange] { fitRange(0, model_->rowCount() - 1); });
    connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
        if (model_->row(i.row()).info.remote && model_->row(i.row()).localPath.isEmpty())
            download(i.row());
        else
            openRowInExplorer(i.row());
    });
    connect(table_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex i = table_->indexAt(pos);
        if (!i.isValid()) return;
        QMenu menu(this);
        const int row = i.row();
        menu.addAction(tr("Open in explorer"), this, [this, row] { openRowInExplorer(row); });
        menu.addAction(tr("Compute Parzen"), this, [this, row] { computeParzen({row}); });
        if (model_->row(row).info.remote && model_->row(row).localPath.isEmpty()) menu.addAction(tr("Download"), this, [this, row] { download(row); });
        menu.exec(table_->viewport()->mapToGlobal(pos));
    });
}

// Parzen results into the table.
void CheckpointBrowserPage::wireParzen() {
    using PS = CheckpointTableModel::ParzenState;
    auto keyOf = [this](const QString& localPath) {  // the runner sees local paths; the table keys by path
        for (const auto& r : model_->rows())
            if (r.localPath == localPath) return r.info.path;
        return localPath;
    };
    auto parzenBusy = [this] { cancelParzenButton_->setEnabled(parzen_->busy()); };
    connect(parzen_, &ParzenRunner::queued, this, [this, keyOf, parzenBusy](const QString& ck) {
        model_->setParzen(keyOf(ck), PS::Queued);
        parzenBusy();
    });
    connect(parzen_, &ParzenRunner::started, this, [this, keyOf](const QString& ck) {
        model_->setParzen(keyOf(ck), PS::Running);
        setStatus(tr("Computing the Parzen log-likelihood of %1…").arg(QFileInfo(ck).fileName()));
    });
    connect(parzen_, &ParzenRunner::finished, this, [this, keyOf, parzenBusy](const QString& ck, const ParzenRunner::Result& r) {
        model_->setParzen(keyOf(ck), PS::Done, r.logLikelihood, r.stdError);
        setStatus(tr("%1: Parzen log-likelihood %2 ± %3 nats").arg(QFileInfo(ck).fileName()).arg(r.logLikelihood, 0, 'f', 2).arg(r.stdError, 0, 'f', 2));
        parzenBusy();
    });
    connect(parzen_, &ParzenRunner::failed, this, [this, keyOf, parzenBusy](const QString& ck, const QString& m) {
        model_->setParzen(keyOf(ck), PS::Failed, CheckpointInfo::kNaN, CheckpointInfo::kNaN, m);
        setStatus(tr("Parzen of %1 failed: %2").arg(QFileInfo(ck).fileName(), m));
        parzenBusy();
    });
    connect(parzen_, &ParzenRunner::cancelled, this, [this, keyOf, parzenBusy](const QString& ck) {
        model_->setParzen(keyOf(ck), PS::None);
        parzenBusy();
    });
}

// Worker replies: thumbnails and reference checkpoints' metadata; the panels' messages.
void CheckpointBrowserPage::wireRender() {
    connect(render_, &RenderClient::finished, this, [this](qint64 id, const nlohmann::json& header, const QByteArray& payload) {
        if (const auto it = openJobs_.find(id); it != openJobs_.end()) {
            const QString path = it.value();
            openJobs_.erase(it);
            if (JsonFields::flag(header, "ok")) {
                // A number, or -1 (null for a reference checkpoint: it does not record them).
                const auto num = [&](const char* k) { return static_cast<qint64>(JsonFields::number(header, k, -1)); };
                model_->setEpochStep(path, num("epoch"), num("step"));
            }
            return;  // an error is reported once, by the thumbnail request
        }
        const auto it = thumbnailJobs_.find(id);
        if (it == thumbnailJobs_.end()) return;
        const QString path = it.value();
        thumbnailJobs_.erase(it);
        if (!JsonFields::flag(header, "ok")) {
            const QString error = JsonFields::text(header, "error");
            model_->setError(path, error);
            setStatus(tr("%1: %2").arg(QFileInfo(path).fileName(), error));
            updateChoices();
            return;
        }
        const QList<QImage> imgs = RenderClient::images(header, payload);
        if (imgs.isEmpty()) return;
        model_->setThumbnail(path, imgs.front());
        keepThumbnailBudget();
        emit thumbnailReady(path);
    });
    connect(render_, &RenderClient::workerFailed, this, [this](const QString& m) { setStatus(tr("The render worker failed: %1").arg(m)); });
    connect(evolution_, &EvolutionPanel::statusMessage, this, [this](const QString& m) { setStatus(m); });
    connect(evolution_, &EvolutionPanel::failed, this, [this](const QString& m) { setStatus(m); });
    connect(sideBySide_, &SideBySidePanel::failed, this, [this](const QString& m) { setStatus(m); });
}

CheckpointBrowserPage::~CheckpointBrowserPage() {
    // QWidget hides the table after this, which may change its scroll range: nothing of it must
    // reach this page's members, gone by then.
    table_->verticalScrollBar()->disconnect(this);
    model_->disconnect(this);
    if (fetcher_) fetcher_->cancel();
    if (remoteThread_) WorkerThreads::quitWithoutBlocking(remoteThread_);
}

QString CheckpointBrowserPage::statusText() const { return status_->text(); }

void CheckpointBrowserPage::setStatus(const QString& message) {
    status_->setText(message);
    emit statusMessage(message);
}

void CheckpointBrowserPage::setSession(RunSession* session, std::optional<SshOptions> ssh) {
    if (session_) disconnect(session_, nullptr, this, nullptr);
    session_ = session;
    ssh_ = std::move(ssh);
    ++catalogJob_;  // answers for the previous run are dropped
    listFailed_ = false;
    reading_ = rereadWanted_ = fullScanWanted_ = false;
    catalog_ = std::make_shared<CheckpointCatalog>();
    eventsOffset_ = 0;
    fullScanTimer_->stop();
    seenCheckpointEvents_ = 0;
    for (auto it = thumbnailJobs_.cbegin(); it != thumbnailJobs_.cend(); ++it) render_->cancel(it.key());
    thumbnailJobs_.clear();
    thumbnailRequested_.clear();
    downloads_.clear();
    parzenAfterDownload_.clear();
    explorerAfterDownload_.clear();
    if (fetcher_) {
        fetcher_->cancel();
        WorkerThreads::quitWithoutBlocking(remoteThread_);
        remoteThread_ = nullptr;
        fetcher_ = nullptr;
    }
    applyRows({});
    downloadAllButton_->setVisible(session && session->isRemote());
    if (!session) {
        setStatus(tr("No run selected. Drop a .pt checkpoint here to browse it."));
        return;
    }
    if (session->isRemote()) {
        if (!ssh_) {
            setStatus(
                tr("The checkpoints of %1 cannot be listed: no connection settings for its host. Reopen the run from the runs list.").arg(session->title()));
            return;
        }
        startFetcher(session);
    }
    // A live run: re-read when the attach stream reports a new checkpoint (a local run: what is
    // new, and the whole folder within kFullScanMs).
    connect(session, &RunSession::appended, this, [this] {
        if (!session_ || session_->series().checkpoints().size() == seenCheckpointEvents_) return;
        seenCheckpointEvents_ = session_->series().checkpoints().size();
        if (session_->isRemote()) {
            reloadRemote();
            return;
        }
        reloadLocal(false);
        if (!fullScanTimer_->isActive()) fullScanTimer_->start();
    });
    seenCheckpointEvents_ = session->series().checkpoints().size();
    setStatus(tr("Reading the checkpoints of %1…").arg(session->title()));
    refresh();
}

// A remote run's checkpoints: listed and fetched over SFTP by a RemoteCheckpointFetcher on its own thread.
void CheckpointBrowserPage::startFetcher(RunSession* session) {
    remoteThread_ = new QThread(this);
    fetcher_ = new RemoteCheckpointFetcher(*ssh_);
    fetcher_->moveToThread(remoteThread_);
    connect(remoteThread_, &QThread::finished, fetcher_, &QObject::deleteLater);
    connect(fetcher_, &RemoteCheckpointFetcher::listed, this, [this](quint64 job, const std::vector<RemoteFileInfo>& files) {
        if (job != remoteJob_ || !session_) return;
        listFailed_ = false;
        CheckpointCatalog c;
        c.setRemote(session_->runDir(), session_->series(), files);
        applyRows(c.rows());
        setStatus(files.empty()
                      ? tr("No checkpoint on %1 yet: the list fills as the run saves them.").arg(session_->hostLabel())
                      : tr("%n checkpoint(s) on %1; double-click one to download it.", nullptr, static_cast<int>(files.size())).arg(session_->hostLabel()));
        emit catalogLoaded(model_->rowCount());
    });
    connect(fetcher_, &RemoteCheckpointFetcher::progress, this, [this](quint64 job, qint64 done, qint64 total) {
        const QString path = downloads_.value(job);
        if (path.isEmpty()) return;
        const int pct = total > 0 ? static_cast<int>(100 * done / total) : 0;
        model_->setProgress(path, tr("%1 %").arg(pct));
    });
    connect(fetcher_, &RemoteCheckpointFetcher::fetched, this, [this](quint64 job, const QString& remote, const QString& local) {
        downloads_.remove(job);
        model_->setLocalPath(remote, local);
        setStatus(tr("Downloaded %1 to %2").arg(QFileInfo(remote).fileName(), local));
        requestThumbnail(remote, local);
        updateChoices();
        if (parzenAfterDownload_.remove(remote)) parzen_->enqueue(local);
        if (explorerAfterDownload_.remove(remote)) emit openInExplorer(local);
    });
    connect(fetcher_, &RemoteCheckpointFetcher::failed, this, [this](quint64 job, const QString& m) {
        const QString path = downloads_.take(job);
        if (!path.isEmpty()) {
            model_->setError(path, m);
            parzenAfterDownload_.remove(path);
            explorerAfterDownload_.remove(path);
        } else if (job == remoteJob_) {
            listFailed_ = true;
        }
        setStatus(m);
    });
    // A listing that failed with the connection is not left standing once the run follows
    // live again: it is listed anew, and its answer replaces the error.
    connect(session, &RunSession::connectionChanged, this, [this](const QString&, bool healthy) {
        if (healthy && listFailed_) refresh();
    });
    remoteThread_->start();
}

void CheckpointBrowserPage::refresh() {
    if (!session_) return;
    session_->isRemote() ? reloadRemote() : reloadLocal(true);
}

void CheckpointBrowserPage::reloadRemote() {
    if (!fetcher_ || !session_) return;
    const quint64 job = ++remoteJob_;
    const QString dir = session_->runDir();
    QMetaObject::invokeMethod(fetcher_, [f = fetcher_, job, dir] { f->list(job, dir); });
}

void CheckpointBrowserPage::reloadLocal(bool fullScan) {
    if (reading_) {
        rereadWanted_ = true;
        fullScanWanted_ = fullScanWanted_ || fullScan;
        return;
    }
    reading_ = true;
    const quint64 job = catalogJob_;
    const QString dir = session_->runDir();
    QPointer<CheckpointBrowserPage> self(this);
    // events.jsonl may hold millions of lines: read from where the last read stopped on a
    // short-lived thread, the only user of the catalog meanwhile; only what changed comes back,
    // through the application object (which outlives the page).
    QThread* t = QThread::create([catalog = catalog_, offset = eventsOffset_, dir, job, self, fullScan] {
        QString error;
        qint64 end = offset;
        CheckpointCatalog::Changes changes;
        try {
            end = catalog->readEvents(dir + "/events.jsonl", offset);
            fullScan || catalog->files() <= kFullScanFiles ? catalog->scanLocal(dir) : catalog->scanNew(dir);
            changes = catalog->takeChanges();
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(qApp, [self, changes = std::move(changes), end, job, fullScan, error] {
            if (self) self->onCatalog(job, changes, end, fullScan, error);
        });
    });
    connect(t, &QThread::finished, t, &QObject::deleteLater);
    t->start();
}

void CheckpointBrowserPage::onCatalog(quint64 job, const CheckpointCatalog::Changes& changes, qint64 offset, bool fullScan, const QString& error) {
    if (job != catalogJob_) return;
    reading_ = false;
    if (!error.isEmpty()) {
        setStatus(error);
        catalog_ = std::make_shared<CheckpointCatalog>();  // what it read before the error: read again
        eventsOffset_ = 0;
    } else {
        eventsOffset_ = offset;
        applyChanges(changes, fullScan);
        const int n = model_->runRows();
        setStatus(n == 0 ? tr("%1 has no checkpoints yet.").arg(session_ ? session_->title() : QString()) : tr("%n checkpoint(s)", nullptr, n));
        emit catalogLoaded(model_->rowCount());
    }
    if (rereadWanted_) {
        rereadWanted_ = false;
        reloadLocal(std::exchange(fullScanWanted_, false));
    }
}

void CheckpointBrowserPage::applyRows(const QList<CheckpointInfo>& rows) {
    model_->setRows(rows);
    applyCachedParzen(rows);
    requestThumbnails();
    updateChoices();
}

// A local run's changes: work in proportion to them, not to the rows (issue 48); a whole listing
// (Refresh, or at most every kFullScanMs) offers the checkpoints again in full.
void CheckpointBrowserPage::applyChanges(const CheckpointCatalog::Changes& changes, bool fullScan) {
    const int appendedFrom = model_->applyChanges(changes.rows, changes.removed);
    applyCachedParzen(changes.rows);
    requestThumbnails();
    if (appendedFrom >= 0 && !fullScan)
        appendChoices(appendedFrom);
    else
        updateChoices();
}

// Cached Parzen values for files that did not change.
void CheckpointBrowserPage::applyCachedParzen(const QList<CheckpointInfo>& rows) {
    for (const CheckpointInfo& info : rows) {
        const int i = model_->rowOf(info.path);
        if (i < 0) continue;
        const auto& r = model_->row(i);
        if (r.localPath.isEmpty() || r.parzen != CheckpointTableModel::ParzenState::None) continue;
        if (const auto c = parzen_->cached(r.localPath)) model_->setParzen(r.info.path, CheckpointTableModel::ParzenState::Done, c->logLikelihood, c->stdError);
    }
}

// Columns grow to fit rows [first, last] (new or changed ones), never shrink.
void CheckpointBrowserPage::fitColumns(int first, int last) {
    QHeaderView* header = table_->horizontalHeader();
    last = std::min(last, model_->rowCount() - 1);
    for (int c = 0; c < CheckpointTableModel::ColumnCount; ++c) {
        if (c == CheckpointTableModel::Name || c == CheckpointTableModel::Thumbnail) continue;  // stretched, fixed
        int w = std::max(header->sectionSize(c), header->sectionSizeHint(c));
        for (int r = std::max(0, first); r <= last; ++r) w = std::max(w, table_->sizeHintForIndex(model_->index(r, c)).width() + 1);  // + the grid line
        if (w != header->sectionSize(c)) header->resizeSection(c, w);
    }
}

void CheckpointBrowserPage::setThumbnailWindow(int margin, int kept) {
    thumbnailMargin_ = std::max(0, margin);
    thumbnailsKept_ = std::max(1, kept);
    requestThumbnails();
}

// The rows whose thumbnails are wanted: those the table shows (where it is scrolled to, also
// while the page is hidden), and the margin either side.
std::pair<int, int> CheckpointBrowserPage::thumbnailRows() const {
    const int n = model_->rowCount();
    const int top = std::max(0, table_->rowAt(0));
    const int bottom = table_->rowAt(table_->viewport()->height() - 1);
    return {std::max(0, top - thumbnailMargin_), std::min(n - 1, (bottom < 0 ? n - 1 : bottom) + thumbnailMargin_)};
}

void CheckpointBrowserPage::requestThumbnails() {
    const auto [first, last] = thumbnailRows();
    for (int r = first; r <= last; ++r) {
        const auto& row = model_->row(r);
        if (!row.localPath.isEmpty() && row.thumbnail.isNull() && row.error.isEmpty()) requestThumbnail(row.info.path, row.localPath);
    }
    // Renders queued for rows scrolled far away are cancelled (a fast scroll through thousands
    // of rows would otherwise keep the worker busy on rows no longer shown).
    for (auto it = thumbnailJobs_.begin(); it != thumbnailJobs_.end();) {
        const int r = model_->rowOf(it.value());
        if (r >= 0 && r >= first && r <= last) {
            ++it;
            continue;
        }
        render_->cancel(it.key());
        thumbnailRequested_.remove(it.value());
        it = thumbnailJobs_.erase(it);
    }
    keepThumbnailBudget();
}

// Past the budget, the thumbnails farthest from the screen are dropped (rendered again if scrolled to).
void CheckpointBrowserPage::keepThumbnailBudget() {
    const auto [first, last] = thumbnailRows();
    for (const QString& path : model_->dropThumbnails(first, last, thumbnailsKept_)) thumbnailRequested_.remove(path);
}

void CheckpointBrowserPage::requestThumbnail(const QString& path, const QString& localPath) {
    // A checkpoint rewritten in place (same epoch) gets a new request: the key holds its mtime.
    const QString key = localPath + '|' + QString::number(QFileInfo(localPath).lastModified().toMSecsSinceEpoch());
    if (thumbnailRequested_.value(path) == key) return;
    thumbnailRequested_.insert(path, key);
    // The fixed noise (64 rows) as the trainer's sample grids show it: make_grid, 8 a row.
    const nlohmann::json req{{"op", "latents"}, {"checkpoint", localPath}, {"fixed_noise", 0}, {"grid", {{"nrow", 8}, {"padding", 2}, {"normalize", true}}}};
    thumbnailJobs_.insert(render_->send(req), path);
}

CheckpointChoice CheckpointBrowserPage::choiceOf(const CheckpointInfo& info, const QString& localPath) const {
    return {info.reference ? info.name() : tr("epoch %1 · step %2").arg(info.epoch).arg(info.step), localPath};
}

void CheckpointBrowserPage::updateChoices() {
    QList<CheckpointChoice> run, all;
    for (const auto& r : model_->rows()) {
        if (r.localPath.isEmpty() || !r.error.isEmpty()) continue;
        const CheckpointChoice c = choiceOf(r.info, r.localPath);
        all << c;
        if (!r.info.reference) run << c;
    }
    // The evolution plays the run's own checkpoints in order; references only when there is no run.
    evolution_->setCheckpoints(run.isEmpty() ? all : run);
    sideBySide_->setCheckpoints(all);
}

// Rows from `fromRow` on were appended to the run's: offered after the others, as updateChoices()
// would list them, without listing them all (reference rows, which follow the run's: in full).
void CheckpointBrowserPage::appendChoices(int fromRow) {
    const int run = model_->runRows();
    if (run < model_->rowCount()) {
        updateChoices();
        return;
    }
    QList<CheckpointChoice> more;
    for (int i = fromRow; i < run; ++i) {
        const auto& r = model_->row(i);
        if (!r.localPath.isEmpty() && r.error.isEmpty()) more << choiceOf(r.info, r.localPath);
    }
    evolution_->appendCheckpoints(more);
    sideBySide_->appendCheckpoints(more);
}

void CheckpointBrowserPage::addReferenceCheckpoint(const QString& path) {
    const QFileInfo fi(path);
    if (!fi.isFile()) {
        setStatus(tr("%1 is not a file: choose a .pt checkpoint.").arg(path));
        return;
    }
    CheckpointInfo info;
    info.path = fi.absoluteFilePath();
    info.size = fi.size();
    info.modified = fi.lastModified();
    info.reference = true;
    const bool known = model_->rowOf(info.path) >= 0;
    const int row = model_->addReference(info);
    if (!known) {
        openJobs_.insert(render_->open(info.path), info.path);
        requestThumbnail(info.path, info.path);
        if (const auto c = parzen_->cached(info.path)) model_->setParzen(info.path, CheckpointTableModel::ParzenState::Done, c->logLikelihood, c->stdError);
        updateChoices();
    }
    table_->selectRow(row);
    setStatus(tr("Added %1").arg(info.path));
}

QList<int> CheckpointBrowserPage::selectedRows() const {
    QList<int> rows;
    for (const QModelIndex& i : table_->selectionModel()->selectedRows()) rows << i.row();
    std::sort(rows.begin(), rows.end());
    return rows;
}

void CheckpointBrowserPage::computeParzen(const QList<int>& rows) {
    for (int r : rows) {
        if (r < 0 || r >= model_->rowCount()) continue;
        const auto& row = model_->row(r);
        if (row.localPath.isEmpty()) {
            parzenAfterDownload_.insert(row.info.path);
            download(r);
        } else {
            parzen_->enqueue(row.localPath);
        }
    }
}

void CheckpointBrowserPage::cancelParzen() {
    parzenAfterDownload_.clear();
    parzen_->cancelAll();
}

void CheckpointBrowserPage::openRowInExplorer(int row) {
    if (row < 0 || row >= model_->rowCount()) return;
    const auto& r = model_->row(row);
    if (!r.error.isEmpty()) {
        setStatus(tr("%1 cannot be opened: %2").arg(r.info.name(), r.error));
        return;
    }
    if (r.localPath.isEmpty()) {
        explorerAfterDownload_.insert(r.info.path);
        download(row);
        return;
    }
    emit openInExplorer(r.localPath);
}

void CheckpointBrowserPage::download(int row) {
    if (row < 0 || row >= model_->rowCount() || !fetcher_) return;
    const auto& r = model_->row(row);
    if (!r.info.remote || !r.localPath.isEmpty()) return;
    for (const QString& p : downloads_)
        if (p == r.info.path) return;  // already downloading
    const quint64 job = ++remoteJob_;
    downloads_.insert(job, r.info.path);
    model_->setProgress(r.info.path, tr("0 %"));
    setStatus(tr("Downloading %1…").arg(r.info.name()));
    const QString remote = r.info.path;
    QMetaObject::invokeMethod(fetcher_, [f = fetcher_, job, remote] { f->fetch(job, remote); });
}

void CheckpointBrowserPage::downloadAll() {
    for (int r = 0; r < model_->rowCount(); ++r) download(r);  // local and already local rows: no-ops
}

QStringList CheckpointBrowserPage::checkpointFiles(const QMimeData* mime) {
    QStringList out;
    if (!mime || !mime->hasUrls()) return out;
    for (const QUrl& u : mime->urls()) {
        if (!u.isLocalFile()) continue;
        const QString f = u.toLocalFile();
        if (f.endsWith(".pt", Qt::CaseInsensitive) || f.endsWith(".pth", Qt::CaseInsensitive)) out << f;
    }
    return out;
}

void CheckpointBrowserPage::dragEnterEvent(QDragEnterEvent* event) {
    if (!checkpointFiles(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void CheckpointBrowserPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    requestThumbnails();  // the table's rows on screen are known now
}

void CheckpointBrowserPage::dropEvent(QDropEvent* event) {
    const QStringList files = checkpointFiles(event->mimeData());
    if (files.isEmpty()) return;
    for (const QString& f : files) addReferenceCheckpoint(f);
    event->acceptProposedAction();
}

}  // namespace streetgan::ui
