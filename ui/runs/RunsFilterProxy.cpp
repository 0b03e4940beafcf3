#include "runs/RunsFilterProxy.h"

#include "runs/RunItemDelegate.h"

namespace streetgan::ui {

RunsFilterProxy::RunsFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    // A group with a matching run stays whatever its own label (filterAcceptsRow decides the rest).
    setRecursiveFilteringEnabled(true);
}

void RunsFilterProxy::setText(const QString& text) {
    const QString t = text.trimmed();
    if (t == text_) return;
    text_ = t;
    invalidateFilter();
}

bool RunsFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (text_.isEmpty()) return true;
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    const auto contains = [&](int role) { return i.data(role).toString().contains(text_, Qt::CaseInsensitive); };
    if (sourceParent.isValid()) return contains(Qt::DisplayRole) || contains(RunItemDelegate::kSecondLineRole);
    return sourceModel()->rowCount(i) == 0 && contains(Qt::DisplayRole);
}

}  // namespace streetgan::ui
