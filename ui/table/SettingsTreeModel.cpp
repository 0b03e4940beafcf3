#include "table/SettingsTreeModel.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <functional>
#include <set>

#include "table/RunsTableModel.h"

namespace streetgan::ui {

struct SettingsTreeModel::Node {
    QString key;
    Node* parent = nullptr;
    int row = 0;
    const nlohmann::json* values[2] = {nullptr, nullptr};  ///< into the models' copies; null: absent
    bool differs = false;
    std::vector<std::unique_ptr<Node>> children;
};

namespace {

bool nested(const nlohmann::json* v) { return v && (v->is_object() || v->is_array()) && !v->empty(); }

// The child keys of two values, in order: an object's keys sorted, an array's indexes.
std::vector<std::string> childKeys(const nlohmann::json* a, const nlohmann::json* b) {
    std::set<std::string> names;
    size_t items = 0;
    for (const nlohmann::json* v : {a, b}) {
        if (!nested(v)) continue;
        if (v->is_object())
            for (auto it = v->begin(); it != v->end(); ++it) names.insert(it.key());
        else
            items = std::max(items, v->size());
    }
    std::vector<std::string> out(names.begin(), names.end());
    for (size_t i = 0; i < items; ++i) out.push_back(std::to_string(i));
    return out;
}

const nlohmann::json* child(const nlohmann::json* v, const std::string& key) {
    if (!nested(v)) return nullptr;
    if (v->is_object()) {
        const auto it = v->find(key);
        return it == v->end() ? nullptr : &*it;
    }
    const size_t i = std::stoul(key);
    return i < v->size() ? &(*v)[i] : nullptr;
}

}  // namespace

SettingsTreeModel::SettingsTreeModel(QObject* parent) : QAbstractItemModel(parent), root_(std::make_unique<Node>()) {}
SettingsTreeModel::~SettingsTreeModel() = default;

void SettingsTreeModel::setRuns(const std::vector<nlohmann::json>& settings, const QStringList& names) {
    beginResetModel();
    // The values live in the model (the tree points into them): a copy of the runs' settings.
    runs_ = static_cast<int>(std::min<size_t>(settings.size(), 2));
    settingsCopy_.assign(settings.begin(), settings.begin() + runs_);
    names_ = names;
    root_ = std::make_unique<Node>();
    for (int i = 0; i < runs_; ++i) root_->values[i] = &settingsCopy_[i];
    std::function<bool(Node*)> build = [&](Node* n) {
        bool differs = false;
        for (const std::string& k : childKeys(n->values[0], n->values[1])) {
            auto c = std::make_unique<Node>();
            c->key = QString::fromStdString(k);
            c->parent = n;
            c->row = static_cast<int>(n->children.size());
            for (int i = 0; i < runs_; ++i) c->values[i] = child(n->values[i], k);
            if (nested(c->values[0]) || nested(c->values[1]))
                c->differs = build(c.get()) || (runs_ == 2 && (nested(c->values[0]) != nested(c->values[1])));
            else
                c->differs = runs_ == 2 && ((c->values[0] == nullptr) != (c->values[1] == nullptr) || (c->values[0] && *c->values[0] != *c->values[1]));
            differs = differs || c->differs;
            n->children.push_back(std::move(c));
        }
        return differs;
    };
    build(root_.get());
    endResetModel();
}

SettingsTreeModel::Node* SettingsTreeModel::node(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : root_.get();
}

QModelIndex SettingsTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) return {};
    Node* p = node(parent);
    return createIndex(row, column, p->children[row].get());
}

QModelIndex SettingsTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    Node* p = node(child)->parent;
    if (!p || p == root_.get()) return {};
    return createIndex(p->row, 0, p);
}

int SettingsTreeModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) return 0;
    return static_cast<int>(node(parent)->children.size());
}

int SettingsTreeModel::columnCount(const QModelIndex&) const { return 1 + std::max(runs_, 1); }

bool SettingsTreeModel::differs(const QModelIndex& index) const { return index.isValid() && node(index)->differs; }

QString SettingsTreeModel::path(const QModelIndex& index) const {
    QStringList parts;
    for (const Node* n = node(index); n && n != root_.get(); n = n->parent) parts.prepend(n->key);
    return parts.join('/');
}

QModelIndex SettingsTreeModel::find(const QString& path) const {
    QModelIndex at;
    for (const QString& part : path.split('/')) {
        const Node* n = node(at);
        QModelIndex next;
        for (const auto& c : n->children)
            if (c->key == part) next = createIndex(c->row, 0, c.get());
        if (!next.isValid()) return {};
        at = next;
    }
    return at;
}

QVariant SettingsTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const Node* n = node(index);
    const int c = index.column();
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        if (c == 0) return n->key;
        const nlohmann::json* v = c - 1 < 2 ? n->values[c - 1] : nullptr;
        if (!v) return runs_ == 2 && role == Qt::DisplayRole ? tr("(absent)") : QVariant();
        if (nested(v)) return role == Qt::DisplayRole ? QVariant() : QVariant(QString::fromStdString(v->dump()));
        return RunsTableModel::settingText(*v);
    }
    if (role == Qt::FontRole && n->differs) {
        QFont f;
        f.setBold(true);
        return f;
    }
    // A translucent highlight: legible on the light and the dark theme alike.
    if (role == Qt::BackgroundRole && n->differs) return QBrush(QColor(255, 190, 0, 70));
    return {};
}

QVariant SettingsTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    if (section == 0) return tr("Setting");
    return names_.value(section - 1, tr("Value"));
}

}  // namespace streetgan::ui
