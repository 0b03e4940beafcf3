// The runs sidebar's model: two levels, the groups (row 0 this computer; row 1 "Opened", the local
// runs opened from outside the workspace, while it has any; then one row per remote host) and
// each group's runs, two columns (the name; the state with step/total). It holds what
// the sidebar shows, as RunsSidebar computes it: texts, tooltips, the delegate's roles
// (RunItemDelegate) and each run's check box (plot it). A check the view changes (a click) is
// reported by runChecked; one set by code (setChecked) is not. Runs are updated in place by their
// path (rows keep their identity, so the view keeps selection and scroll position). GUI thread.
#pragma once

#include <QAbstractItemModel>
#include <QIcon>
#include <QVector>
#include <functional>

#include "common/RunEntry.h"

namespace streetgan::ui {

class RemoteHost;

class RunsTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Role {
        PathRole = Qt::UserRole,  ///< a run's folder (on its host)
        KeyRole,                  ///< a run's RunPalette::key
        EntryRole,                ///< a run's RunEntry as last listed
    };
    /// What a run's row shows.
    struct RunRow {
        RunEntry entry;
        QString key, hostText;
        QString stateText, state, detail;  ///< column 1: the text, the delegate's state and detail
        QString tooltip;                   ///< both columns
        bool missing = false;              ///< an opened run whose folder is gone: greyed, no check box
    };

    explicit RunsTreeModel(QObject* parent = nullptr);

    /// Row 0, this computer.
    QModelIndex localGroup() const { return index(0, 0); }
    /// The "Opened" group (row 1), invalid while it has no runs.
    QModelIndex openedGroup() const;
    /// The Opened group, or a run in it.
    bool isOpened(const QModelIndex& index) const;
    /// The Opened group's runs, as setRuns(); the group (labelled `label`, `tooltip`) is shown
    /// while `rows` is not empty and removed when it is.
    void setOpenedRuns(const QString& label, const QString& tooltip, const QVector<RunRow>& rows, const std::function<bool(const QString&)>& checked);
    /// Adds a group for `host` (after the others); returns false when it has one.
    bool addHost(RemoteHost* host);
    void removeHost(RemoteHost* host);
    QModelIndex hostGroup(RemoteHost* host) const;
    /// The host of a group or of a run in it; null for this computer's (and the Opened group's).
    RemoteHost* hostOf(const QModelIndex& index) const;
    bool isRun(const QModelIndex& index) const { return index.isValid() && index.internalId() != kGroupId; }
    /// A group's label, its tooltip, and its state column with its own tooltip.
    void setGroupText(const QModelIndex& group, const QString& label, const QString& tooltip, const QString& state = {}, const QString& stateTooltip = {});

    /// The runs of `group`, in order: rows of runs listed before are updated in place, the others
    /// added, the runs no longer listed removed. A new run's box is checked when `checked(key)`.
    void setRuns(const QModelIndex& group, const QVector<RunRow>& rows, const std::function<bool(const QString&)>& checked);
    /// Replaces the row of an existing run (same path).
    void updateRun(const QModelIndex& run, const RunRow& row);
    const RunRow& run(const QModelIndex& run) const;
    /// The run `key` (column 0), in any group; invalid when not listed.
    QModelIndex runIndex(const QString& key) const;
    /// Checks or unchecks a run without runChecked; its swatch shows its plot colour when checked.
    void setChecked(const QModelIndex& run, bool on);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

signals:
    /// The view (the user) checked or unchecked the run `key`.
    void runChecked(const QString& key, bool on);

private:
    // internalId: kGroupId for a group, else its group's id (not its row: a host's removal moves
    // the groups after it, and their runs' persistent indexes must still find them).
    static constexpr quintptr kGroupId = ~quintptr{0};
    struct Run {
        RunRow row;
        bool checked = false;
        QIcon swatch;
    };
    struct Group {
        quintptr id = 0;  ///< 0: this computer
        RemoteHost* host = nullptr;
        bool opened = false;  ///< the Opened group
        QString label, tooltip, state, stateTooltip;
        QVector<Run> runs;
    };
    int groupRow(quintptr id) const;
    Group& groupOf(const QModelIndex& run) { return groups_[groupRow(run.internalId())]; }
    const Group& groupOf(const QModelIndex& run) const { return groups_[groupRow(run.internalId())]; }
    void runChanged(const QModelIndex& run);
    QVector<Group> groups_;
    quintptr nextId_ = 1;
};

}  // namespace streetgan::ui
