// The runs sidebar: local runs under the workspace folder and each connected remote host with
// its runs, each with a state badge (running, paused, finished, stopped, failed, crashed).
// Listing runs on workers (LocalRunLister, RemoteHost); refreshed every few seconds. GUI thread.
#pragma once

#include <QHash>
#include <QPointer>
#include <QWidget>

#include "common/RunEntry.h"

class QMenu;
class QTreeWidget;
class QTreeWidgetItem;
class QThread;
class QTimer;

namespace streetgan::ui {

class LocalRunLister;
class RemoteHost;

class RunsSidebar : public QWidget {
    Q_OBJECT
public:
    explicit RunsSidebar(QWidget* parent = nullptr);
    ~RunsSidebar() override;
    void setWorkspace(const QString& dir);
    QString workspace() const { return workspace_; }
    void refresh();
    void addHost(RemoteHost* host);
    void removeHost(RemoteHost* host);
    QTreeWidget* tree() const { return tree_; }
    /// The state badge for a run state (coloured dot).
    static QIcon badge(const QString& state);

signals:
    void openLocal(const QString& runDir);
    void openRemote(streetgan::ui::RemoteHost* host, const QString& runDir);
    /// The user asked to set up (install or update) streetgan-trainer on `host`.
    void setUpTrainerRequested(streetgan::ui::RemoteHost* host);
    void localListed(int runs);

public:
    /// The context menu of a host's item (Set up streetgan-trainer…, Refresh); the caller owns it.
    QMenu* hostMenu(RemoteHost* host);
    /// The host's item (tests).
    QTreeWidgetItem* hostItem(RemoteHost* host) const { return hosts_.value(host); }

private:
    void fill(QTreeWidgetItem* parent, const RunEntryList& runs);
    void showHostState(RemoteHost* host);
    QTreeWidget* tree_;
    QTreeWidgetItem* localRoot_;
    QHash<RemoteHost*, QTreeWidgetItem*> hosts_;
    QString workspace_;
    QThread* thread_;
    LocalRunLister* lister_;
    QTimer* timer_;
    quint64 job_ = 0;
    bool listing_ = false;  ///< a listing is in flight on the worker
    bool again_ = false;    ///< refresh() was asked for meanwhile
    void listingDone();
};

}  // namespace streetgan::ui
