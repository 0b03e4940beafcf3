#include "table/RunsTableModel.h"

#include <QApplication>
#include <QDir>
#include <QFont>
#include <QIcon>
#include <QLocale>
#include <QPalette>
#include <QStyle>
#include <QtMath>

#include <algorithm>
#include <cmath>
#include <set>

#include "runs/RunPalette.h"
#include "table/RunsTableRoles.h"

namespace streetgan::ui {

namespace {

constexpr double kNaN = ScalarStats::kNone;

const char* const kFixedIds[RunsTableModel::FixedCount] = {"run", "host", "state", "steps", "images", "wall", "img_per_s", "cost", "best"};

QString numberText(double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QString(); }

}  // namespace

QString RunsTableModel::Column::id() const {
    switch (kind) {
        case Kind::Fixed:
            return QString::fromLatin1(kFixedIds[fixed]);
        case Kind::Setting:
            return "setting:" + name;
        case Kind::Outcome:
            break;
    }
    return "scalar:" + name;
}

RunsTableModel::RunsTableModel(QObject* parent) : QAbstractTableModel(parent) {
    for (int f = 0; f < FixedCount; ++f) {
        Column c;
        c.fixed = f;
        columnIds_.insert(c.id(), f);
        columns_ << c;
    }
}

QString RunsTableModel::statisticName(Statistic s) {
    switch (s) {
        case Statistic::Last:
            return tr("last");
        case Statistic::Min:
            return tr("min");
        case Statistic::Max:
            return tr("max");
        case Statistic::AtBest:
            break;
    }
    return tr("at best");
}

QString RunsTableModel::settingText(const nlohmann::json& value) {
    if (value.is_string()) return QString::fromStdString(value.get<std::string>());
    if (value.is_number_float()) return QString::number(value.get<double>(), 'g', 10);
    if (value.is_null()) return {};
    return QString::fromStdString(value.dump());  // bools, integers, arrays, objects: compact JSON
}

QString RunsTableModel::durationText(double s) {
    if (!(s > 0)) return {};
    const qint64 t = qRound64(s);
    if (t < 60) return tr("%1 s").arg(t);
    if (t < 3600) return tr("%1 min %2 s").arg(t / 60).arg(t % 60, 2, 10, QChar('0'));
    return tr("%1 h %2 min").arg(t / 3600).arg((t % 3600) / 60, 2, 10, QChar('0'));
}

// New settings go at the end of the settings, new scalars at the end of the outcomes, each
// batch sorted by name: the groups stay together, and a column never moves once added (only
// outcome columns shift right as settings are added, which the header follows).
void RunsTableModel::addColumns(const std::vector<RunRecord>& records) {
    std::set<std::string> settings, scalars;
    for (const RunRecord& r : records) {
        if (r.settings.is_object())
            for (auto it = r.settings.begin(); it != r.settings.end(); ++it)
                if (!columnIds_.contains("setting:" + QString::fromStdString(it.key()))) settings.insert(it.key());
        for (const auto& [name, stats] : r.scalars)
            if (!columnIds_.contains("scalar:" + QString::fromStdString(name))) scalars.insert(name);
        for (const auto& [name, value] : r.best.scalars)
            if (!columnIds_.contains("scalar:" + QString::fromStdString(name))) scalars.insert(name);
    }
    auto insert = [this](int at, Kind kind, const std::set<std::string>& names) {
        if (names.empty()) return;
        beginInsertColumns({}, at, at + static_cast<int>(names.size()) - 1);
        for (const std::string& n : names) {
            Column c;
            c.kind = kind;
            c.name = QString::fromStdString(n);
            columns_.insert(at++, c);
        }
        if (kind == Kind::Setting) settingEnd_ += static_cast<int>(names.size());
        columnIds_.clear();
        for (int i = 0; i < columns_.size(); ++i) columnIds_.insert(columns_[i].id(), i);
        endInsertColumns();
    };
    insert(settingEnd_, Kind::Setting, settings);
    insert(static_cast<int>(columns_.size()), Kind::Outcome, scalars);
}

void RunsTableModel::upsert(const QString& hostLabel, const std::vector<RunRecord>& records) {
    addColumns(records);
    QList<Row> added;
    int firstChanged = -1, lastChanged = -1;
    QSet<QString> seen;
    for (const RunRecord& rec : records) {
        const QString key = RunPalette::key(hostLabel, QString::fromStdString(rec.info.path));
        if (seen.contains(key)) continue;  // one row per run, however often a listing names it
        seen.insert(key);
        if (const int at = rowOf(key); at >= 0) {
            if (unchanged(rows_[at].record, rec)) continue;
            rows_[at].record = rec;
            firstChanged = firstChanged < 0 ? at : std::min(firstChanged, at);
            lastChanged = std::max(lastChanged, at);
        } else {
            added << Row{rec, hostLabel, key};
        }
    }
    if (firstChanged >= 0) emit dataChanged(index(firstChanged, 0), index(lastChanged, columnCount() - 1));
    if (added.isEmpty()) return;
    const int first = static_cast<int>(rows_.size());
    beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
    for (Row& r : added) {
        rowIds_.insert(r.key, static_cast<int>(rows_.size()));
        rows_ << std::move(r);
    }
    endInsertRows();
}

void RunsTableModel::replaceSource(const QString& hostLabel, const std::vector<RunRecord>& records) {
    upsert(hostLabel, records);
    QSet<QString> keep;
    for (const RunRecord& rec : records) keep.insert(RunPalette::key(hostLabel, QString::fromStdString(rec.info.path)));
    // Back to front, a block of neighbouring rows at a time; the row ids are renumbered once.
    bool removed = false;
    for (int r = static_cast<int>(rows_.size()) - 1; r >= 0; --r) {
        if (rows_[r].hostLabel != hostLabel || keep.contains(rows_[r].key)) continue;
        int first = r;
        while (first > 0 && rows_[first - 1].hostLabel == hostLabel && !keep.contains(rows_[first - 1].key)) --first;
        beginRemoveRows({}, first, r);
        for (int i = first; i <= r; ++i) rowIds_.remove(rows_[i].key);
        rows_.remove(first, r - first + 1);
        endRemoveRows();
        removed = true;
        r = first;
    }
    if (removed)
        for (int i = 0; i < rows_.size(); ++i) rowIds_.insert(rows_[i].key, i);
}

// What a relisting changes: a run that wrote nothing since has the same step, last event time,
// state, checkpoints and counts, and then the same everything (its files are only appended to, and
// run.json is written before its events). Comparing these instead of the whole record spares the
// views a repaint of every row at each relisting.
bool RunsTableModel::unchanged(const RunRecord& a, const RunRecord& b) {
    const RunInfo &x = a.info, &y = b.info;
    return x.step == y.step && x.updated == y.updated && x.state == y.state && x.pid == y.pid && x.error == y.error && x.lastCheckpoint == y.lastCheckpoint &&
           x.totalSteps == y.totalSteps && x.name == y.name && x.reason == y.reason && x.slurmJob == y.slurmJob && a.kind == b.kind && a.host == b.host &&
           a.images == b.images && a.settings == b.settings && a.scalars.size() == b.scalars.size() && a.problems == b.problems &&
           a.best.checkpoint == b.best.checkpoint && a.best.step == b.best.step && a.info.scalars == b.info.scalars;
}

void RunsTableModel::removeSource(const QString& hostLabel) { replaceSource(hostLabel, {}); }

void RunsTableModel::setHostPrice(const QString& hostLabel, double perHour) {
    if (prices_.value(hostLabel, -1) == perHour) return;
    if (perHour < 0)
        prices_.remove(hostLabel);
    else
        prices_.insert(hostLabel, perHour);
    if (!rows_.isEmpty()) emit dataChanged(index(0, Cost), index(rowCount() - 1, Cost));
}

int RunsTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(rows_.size()); }
int RunsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(columns_.size()); }

int RunsTableModel::columnNamed(const QString& titleOrId) const {
    const QString t = titleOrId.trimmed();
    if (const int c = columnOf(t); c >= 0) return c;
    for (int c = 0; c < columns_.size(); ++c)
        if (headerData(c, Qt::Horizontal).toString().compare(t, Qt::CaseInsensitive) == 0 || columns_[c].name == t) return c;
    return -1;
}

void RunsTableModel::setStatistic(int column, Statistic statistic) {
    if (column < 0 || column >= columns_.size() || columns_[column].kind != Kind::Outcome || columns_[column].statistic == statistic) return;
    columns_[column].statistic = statistic;
    emit headerDataChanged(Qt::Horizontal, column, column);
    if (!rows_.isEmpty()) emit dataChanged(index(0, column), index(rowCount() - 1, column));
}

double RunsTableModel::fixedNumber(const Row& r, int fixed) const {
    const RunInfo& i = r.record.info;
    switch (fixed) {
        case Steps:
            return static_cast<double>(i.step);
        case Images:
            return r.record.images > 0 ? static_cast<double>(r.record.images) : kNaN;
        case WallTime:
            return r.record.wallSeconds > 0 ? r.record.wallSeconds : kNaN;
        case ImagesPerSecond:
            return r.record.imagesPerSecond;
        case Cost: {
            const double price = r.hostLabel.isEmpty() ? -1 : prices_.value(r.hostLabel, -1);
            return price >= 0 && r.record.wallSeconds > 0 ? r.record.wallSeconds / 3600.0 * price : kNaN;
        }
        case BestCheckpoint:
            return r.record.best.checkpoint.empty() ? kNaN : r.record.best.value;
        default:
            return kNaN;
    }
}

QString RunsTableModel::fixedText(const Row& r, int fixed) const {
    const RunRecord& rec = r.record;
    switch (fixed) {
        case Run:
            return QString::fromStdString(rec.info.name.empty() ? rec.info.path : rec.info.name);
        case Host:
            if (!r.hostLabel.isEmpty()) return r.hostLabel;
            return rec.host.empty() ? tr("this computer") : QString::fromStdString(rec.host);
        case State:
            return QString::fromStdString(rec.info.state);
        case Steps:
            return rec.info.totalSteps > 0 ? tr("%1 / %2").arg(rec.info.step).arg(rec.info.totalSteps) : QString::number(rec.info.step);
        case Images:  // a count: every digit, grouped ("17,520", not "1.752e+04")
            return rec.images > 0 ? QLocale().toString(static_cast<qlonglong>(rec.images)) : QString();
        case WallTime:
            return durationText(rec.wallSeconds);
        case ImagesPerSecond:
            return std::isfinite(rec.imagesPerSecond) ? QString::number(rec.imagesPerSecond, 'f', 1) : QString();
        case Cost: {
            const double v = fixedNumber(r, Cost);
            return std::isfinite(v) ? QString("$%1").arg(v, 0, 'f', 2) : QString();
        }
        case BestCheckpoint: {
            if (rec.best.checkpoint.empty()) return {};
            QString name = QDir(QString::fromStdString(rec.best.checkpoint)).dirName();
            if (rec.best.metric.empty()) return name;
            return tr("%1 (%2 %3 @ %4)").arg(name, QString::fromStdString(rec.best.metric), numberText(rec.best.value)).arg(rec.best.step);
        }
        default:
            return numberText(fixedNumber(r, fixed));
    }
}

double RunsTableModel::outcomeNumber(const Row& r, const Column& c) const {
    const std::string name = c.name.toStdString();
    if (c.statistic == Statistic::AtBest) {
        const auto it = r.record.best.scalars.find(name);
        return it == r.record.best.scalars.end() ? kNaN : it->second;
    }
    const auto it = r.record.scalars.find(name);
    if (it == r.record.scalars.end() || it->second.count == 0) return kNaN;
    return c.statistic == Statistic::Min ? it->second.min : c.statistic == Statistic::Max ? it->second.max : it->second.last;
}

double RunsTableModel::number(int row, int column) const {
    const Row& r = rows_[row];
    const Column& c = columns_[column];
    switch (c.kind) {
        case Kind::Fixed:
            return fixedNumber(r, c.fixed);
        case Kind::Outcome:
            return outcomeNumber(r, c);
        case Kind::Setting:
            break;
    }
    const auto it = r.record.settings.find(c.name.toStdString());
    if (it == r.record.settings.end() || !it->is_number()) return kNaN;
    return it->get<double>();
}

QString RunsTableModel::text(int row, int column) const {
    const Row& r = rows_[row];
    const Column& c = columns_[column];
    if (c.kind == Kind::Fixed) return fixedText(r, c.fixed);
    if (c.kind == Kind::Outcome) return numberText(outcomeNumber(r, c));
    if (!r.record.settings.is_object()) return {};
    const auto it = r.record.settings.find(c.name.toStdString());
    return it == r.record.settings.end() ? QString() : settingText(*it);
}

QString RunsTableModel::toolTip(const Row& r, const Column& c) const {
    QStringList lines;
    if (c.kind == Kind::Fixed && c.fixed == Run) lines << QString::fromStdString(r.record.info.path);
    if (c.kind == Kind::Fixed && c.fixed == BestCheckpoint && !r.record.best.checkpoint.empty())
        lines << (r.hostLabel.isEmpty() ? tr("Double-click: open it in the checkpoint browser and the explorer")
                                        : tr("Double-click: download it from %1 and open it in the checkpoint browser and the explorer").arg(r.hostLabel));
    // A Slurm run: its job, and why it waits or how it ended (the cell keeps the bare state, which filters match).
    if (c.kind == Kind::Fixed && c.fixed == State && !r.record.info.slurmJob.empty())
        lines << (r.record.info.reason.empty()
                      ? tr("Slurm job %1").arg(QString::fromStdString(r.record.info.slurmJob))
                      : tr("Slurm job %1: %2").arg(QString::fromStdString(r.record.info.slurmJob), QString::fromStdString(r.record.info.reason)));
    if (c.kind == Kind::Outcome) {
        const auto it = r.record.scalars.find(c.name.toStdString());
        if (it != r.record.scalars.end() && it->second.count > 0)
            lines << tr("%1: last %2 (step %3), min %4 (step %5), max %6 (step %7)")
                         .arg(c.name, numberText(it->second.last))
                         .arg(it->second.lastStep)
                         .arg(numberText(it->second.min))
                         .arg(it->second.minStep)
                         .arg(numberText(it->second.max))
                         .arg(it->second.maxStep);
    }
    if (!r.record.problems.empty()) {
        lines << tr("Problems reading this run (the rest is shown):");
        for (const std::string& p : r.record.problems) lines << "• " + QString::fromStdString(p);
    }
    return lines.join('\n');
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size() || index.column() >= columns_.size()) return {};
    const Row& r = rows_[index.row()];
    const Column& c = columns_[index.column()];
    switch (role) {
        case Qt::DisplayRole:
            return text(index.row(), index.column());
        case Qt::ToolTipRole: {
            const QString tip = toolTip(r, c);
            return tip.isEmpty() ? QVariant() : QVariant(tip);
        }
        case Qt::TextAlignmentRole:
            if (c.kind == Kind::Outcome || (c.kind == Kind::Fixed && c.fixed >= Steps && c.fixed <= Cost)) return int(Qt::AlignRight | Qt::AlignVCenter);
            return {};
        case Qt::ForegroundRole:  // the Best checkpoint cell is a link (double-click opens it)
            if (c.kind == Kind::Fixed && c.fixed == BestCheckpoint && !r.record.best.checkpoint.empty()) return QApplication::palette().link();
            return {};
        case Qt::FontRole:
            if (c.kind == Kind::Fixed && c.fixed == BestCheckpoint && !r.record.best.checkpoint.empty()) {
                QFont f;
                f.setUnderline(true);
                return f;
            }
            return {};
        case Qt::DecorationRole:
            if (c.kind == Kind::Fixed && c.fixed == Run && !r.record.problems.empty()) return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
            return {};
        case RunsTableRoles::NumberRole: {
            const double v = number(index.row(), index.column());
            return std::isfinite(v) ? QVariant(v) : QVariant();
        }
        case RunsTableRoles::KeyRole:
            return r.key;
        case RunsTableRoles::ProblemsRole: {
            QStringList p;
            for (const std::string& s : r.record.problems) p << QString::fromStdString(s);
            return p.join('\n');
        }
        default:
            return {};
    }
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columns_.size()) return QAbstractTableModel::headerData(section, orientation, role);
    const Column& c = columns_[section];
    if (role == Qt::ToolTipRole) {
        if (c.kind == Kind::Setting) return tr("Setting %1").arg(c.name);
        if (c.kind == Kind::Outcome) return tr("%1: its %2 value (right-click the header to choose)").arg(c.name, statisticName(c.statistic));
        return {};
    }
    if (role != Qt::DisplayRole) return {};
    static const char* const titles[FixedCount] = {QT_TR_NOOP("Run"),   QT_TR_NOOP("Host"),   QT_TR_NOOP("State"),
                                                   QT_TR_NOOP("Steps"), QT_TR_NOOP("Images"), QT_TR_NOOP("Wall"),
                                                   QT_TR_NOOP("img/s"), QT_TR_NOOP("Cost"),   QT_TR_NOOP("Best checkpoint")};
    if (c.kind == Kind::Fixed) return tr(titles[c.fixed]);
    if (c.kind == Kind::Setting) return c.name;
    return tr("%1 (%2)").arg(c.name, statisticName(c.statistic));
}

QList<int> RunsTableModel::uniformSettingColumns(const QList<int>& rows) const {
    QList<int> out;
    for (int c = FixedCount; c < settingEnd_; ++c) {
        const std::string name = columns_[c].name.toStdString();
        bool same = true;
        for (int i = 1; same && i < rows.size(); ++i) {
            const nlohmann::json& a = rows_[rows[0]].record.settings;
            const nlohmann::json& b = rows_[rows[i]].record.settings;
            const auto ia = a.find(name), ib = b.find(name);
            same = (ia == a.end()) == (ib == b.end()) && (ia == a.end() || *ia == *ib);
        }
        if (same) out << c;
    }
    return out;
}

QString RunsTableModel::bestCheckpointPath(int row) const {
    const RunRecord& r = rows_[row].record;
    if (r.best.checkpoint.empty()) return {};
    QString ck = QString::fromStdString(r.best.checkpoint);
    if (QDir::isAbsolutePath(ck)) return ck;
    return QDir::cleanPath(QString::fromStdString(r.info.path) + "/" + ck);
}

}  // namespace streetgan::ui
