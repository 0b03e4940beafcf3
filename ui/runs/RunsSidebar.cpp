#include "runs/RunsSidebar.h"

#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QHeaderView>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QPainter>
#include <QResizeEvent>
#include <QSettings>
#include <QThread>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "base/run/Events.h"
#include "remote/HostListModel.h"
#include "remote/RemoteHost.h"
#include "runs/LocalRunLister.h"
#include "runs/RunItemDelegate.h"
#include "runs/RunPalette.h"

namespace streetgan::ui {

namespace {
constexpr int kPathRole = Qt::UserRole;
constexpr int kKindRole = Qt::UserRole + 1;   // 0 local run, 1 remote run, 2 host, 3 local root
constexpr int kKeyRole = Qt::UserRole + 2;    // RunPalette::key of a run item
constexpr int kEntryRole = Qt::UserRole + 3;  // the RunEntry last listed (showLive redraws from it)
constexpr char kWidthKey[] = "runs/sidebarWidth";

QIcon swatch(const QColor& c) {
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    if (c.isValid()) {
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.setBrush(c);
        p.setPen(c.darker(130));
        p.drawRoundedRect(QRectF(1.5, 1.5, 11, 11), 3, 3);
    }
    return QIcon(pm);
}
}  // namespace

QIcon RunsSidebar::badge(const QString& state) {
    static QHash<QString, QIcon> cache;
    if (cache.contains(state)) return cache.value(state);
    const QColor c = RunItemDelegate::stateColour(state);
    QPixmap pm(12, 12);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setBrush(c);
    p.setPen(c.darker(130));
    p.drawEllipse(1, 1, 10, 10);
    p.end();
    QIcon icon(pm);
    cache.insert(state, icon);
    return icon;
}

QString RunsSidebar::shownState(const RunEntry& r, double now) {
    if (r.state == QLatin1String(RunState::kRunning) && r.updated > 0 && now - r.updated > kStalledAfterS) return QStringLiteral("stalled");
    return r.state;
}

RunsSidebar::RunsSidebar(QWidget* parent) : QWidget(parent), thread_(new QThread(this)), lister_(new LocalRunLister) {
    setMinimumWidth(kMinimumWidth);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    filter_ = new QLineEdit;
    filter_->setObjectName("runsFilter");
    filter_->setPlaceholderText(tr("Filter by name or host"));
    filter_->setClearButtonEnabled(true);
    filter_->setToolTip(tr("Shows the runs whose name or host contains this text (case-insensitive)"));
    layout->addWidget(filter_);
    tree_ = new QTreeWidget;
    tree_->setColumnCount(2);
    tree_->setHeaderLabels({tr("Run"), tr("State")});
    tree_->setHeaderHidden(true);
    tree_->setItemDelegate(new RunItemDelegate(tree_));
    tree_->setTextElideMode(Qt::ElideRight);
    tree_->setIndentation(14);
    tree_->header()->setStretchLastSection(false);
    tree_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    tree_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    tree_->setToolTip(tr("Check a run to plot it on the dashboard; double-click to open it"));
    layout->addWidget(tree_);
    localRoot_ = new QTreeWidgetItem(tree_, {tr("This computer")});
    localRoot_->setData(0, kKindRole, 3);
    localRoot_->setFirstColumnSpanned(true);
    localRoot_->setExpanded(true);
    connect(filter_, &QLineEdit::textChanged, this, [this] { applyFilter(); });
    connect(tree_, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
        if (filling_ || column != 0) return;
        const QString key = runKey(item);
        if (key.isEmpty()) return;
        const bool on = item->checkState(0) == Qt::Checked;
        if (plotted_.contains(key) == on) return;
        if (on)
            plotted_.insert(key);
        else
            plotted_.remove(key);
        showPlotted(item);
        emit plotToggled(key, on);
        emit plottedRunsChanged(plottedRuns());
    });
    lister_->moveToThread(thread_);
    connect(thread_, &QThread::finished, lister_, &QObject::deleteLater);
    connect(lister_, &LocalRunLister::failed, this, [this](quint64, const QString&) { listingDone(); });
    connect(lister_, &LocalRunLister::listed, this, [this](quint64 job, const RunEntryList& runs) {
        listingDone();
        if (job != job_) return;
        fill(localRoot_, runs);
        resolveRestored(localRoot_);
        emit localListed(static_cast<int>(runs.size()));
    });
    thread_->start();
    tree_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(tree_, &QTreeWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QTreeWidgetItem* item = tree_->itemAt(pos);
        for (auto it = hosts_.begin(); item && it != hosts_.end(); ++it) {
            if (it.value() != item) continue;
            QMenu* menu = hostMenu(it.key());
            menu->setAttribute(Qt::WA_DeleteOnClose);
            menu->popup(tree_->viewport()->mapToGlobal(pos));
        }
    });
    connect(tree_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const int kind = item->data(0, kKindRole).toInt();
        const QString path = item->data(0, kPathRole).toString();
        if (kind == 0) emit openLocal(path);
        if (kind == 1) {
            if (RemoteHost* host = hostOf(item)) emit openRemote(host, path);
        }
    });
    timer_ = new QTimer(this);
    timer_->setInterval(3000);
    connect(timer_, &QTimer::timeout, this, [this] { refresh(); });
    timer_->start();
}

RunsSidebar::~RunsSidebar() {
    // Written here, not on every resize: the dock's first layouts pass through other widths
    // before the window applies preferredWidth().
    if (shownWidth_ > 0) QSettings().setValue(kWidthKey, shownWidth_);
    thread_->quit();
    thread_->wait();
}

void RunsSidebar::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    // In a dock, the dock's width: what QMainWindow::resizeDocks takes back (no frame drift).
    auto* dock = qobject_cast<QDockWidget*>(parentWidget());
    if (isVisible()) shownWidth_ = dock ? dock->width() : e->size().width();
}

void RunsSidebar::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (sized_) return;
    sized_ = true;
    // Docked in a main window: give the dock the remembered width once the window is shown
    // (QMainWindow::resizeDocks before the first show is overridden by the first layout).
    auto* dock = qobject_cast<QDockWidget*>(parentWidget());
    auto* window = dock ? qobject_cast<QMainWindow*>(dock->parentWidget()) : nullptr;
    if (!window) return;
    QMetaObject::invokeMethod(
        this,
        [this, dock = QPointer<QDockWidget>(dock), window = QPointer<QMainWindow>(window)] {
            if (dock && window && !dock->isFloating() && window->dockWidgetArea(dock) != Qt::NoDockWidgetArea)
                window->resizeDocks({dock}, {preferredWidth()}, Qt::Horizontal);
        },
        Qt::QueuedConnection);
}

int RunsSidebar::preferredWidth() const {
    bool ok = false;
    const int w = QSettings().value(kWidthKey).toInt(&ok);
    if (!ok || w <= 0) return kDefaultWidth;
    return std::clamp(w, kMinimumWidth, kMaximumRememberedWidth);
}

void RunsSidebar::setFilter(const QString& text) { filter_->setText(text); }
QString RunsSidebar::filter() const { return filter_->text(); }

void RunsSidebar::applyFilter() {
    const QString f = filter_->text().trimmed();
    for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
        QTreeWidgetItem* group = tree_->topLevelItem(g);
        int shown = 0;
        for (int i = 0; i < group->childCount(); ++i) {
            QTreeWidgetItem* run = group->child(i);
            const bool match = f.isEmpty() || run->text(0).contains(f, Qt::CaseInsensitive) ||
                               run->data(0, RunItemDelegate::kSecondLineRole).toString().contains(f, Qt::CaseInsensitive);
            run->setHidden(!match);
            shown += match ? 1 : 0;
        }
        // A host (or the local root) stays while one of its runs matches, or while it has none
        // listed yet and its own label matches.
        group->setHidden(!f.isEmpty() && shown == 0 && !(group->childCount() == 0 && group->text(0).contains(f, Qt::CaseInsensitive)));
    }
}

QString RunsSidebar::runKey(const QTreeWidgetItem* item) { return item ? item->data(0, kKeyRole).toString() : QString(); }

QTreeWidgetItem* RunsSidebar::runItem(const QString& key) const {
    for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
        QTreeWidgetItem* group = tree_->topLevelItem(g);
        for (int i = 0; i < group->childCount(); ++i)
            if (runKey(group->child(i)) == key) return group->child(i);
    }
    return nullptr;
}

RemoteHost* RunsSidebar::hostOf(const QTreeWidgetItem* item) const {
    for (auto it = hosts_.begin(); item && it != hosts_.end(); ++it)
        if (it.value() == item->parent()) return it.key();
    return nullptr;
}

void RunsSidebar::showPlotted(QTreeWidgetItem* item) {
    const QString key = runKey(item);
    const bool on = plotted_.contains(key);
    const bool was = filling_;
    filling_ = true;
    item->setCheckState(0, on ? Qt::Checked : Qt::Unchecked);
    item->setIcon(0, swatch(on ? RunPalette::colour(key) : QColor()));
    filling_ = was;
}

void RunsSidebar::setPlotted(const QString& key, bool on) {
    const bool wasRestored = restored_.remove(key);
    const bool changed = wasRestored || plotted_.contains(key) != on;
    if (on)
        plotted_.insert(key);
    else
        plotted_.remove(key);
    if (QTreeWidgetItem* item = runItem(key)) showPlotted(item);
    if (changed) emit plottedRunsChanged(plottedRuns());
}

QStringList RunsSidebar::plottedRuns() const {
    QStringList keys(plotted_.begin(), plotted_.end());
    for (const QString& k : restored_)
        if (!plotted_.contains(k)) keys << k;
    keys.sort();
    return keys;
}

void RunsSidebar::restorePlotted(const QStringList& keys) {
    for (const QString& k : keys)
        if (!k.isEmpty() && !plotted_.contains(k)) restored_.insert(k);
    // Runs listed already are checked now; the others when their listing comes.
    for (int g = 0; g < tree_->topLevelItemCount() && !restored_.isEmpty(); ++g) {
        QTreeWidgetItem* group = tree_->topLevelItem(g);
        if (group != localRoot_) resolveRestored(group);  // the local root resolves on its next listing
    }
}

void RunsSidebar::resolveRestored(QTreeWidgetItem* parent) {
    if (restored_.isEmpty()) return;
    QStringList opened;
    for (int i = 0; i < parent->childCount(); ++i) {
        QTreeWidgetItem* item = parent->child(i);
        const QString key = runKey(item);
        if (!restored_.remove(key)) continue;
        plotted_.insert(key);
        showPlotted(item);
        opened << key;
    }
    bool forgot = false;
    if (parent == localRoot_) {
        // A local key is the run's absolute folder ("HOST:FOLDER" for a remote one): one that the
        // workspace does not list is gone or lives elsewhere, and would wait forever.
        for (auto it = restored_.begin(); it != restored_.end();) {
            if (QDir::isAbsolutePath(*it)) {
                it = restored_.erase(it);
                forgot = true;
            } else {
                ++it;
            }
        }
    }
    // After the loop: opening a run (the dashboard's answer) may come back here through setPlotted.
    for (const QString& key : opened) emit plotToggled(key, true);
    if (!opened.isEmpty() || forgot) emit plottedRunsChanged(plottedRuns());
}

bool RunsSidebar::openRun(const QString& key) {
    QTreeWidgetItem* item = runItem(key);
    if (!item) return false;
    const QString path = item->data(0, kPathRole).toString();
    if (item->data(0, kKindRole).toInt() == 0) {
        emit openLocal(path);
        return true;
    }
    RemoteHost* host = hostOf(item);
    if (host) emit openRemote(host, path);
    return host != nullptr;
}

void RunsSidebar::setWorkspace(const QString& dir) {
    workspace_ = dir;
    localRoot_->setText(0, tr("This computer — %1").arg(dir));
    localRoot_->setToolTip(0, dir);
    ++job_;  // a listing of the previous folder still in flight is stale now
    refresh();
}

void RunsSidebar::refresh() {
    // One listing at a time: a refresh asked for meanwhile (the 3 s timer on a slow disk, a click)
    // runs once when the current one is done, instead of piling up reads of every run.
    if (listing_) {
        again_ = true;
        return;
    }
    if (!workspace_.isEmpty()) {
        listing_ = true;
        const quint64 job = ++job_;
        const QString root = workspace_;
        QMetaObject::invokeMethod(lister_, [l = lister_, job, root] { l->list(job, root); });
    }
}

void RunsSidebar::listingDone() {
    listing_ = false;
    if (again_) {
        again_ = false;
        refresh();
    }
}

void RunsSidebar::setHostModel(HostListModel* model) {
    for (RemoteHost* h : model->hosts()) addHost(h);
    connect(model, &HostListModel::rowsInserted, this, [this, model](const QModelIndex&, int first, int last) {
        for (int row = first; row <= last; ++row) addHost(model->hostAt(row));
    });
    connect(model, &HostListModel::dataChanged, this, [this, model](const QModelIndex& from, const QModelIndex& to) {
        for (int row = from.row(); row <= to.row(); ++row) showHostState(model->hostAt(row));
    });
}

void RunsSidebar::addHost(RemoteHost* host) {
    if (!host || hosts_.contains(host)) return;  // one item per host
    auto* item = new QTreeWidgetItem(tree_, {host->label(), HostListModel::stateText(host)});
    item->setData(0, kKindRole, 2);
    item->setToolTip(0, tr("%1 (%2), runs under %3").arg(host->label(), host->identity(), host->config().root));
    item->setExpanded(true);
    hosts_.insert(host, item);
    connect(host, &RemoteHost::runsListed, this, [this, host](const RunEntryList& runs) {
        if (auto* it = hosts_.value(host)) {
            showHostState(host);
            fill(it, runs);
            resolveRestored(it);
        }
    });
    connect(host, &RemoteHost::trainerProbed, this, [this, host] { showHostState(host); });
    connect(host, &RemoteHost::stateChanged, this, [this, host] { showHostState(host); });
    connect(host, &QObject::destroyed, this, [this, host] { removeHost(host); });
}

void RunsSidebar::removeHost(RemoteHost* host) { delete hosts_.take(host); }

// A host's state column (HostListModel::stateText): "not connected" with the failure in the
// tooltip, its trainer's state when that needs the user ("not installed": set it up from the
// context menu), "no runs yet", else "connected".
void RunsSidebar::showHostState(RemoteHost* host) {
    QTreeWidgetItem* it = hosts_.value(host);
    if (!it) return;
    const TrainerStatus& t = host->trainerStatus();
    it->setText(1, HostListModel::stateText(host));
    if (!host->lastError().isEmpty())
        it->setToolTip(1, host->lastError());
    else if (t.needsSetup())
        it->setToolTip(1, (t.mismatch.isEmpty() ? tr("streetgan-trainer is %1 on %2.").arg(t.summary, host->label()) : t.mismatch) +
                              tr(" Right-click the host to set it up."));
    else if (host->listed() && host->runs().isEmpty())
        it->setToolTip(1, tr("No runs under %1 on %2 yet: File → New run… starts one there.").arg(host->config().root, host->label()));
    else
        it->setToolTip(1, t.state == TrainerStatus::Ready ? t.summary : QString());
}

void RunsSidebar::showLive(const QString& key, const QString& state, qint64 step, qint64 totalSteps) {
    if (key.isEmpty() || state.isEmpty()) return;
    live_.insert(key, Live{state, step, totalSteps});
    QTreeWidgetItem* item = runItem(key);
    if (!item) return;
    RunEntry r = item->data(0, kEntryRole).value<RunEntry>();
    RemoteHost* host = hostOf(item);
    filling_ = true;
    showRun(item, r, host ? host->label() : tr("this computer"), static_cast<double>(QDateTime::currentSecsSinceEpoch()));
    filling_ = false;
}

void RunsSidebar::forgetLive(const QString& key) { live_.remove(key); }

QMenu* RunsSidebar::hostMenu(RemoteHost* host) {
    auto* menu = new QMenu(this);
    const bool needs = host->trainerStatus().needsSetup();
    QAction* setUp = menu->addAction(needs ? tr("Set up streetgan-trainer…") : tr("Reinstall or update streetgan-trainer…"));
    connect(setUp, &QAction::triggered, this, [this, host] { emit setUpTrainerRequested(host); });
    connect(menu->addAction(tr("Refresh")), &QAction::triggered, host, [host] {
        host->refresh();
        host->probeTrainer();
    });
    return menu;
}

void RunsSidebar::fill(QTreeWidgetItem* parent, const RunEntryList& runs) {
    const int kind = parent == localRoot_ ? 0 : 1;
    RemoteHost* host = nullptr;
    for (auto it = hosts_.begin(); kind == 1 && it != hosts_.end(); ++it)
        if (it.value() == parent) host = it.key();
    const QString hostText = host ? host->label() : tr("this computer");
    const double now = static_cast<double>(QDateTime::currentSecsSinceEpoch());
    filling_ = true;
    // Update in place (keeps selection and scroll position).
    QHash<QString, QTreeWidgetItem*> existing;
    for (int i = 0; i < parent->childCount(); ++i) existing.insert(parent->child(i)->data(0, kPathRole).toString(), parent->child(i));
    for (const RunEntry& r : runs) {
        QTreeWidgetItem* item = existing.take(r.path);
        if (!item) {
            item = new QTreeWidgetItem(parent);
            item->setData(0, kPathRole, r.path);
            item->setData(0, kKindRole, kind);
            item->setData(0, kKeyRole, RunPalette::key(host ? host->label() : QString(), r.path));
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            showPlotted(item);
        }
        item->setText(0, r.name);
        item->setData(0, RunItemDelegate::kSecondLineRole, hostText);
        item->setData(0, kEntryRole, QVariant::fromValue(r));
        showRun(item, r, hostText, now);
    }
    qDeleteAll(existing);
    filling_ = false;
    applyFilter();
}

void RunsSidebar::showRun(QTreeWidgetItem* item, const RunEntry& listed, const QString& hostText, double now) {
    RunEntry r = listed;
    // The open run's own events are newer than any listing: they give its state and steps.
    if (auto it = live_.constFind(runKey(item)); it != live_.constEnd()) {
        r.state = it->state;
        r.step = it->step;
        if (it->totalSteps > 0) r.totalSteps = it->totalSteps;
        r.updated = 0;  // followed live: "stalled" is the listing's guess, not needed here
    }
    const QString state = shownState(r, now);
    const QString steps = r.totalSteps > 0 ? QString("%1/%2").arg(r.step).arg(r.totalSteps) : r.step > 0 ? tr("step %1").arg(r.step) : QString();
    item->setText(1, steps.isEmpty() ? state : state + " " + steps);
    item->setData(1, RunItemDelegate::kStateRole, state);
    item->setData(1, RunItemDelegate::kDetailRole, steps);
    QStringList tip{r.name, tr("on %1: %2").arg(hostText, r.path)};
    tip << item->text(1);
    if (state != r.state) tip << tr("(%1, but no event for %2 min: is the trainer hung?)").arg(r.state).arg(static_cast<int>((now - r.updated) / 60));
    if (r.updated > 0) tip << tr("last event %1").arg(QDateTime::fromSecsSinceEpoch(static_cast<qint64>(r.updated)).toString());
    if (!r.error.isEmpty()) tip << r.error;
    tip << tr("Check to plot it on the dashboard; double-click to open it.");
    item->setToolTip(0, tip.join('\n'));
    item->setToolTip(1, tip.join('\n'));
}

}  // namespace streetgan::ui
