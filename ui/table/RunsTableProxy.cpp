#include "table/RunsTableProxy.h"

#include <cmath>

#include "table/RunsTableModel.h"

namespace streetgan::ui {

RunsTableProxy::RunsTableProxy(RunsTableModel* source, QObject* parent) : QSortFilterProxyModel(parent), table_(source) {
    setSourceModel(source);
    setDynamicSortFilter(true);
    // A statistic chosen for an outcome column changes its numbers (and the header's title).
    connect(source, &QAbstractItemModel::headerDataChanged, this, [this] { invalidate(); });
}

QString RunsTableProxy::setColumnFilter(int column, const QString& text) {
    QString error;
    const ColumnFilter f = ColumnFilter::parse(text, &error);
    if (!error.isEmpty()) return error;
    if (f.isActive())
        filters_.insert(column, f);
    else
        filters_.remove(column);
    invalidateFilter();
    return {};
}

QString RunsTableProxy::setFilterText(const QString& text) {
    QString firstError;
    QHash<int, ColumnFilter> box;
    QList<QRegularExpression> search;
    for (const QString& raw : text.split(';', Qt::SkipEmptyParts)) {
        const QString term = raw.trimmed();
        if (term.isEmpty()) continue;
        const int eq = term.indexOf('=');
        if (eq > 0) {
            const QString name = term.left(eq).trimmed();
            const int column = table_->columnNamed(name);
            QString error;
            const ColumnFilter f = ColumnFilter::parse(term.mid(eq + 1), &error);
            if (column < 0) error = tr("No column “%1”: name a setting, a scalar or a column title before '='.").arg(name);
            if (error.isEmpty() && f.isActive()) box.insert(column, f);
            if (firstError.isEmpty()) firstError = error;
            continue;
        }
        QRegularExpression re(QRegularExpression::escape(term), QRegularExpression::CaseInsensitiveOption);
        search << re;
    }
    boxFilters_ = box;
    boxSearch_ = search;
    invalidateFilter();
    return firstError;
}

void RunsTableProxy::clearFilters() {
    filters_.clear();
    boxFilters_.clear();
    boxSearch_.clear();
    invalidateFilter();
}

bool RunsTableProxy::filterAcceptsRow(int row, const QModelIndex&) const {
    for (const QHash<int, ColumnFilter>* set : {&filters_, &boxFilters_})
        for (auto it = set->cbegin(); it != set->cend(); ++it) {
            if (it.key() >= table_->columnCount()) continue;
            if (!it.value().matches(table_->text(row, it.key()), table_->number(row, it.key()))) return false;
        }
    for (const QRegularExpression& re : boxSearch_)
        if (!re.match(table_->text(row, RunsTableModel::Run)).hasMatch() && !re.match(table_->text(row, RunsTableModel::Host)).hasMatch()) return false;
    return true;
}

void RunsTableProxy::addSortKey(int column, bool additive) {
    QList<SortKey> keys = keys_;
    int at = -1;
    for (int i = 0; i < keys.size(); ++i)
        if (keys[i].column == column) at = i;
    if (!additive) {
        const bool flip = keys.size() == 1 && at == 0;
        keys = {SortKey{column, flip && keys[0].order == Qt::AscendingOrder ? Qt::DescendingOrder : Qt::AscendingOrder}};
    } else if (at >= 0) {
        keys[at].order = keys[at].order == Qt::AscendingOrder ? Qt::DescendingOrder : Qt::AscendingOrder;
    } else {
        keys << SortKey{column, Qt::AscendingOrder};
    }
    setSortKeys(keys);
}

void RunsTableProxy::setSortKeys(const QList<SortKey>& keys) {
    keys_ = keys;
    applySort();
    emit headerDataChanged(Qt::Horizontal, 0, std::max(0, columnCount() - 1));
}

void RunsTableProxy::applySort() {
    // The proxy sorts on "column 0" ascending as far as Qt knows; lessThan() applies the keys.
    if (keys_.isEmpty()) {
        sort(-1);
        invalidate();
        return;
    }
    sort(0, Qt::AscendingOrder);
    invalidate();
}

int RunsTableProxy::naturalCompare(const QString& a, const QString& b) {
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            qsizetype ei = i, ej = j;
            while (ei < a.size() && a[ei].isDigit()) ++ei;
            while (ej < b.size() && b[ej].isDigit()) ++ej;
            // Leading zeros aside, a longer digit run is the larger number; equal lengths compare as text.
            QStringView x = QStringView(a).mid(i, ei - i), y = QStringView(b).mid(j, ej - j);
            while (x.size() > 1 && x[0] == '0') x = x.mid(1);
            while (y.size() > 1 && y[0] == '0') y = y.mid(1);
            if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
            if (const int c = x.compare(y); c != 0) return c < 0 ? -1 : 1;
            i = ei;
            j = ej;
            continue;
        }
        const QChar ca = a[i].toCaseFolded(), cb = b[j].toCaseFolded();
        if (ca != cb) return ca < cb ? -1 : 1;
        ++i;
        ++j;
    }
    if (i < a.size() || j < b.size()) return i < a.size() ? 1 : -1;
    return a.compare(b);  // equal but for case or leading zeros: a stable order still
}

bool RunsTableProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const int a = left.row(), b = right.row();
    for (const SortKey& k : keys_) {
        if (k.column >= table_->columnCount()) continue;
        const double x = table_->number(a, k.column), y = table_->number(b, k.column);
        const QString tx = table_->text(a, k.column), ty = table_->text(b, k.column);
        const bool missingX = !std::isfinite(x) && tx.isEmpty(), missingY = !std::isfinite(y) && ty.isEmpty();
        if (missingX != missingY) return missingY;  // a blank cell last in either order
        if (missingX) continue;
        int cmp = 0;
        if (std::isfinite(x) && std::isfinite(y))
            cmp = x < y ? -1 : (y < x ? 1 : 0);
        else if (std::isfinite(x) != std::isfinite(y))
            cmp = std::isfinite(x) ? -1 : 1;  // numbers before text in a mixed column
        else
            cmp = naturalCompare(tx, ty);
        if (cmp != 0) return k.order == Qt::AscendingOrder ? cmp < 0 : cmp > 0;
    }
    return a < b;
}

QVariant RunsTableProxy::headerData(int section, Qt::Orientation orientation, int role) const {
    QVariant v = QSortFilterProxyModel::headerData(section, orientation, role);
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return v;
    const int source = section;  // the proxy keeps the model's columns as they are
    QString title = v.toString();
    for (int i = 0; i < keys_.size(); ++i)
        if (keys_[i].column == source) {
            title += QString(" %1").arg(keys_[i].order == Qt::AscendingOrder ? QChar(0x25B2) : QChar(0x25BC));
            if (keys_.size() > 1) title += QString::number(i + 1);
        }
    if (filters_.contains(source) || boxFilters_.contains(source)) title += QString(" %1").arg(QChar(0x29E9));  // a funnel-like mark: filtered
    return title;
}

}  // namespace streetgan::ui
