// The item data roles the Runs table's models answer beyond Qt's own, shared by the table page
// (its model and proxies) and the views drawn over it (ParallelCoordinatesView, RunScatterView):
// a view reads a cell's number and a row's run key through these roles, never by parsing the
// display text. Constants only; no thread contract.
#pragma once

#include <Qt>

namespace streetgan::ui::RunsTableRoles {

enum : int {
    /// A double for a numeric cell; an invalid QVariant when the cell is not numeric (a
    /// categorical column: its DisplayRole text, such as a preset name, is the value) or missing.
    NumberRole = Qt::UserRole + 1,
    /// The run's unique key (a QString), on every cell of its row.
    KeyRole,
    /// The problems found with the run's record (text), for a tooltip.
    ProblemsRole,
};

}  // namespace streetgan::ui::RunsTableRoles
