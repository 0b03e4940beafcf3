#include "runs/RunsSidebar.h"

#include <QDateTime>
#include <QHeaderView>
#include <QPainter>
#include <QThread>
#include <QTimer>
#include <QMenu>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "base/run/Events.h"
#include "remote/RemoteHost.h"
#include "runs/LocalRunLister.h"

namespace streetgan::ui {

namespace {
constexpr int kPathRole = Qt::UserRole;
constexpr int kKindRole = Qt::UserRole + 1;  // 0 local run, 1 remote run, 2 host, 3 local root
}  // namespace

QIcon RunsSidebar::badge(const QString& state) {
    static QHash<QString, QIcon> cache;
    if (cache.contains(state)) return cache.value(state);
    QColor c(150, 150, 150);
    if (state == QLatin1String(RunState::kRunning))
        c = QColor(40, 167, 69);
    else if (state == QLatin1String(RunState::kPaused))
        c = QColor(255, 193, 7);
    else if (state == QLatin1String(RunState::kFinished))
        c = QColor(0, 123, 255);
    else if (state == QLatin1String(RunState::kStopped))
        c = QColor(108, 117, 125);
    else if (state == QLatin1String(RunState::kFailed))
        c = QColor(220, 53, 69);
    else if (state == QLatin1String(RunState::kCrashed))
        c = QColor(130, 20, 30);
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

RunsSidebar::RunsSidebar(QWidget* parent) : QWidget(parent), thread_(new QThread(this)), lister_(new LocalRunLister) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    tree_ = new QTreeWidget;
    tree_->setColumnCount(2);
    tree_->setHeaderLabels({tr("Run"), tr("State")});
    tree_->header()->setStretchLastSection(false);
    tree_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    tree_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    layout->addWidget(tree_);
    localRoot_ = new QTreeWidgetItem(tree_, {tr("This computer")});
    localRoot_->setData(0, kKindRole, 3);
    localRoot_->setExpanded(true);
    lister_->moveToThread(thread_);
    connect(thread_, &QThread::finished, lister_, &QObject::deleteLater);
    connect(lister_, &LocalRunLister::failed, this, [this](quint64, const QString&) { listingDone(); });
    connect(lister_, &LocalRunLister::listed, this, [this](quint64 job, const RunEntryList& runs) {
        listingDone();
        if (job != job_) return;
        fill(localRoot_, runs);
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
            for (auto it = hosts_.begin(); it != hosts_.end(); ++it)
                if (it.value() == item->parent()) emit openRemote(it.key(), path);
        }
    });
    timer_ = new QTimer(this);
    timer_->setInterval(3000);
    connect(timer_, &QTimer::timeout, this, [this] { refresh(); });
    timer_->start();
}

RunsSidebar::~RunsSidebar() {
    thread_->quit();
    thread_->wait();
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

void RunsSidebar::addHost(RemoteHost* host) {
    auto* item = new QTreeWidgetItem(tree_, {host->label(), tr("connecting…")});
    item->setData(0, kKindRole, 2);
    item->setToolTip(0, tr("%1, runs under %2").arg(host->label(), host->config().root));
    item->setExpanded(true);
    hosts_.insert(host, item);
    connect(host, &RemoteHost::runsListed, this, [this, host](const RunEntryList& runs) {
        if (auto* it = hosts_.value(host)) {
            showHostState(host);
            fill(it, runs);
        }
    });
    connect(host, &RemoteHost::trainerProbed, this, [this, host] { showHostState(host); });
    connect(host, &RemoteHost::failed, this, [this, host](const QString& m) {
        if (auto* it = hosts_.value(host)) {
            it->setText(1, tr("error"));
            it->setToolTip(1, m);
        }
    });
    connect(host, &QObject::destroyed, this, [this, host] { removeHost(host); });
}

void RunsSidebar::removeHost(RemoteHost* host) { delete hosts_.take(host); }

// A host's state column: its trainer's state when that needs the user ("not installed",
// "incompatible (protocol 0)": set it up from the context menu), else "connected".
void RunsSidebar::showHostState(RemoteHost* host) {
    QTreeWidgetItem* it = hosts_.value(host);
    if (!it) return;
    const TrainerStatus& t = host->trainerStatus();
    if (t.needsSetup()) {
        it->setText(1, t.summary);
        it->setToolTip(1, (t.mismatch.isEmpty() ? tr("streetgan-trainer is %1 on %2.").arg(t.summary, host->label()) : t.mismatch) +
                              tr(" Right-click the host to set it up."));
    } else {
        it->setText(1, tr("connected"));
        it->setToolTip(1, t.state == TrainerStatus::Ready ? t.summary : QString());
    }
}

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
    // Update in place (keeps selection and scroll position).
    QHash<QString, QTreeWidgetItem*> existing;
    for (int i = 0; i < parent->childCount(); ++i) existing.insert(parent->child(i)->data(0, kPathRole).toString(), parent->child(i));
    for (const RunEntry& r : runs) {
        QTreeWidgetItem* item = existing.take(r.path);
        if (!item) {
            item = new QTreeWidgetItem(parent);
            item->setData(0, kPathRole, r.path);
            item->setData(0, kKindRole, kind);
        }
        item->setText(0, r.name);
        item->setIcon(0, badge(r.state));
        item->setText(1, r.totalSteps > 0 ? QString("%1 %2/%3").arg(r.state).arg(r.step).arg(r.totalSteps) : r.state);
        QString tip = r.path;
        if (r.updated > 0) tip += "\n" + tr("last event %1").arg(QDateTime::fromSecsSinceEpoch(static_cast<qint64>(r.updated)).toString());
        if (!r.error.isEmpty()) tip += "\n" + r.error;
        item->setToolTip(0, tip);
    }
    qDeleteAll(existing);
}

}  // namespace streetgan::ui
