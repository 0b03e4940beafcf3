// The runs of a Runs table model as the table's views see them: the model followed (any change of
// rows, values, headers or layout, a reset, the model's destruction: one callback, which the view
// turns into a lazy re-read) and each row's key (RunsTableRoles::KeyRole) and name (the display
// text of a chosen column), read in one pass. Shared by ParallelCoordinatesView and
// RunScatterView, so that both follow the same signals. GUI thread (the model's).
#pragma once

#include <QMetaObject>
#include <QPointer>
#include <QString>
#include <QVector>

#include <functional>

class QAbstractItemModel;
class QObject;

namespace streetgan::ui {

class RunRows {
public:
    RunRows() = default;
    RunRows(const RunRows&) = delete;
    RunRows& operator=(const RunRows&) = delete;
    ~RunRows();

    /// Follows `model` (null: none) and calls `changed` in `context` after each of its changes;
    /// stops following the previous one.
    void setModel(QAbstractItemModel* model, QObject* context, const std::function<void()>& changed);
    QAbstractItemModel* model() const { return model_; }
    /// Reads the rows' keys, and their names from column `nameColumn`.
    void read(int nameColumn);

    int count() const { return static_cast<int>(keys_.size()); }
    QString key(int row) const { return keys_.value(row); }
    /// The row's name (its key when the name column is empty).
    QString name(int row) const;
    /// The row whose key is `key`, or -1.
    int rowOf(const QString& key) const { return static_cast<int>(keys_.indexOf(key)); }

private:
    void disconnectAll();

    QPointer<QAbstractItemModel> model_;
    QVector<QMetaObject::Connection> connections_;
    QVector<QString> keys_, names_;
};

}  // namespace streetgan::ui
