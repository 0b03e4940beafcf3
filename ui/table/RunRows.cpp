#include "table/RunRows.h"

#include <QAbstractItemModel>

#include "table/RunsTableRoles.h"

namespace streetgan::ui {

RunRows::~RunRows() { disconnectAll(); }

void RunRows::disconnectAll() {
    for (const auto& c : connections_) QObject::disconnect(c);
    connections_.clear();
}

void RunRows::setModel(QAbstractItemModel* model, QObject* context, const std::function<void()>& changed) {
    disconnectAll();
    model_ = model;
    keys_.clear();
    names_.clear();
    if (!model) return;
    using M = QAbstractItemModel;
    connections_ = {QObject::connect(model, &M::rowsInserted, context, changed),   QObject::connect(model, &M::rowsRemoved, context, changed),
                    QObject::connect(model, &M::rowsMoved, context, changed),      QObject::connect(model, &M::columnsInserted, context, changed),
                    QObject::connect(model, &M::columnsRemoved, context, changed), QObject::connect(model, &M::columnsMoved, context, changed),
                    QObject::connect(model, &M::dataChanged, context, changed),    QObject::connect(model, &M::headerDataChanged, context, changed),
                    QObject::connect(model, &M::layoutChanged, context, changed),  QObject::connect(model, &M::modelReset, context, changed),
                    QObject::connect(model, &QObject::destroyed, context, changed)};
}

void RunRows::read(int nameColumn) {
    const int n = model_ ? model_->rowCount() : 0;
    keys_.fill(QString(), n);
    names_.fill(QString(), n);
    for (int r = 0; r < n; ++r) {
        keys_[r] = model_->index(r, 0).data(RunsTableRoles::KeyRole).toString();
        if (nameColumn >= 0 && nameColumn < model_->columnCount()) names_[r] = model_->index(r, nameColumn).data(Qt::DisplayRole).toString();
    }
}

QString RunRows::name(int row) const {
    const QString n = names_.value(row);
    return n.isEmpty() ? keys_.value(row) : n;
}

}  // namespace streetgan::ui
