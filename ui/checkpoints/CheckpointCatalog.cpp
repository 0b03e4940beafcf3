#include "checkpoints/CheckpointCatalog.h"

#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardRun.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <utility>

#include "base/remote/SftpClient.h"
#include "base/run/CheckpointName.h"
#include "base/run/Events.h"
#include "base/util/Errors.h"
#include "events/RunSeries.h"

namespace streetgan::ui {

namespace {

qint64 orUnknown(const std::optional<int64_t>& v) { return v ? static_cast<qint64>(*v) : -1; }

}  // namespace

QString CheckpointInfo::name() const { return QFileInfo(path).fileName(); }

QDateTime CheckpointInfo::savedAt() const {
    if (std::isfinite(time)) return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(time * 1000.0));
    return modified;
}

qint64 CheckpointCatalog::epochFromName(const QString& fileName) {
    const auto name = CheckpointName::parse(fileName.toStdString());
    return name ? static_cast<qint64>(name->epoch) : -1;
}

qint64 CheckpointCatalog::stepFromName(const QString& fileName) {
    const auto name = CheckpointName::parse(fileName.toStdString());
    return name && name->step ? static_cast<qint64>(*name->step) : -1;
}

void CheckpointCatalog::addEventLine(std::string_view line) {
    if (line.empty() || line.front() != '{') return;
    // One reader per thread, kept across calls (it reuses its buffers); the catalog itself stays
    // a copyable value.
    thread_local EventReader reader;
    const ParsedEvent parsed = reader.read(line);
    if (!parsed.ok()) return;
    if (const auto* m = std::get_if<MetricsEvent>(&parsed.event)) {
        last_.step = orUnknown(m->step);
        last_.lossD = m->lossD;
        last_.lossG = m->lossG;
        last_.dX = m->dX;
        last_.dGz = m->dGz1;
    } else if (const auto* q = std::get_if<MetricEvent>(&parsed.event)) {
        if (q->step && q->swd && std::isfinite(*q->swd)) {
            swdByStep_.insert(*q->step, *q->swd);
            if (const auto it = pathOfStep_.constFind(*q->step); it != pathOfStep_.constEnd()) touched_.insert(*it);
        }
    } else if (const auto* ck = std::get_if<CheckpointEvent>(&parsed.event)) {
        if (ck->path.empty()) return;  // no path (or not a string): nothing to match a file with
        CheckpointInfo c;
        c.relativePath = QString::fromStdString(ck->path);
        c.step = orUnknown(ck->step);
        c.epoch = orUnknown(ck->epoch);
        c.time = ck->t;
        // A checkpoint of the same epoch overwrites the file: the latest event describes it.
        if (last_.step >= 0 && (c.step < 0 || last_.step <= c.step)) {
            c.lossD = last_.lossD;
            c.lossG = last_.lossG;
            c.dX = last_.dX;
            c.dGz = last_.dGz;
        }
        byPath_.insert(c.relativePath, c);
        touched_.insert(c.relativePath);
        unscanned_ << c.relativePath;
        if (c.step >= 0) pathOfStep_.insert(c.step, c.relativePath);
        ++events_;
    }
}

qint64 CheckpointCatalog::readEvents(const QString& eventsPath, qint64 fromOffset) {
    QFile f(eventsPath);
    if (!f.exists()) return fromOffset;
    if (!f.open(QIODevice::ReadOnly))
        throw IoError("cannot read '" + eventsPath.toStdString() + "' (" + f.errorString().toStdString() + "): check its permissions");
    if (fromOffset > 0 && !f.seek(fromOffset)) return fromOffset;
    qint64 offset = fromOffset;
    QByteArray carry;
    constexpr qint64 kChunk = 1 << 20;
    while (true) {
        const QByteArray chunk = f.read(kChunk);
        if (chunk.isEmpty()) break;
        carry += chunk;
        qsizetype start = 0;
        for (qsizetype nl = carry.indexOf('\n', start); nl >= 0; nl = carry.indexOf('\n', start)) {
            addEventLine(std::string_view(carry.constData() + start, static_cast<size_t>(nl - start)));
            start = nl + 1;
        }
        offset += start;
        carry.remove(0, start);  // a torn last line waits for the next read
    }
    return offset;
}

void CheckpointCatalog::scanLocal(const QString& runDir) {
    remote_ = false;
    unscanned_.clear();
    QHash<QString, FileEntry> found;
    if (!QFileInfo::exists(runDir + "/events.jsonl") && TensorBoardRun::isRun(runDir.toStdString())) {
        // Another trainer's TensorBoard run: its torch.save checkpoints, wherever it keeps them.
        LocalEventFiles files;
        for (const auto& f : TensorBoardRun::checkpoints(files, runDir.toStdString())) {
            const QString rel = QDir::cleanPath(QString::fromStdString(f.path));
            found.insert(rel, FileEntry{QDir::cleanPath(runDir + "/" + rel), static_cast<qint64>(f.size), QDateTime::fromSecsSinceEpoch(f.mtime)});
        }
    } else {
        const QDir dir(runDir + "/checkpoints");
        const auto entries = dir.entryInfoList({"checkpoint_*.pt"}, QDir::Files);
        for (const QFileInfo& fi : entries) {
            if (epochFromName(fi.fileName()) < 0) continue;  // temp names of a save in progress
            found.insert("checkpoints/" + fi.fileName(), FileEntry{fi.absoluteFilePath(), fi.size(), fi.lastModified()});
        }
    }
    replaceFiles(std::move(found));
}

// The files a scan found replace the earlier ones: those gone, new or changed are the changes.
void CheckpointCatalog::replaceFiles(QHash<QString, FileEntry> found) {
    for (auto it = files_.constBegin(); it != files_.constEnd(); ++it) {
        const auto now = found.constFind(it.key());
        if (now == found.constEnd()) {
            removed_ << it->path;
            touched_.remove(it.key());
        } else if (now->size != it->size || now->modified != it->modified || now->path != it->path) {
            touched_.insert(it.key());
        }
    }
    for (auto it = found.constBegin(); it != found.constEnd(); ++it)
        if (!files_.contains(it.key())) touched_.insert(it.key());
    files_ = std::move(found);
}

void CheckpointCatalog::scanNew(const QString& runDir) {
    remote_ = false;
    for (const QString& rel : std::exchange(unscanned_, {})) {
        // scanLocal()'s files only: checkpoint_<epoch>[_step<step>].pt right in checkpoints/
        if (!rel.startsWith(QLatin1String("checkpoints/")) || rel.count('/') != 1 || epochFromName(QFileInfo(rel).fileName()) < 0) continue;
        const QFileInfo fi(runDir + "/" + rel);
        if (fi.isFile()) {
            files_.insert(rel, FileEntry{fi.absoluteFilePath(), fi.size(), fi.lastModified()});
            touched_.insert(rel);
        } else if (const auto it = files_.constFind(rel); it != files_.constEnd()) {
            removed_ << it->path;
            touched_.remove(rel);
            files_.erase(it);
        }
    }
}

void CheckpointCatalog::setRemote(const QString& runDir, const RunSeries& series, const std::vector<RemoteFileInfo>& files) {
    remote_ = true;
    files_.clear();
    byPath_.clear();
    for (const auto& f : files) {
        const QString name = QString::fromStdString(f.name);
        if (name.contains('/')) {  // a TensorBoard run's checkpoint, relative to the run (RemoteCheckpointFetcher)
            files_.insert(QDir::cleanPath(name),
                          FileEntry{QDir::cleanPath(runDir + "/" + name), static_cast<qint64>(f.size), QDateTime::fromSecsSinceEpoch(f.mtime)});
            continue;
        }
        if (epochFromName(name) < 0) continue;
        files_.insert("checkpoints/" + name, FileEntry{runDir + "/checkpoints/" + name, static_cast<qint64>(f.size), QDateTime::fromSecsSinceEpoch(f.mtime)});
    }
    // The attach stream keeps checkpoints as (step, path) and their losses apart, exact: past
    // RunSeries::kMaxRows the metrics rows are min/max buckets, so searching the rows for the last
    // one at or before the step would give a bucket's extreme, not the losses at save time.
    const auto& refs = series.checkpoints();
    const auto& losses = series.checkpointMetrics();
    swdByStep_.clear();
    for (const auto& [step, swd] : series.swdBySteps()) swdByStep_.insert(step, swd);
    for (size_t i = 0; i < refs.size(); ++i) {
        const auto& ref = refs[i];
        CheckpointInfo c;
        c.relativePath = QString::fromStdString(ref.path);
        c.step = ref.step;
        c.epoch = epochFromName(QFileInfo(c.relativePath).fileName());
        if (i < losses.size() && losses[i].t != 0) {  // t 0: no metrics event came before it
            const auto& m = losses[i];
            c.lossD = m.lossD;
            c.lossG = m.lossG;
            c.dX = m.dX;
            c.dGz = m.dGz1;
            c.time = m.t;
        }
        byPath_.insert(c.relativePath, c);
        ++events_;
    }
}

CheckpointInfo CheckpointCatalog::rowOf(const QString& relativePath, const FileEntry& file) const {
    CheckpointInfo c = byPath_.value(relativePath);
    c.relativePath = relativePath;
    c.path = file.path;
    c.size = file.size;
    c.modified = file.modified;
    c.remote = remote_;
    if (c.epoch < 0) c.epoch = epochFromName(QFileInfo(relativePath).fileName());
    if (c.step < 0) c.step = stepFromName(QFileInfo(relativePath).fileName());
    if (c.step >= 0) c.swd = swdByStep_.value(c.step, CheckpointInfo::kNaN);
    return c;
}

bool CheckpointCatalog::before(const CheckpointInfo& a, const CheckpointInfo& b) {
    if (a.epoch != b.epoch) return a.epoch < b.epoch;
    // An epoch's own file whose step no event gave is its epoch's last (CheckpointName's order).
    const auto sortStep = [](const CheckpointInfo& c) {
        return c.step >= 0 || !CheckpointName::parse(c.name().toStdString()) ? c.step : std::numeric_limits<qint64>::max();
    };
    const qint64 sa = sortStep(a), sb = sortStep(b);
    return sa != sb ? sa < sb : a.path < b.path;
}

QList<CheckpointInfo> CheckpointCatalog::rows() const {
    QList<CheckpointInfo> out;
    out.reserve(files_.size());
    for (auto it = files_.constBegin(); it != files_.constEnd(); ++it) out << rowOf(it.key(), *it);
    std::sort(out.begin(), out.end(), before);
    return out;
}

CheckpointCatalog::Changes CheckpointCatalog::takeChanges() {
    Changes out;
    for (const QString& rel : std::exchange(touched_, {}))
        if (const auto it = files_.constFind(rel); it != files_.constEnd()) out.rows << rowOf(rel, *it);  // an event without its file is no row
    std::sort(out.rows.begin(), out.rows.end(), before);
    out.removed = std::exchange(removed_, {});
    return out;
}

}  // namespace streetgan::ui
