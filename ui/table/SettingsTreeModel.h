// A run's whole configuration as a tree (the Runs table's settings panel), or two runs side by
// side (the diff): one row per setting key, nested values (objects, arrays) expanded as children.
// One run: columns Setting | Value. Two: Setting | first run | second run, and a row whose values
// differ (or that one run lacks) is marked: bold, highlighted, and differs() true; a parent
// differs when any child does. The tree is rebuilt (a model reset) on each setRuns(). GUI thread.
#pragma once

#include <QAbstractItemModel>
#include <QStringList>

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

namespace streetgan::ui {

class SettingsTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    explicit SettingsTreeModel(QObject* parent = nullptr);
    ~SettingsTreeModel() override;
    /// Shows the settings of each run of `settings` (one, two, or none; more are ignored) under
    /// the column titles `names`.
    void setRuns(const std::vector<nlohmann::json>& settings, const QStringList& names);
    int runCount() const { return runs_; }
    /// Whether the row's values differ between the two runs (false with one run).
    bool differs(const QModelIndex& index) const;
    /// The row's key path ("betas/1" for the second item of betas).
    QString path(const QModelIndex& index) const;
    /// The index of the row with key path `path` in column 0 (invalid when none).
    QModelIndex find(const QString& path) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node;
    Node* node(const QModelIndex& index) const;
    std::unique_ptr<Node> root_;
    std::vector<nlohmann::json> settingsCopy_;  ///< the runs' settings the nodes point into
    QStringList names_;
    int runs_ = 0;
};

}  // namespace streetgan::ui
