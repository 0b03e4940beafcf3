#include "explorer/SessionModel.h"

#include <QUndoStack>
#include <algorithm>
#include <cmath>
#include <limits>

#include "base/latent/Easing.h"
#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "common/JsonFields.h"
#include "common/JsonText.h"
#include "explorer/KeyframeModel.h"
#include "explorer/SessionUndoCommand.h"

namespace streetgan::ui {
namespace {

// Merge keys of SessionUndoCommand: one per slider.
constexpr int kMergeTruncation = 1, kMergeDirection = 1000, kMergeRaw = 100000, kMergeNamed = 10000;

std::optional<Easing::Kind> easingNamed(const QString& name) {
    try {
        return Easing::parse(name.toStdString());
    } catch (const ConfigError&) {
        return std::nullopt;
    }
}

}  // namespace

SessionModel::SessionModel(QObject* parent) : QObject(parent), json_(session_.toJson()), undo_(new QUndoStack(this)), keyframes_(new KeyframeModel(this)) {}

int SessionModel::frameCount() const { return static_cast<int>(std::min<int64_t>(session_.frameCount(), std::numeric_limits<int>::max())); }

bool SessionModel::hasUnsavedChanges() const { return !undo_->isClean(); }

void SessionModel::reset(const LatentSession& session) {
    undo_->clear();
    apply(session);
    undo_->setClean();
}

void SessionModel::save(const QString& path) {
    const QByteArray bytes = JsonText::write(json_, JsonText::Format::Indented);
    AtomicFile::write(path.toStdString(), bytes.constData(), static_cast<size_t>(bytes.size()));
    undo_->setClean();
}

void SessionModel::apply(const LatentSession& session) {
    session_ = session;
    json_ = session_.toJson();
    keyframes_->setKeyframes(session_.keyframes);
    emit changed();
}

bool SessionModel::edit(const QString& text, const std::function<void(LatentSession&)>& change, int mergeKey, bool dragging) {
    LatentSession after = session_;
    change(after);
    if (after.toJson() == json_) return false;
    if (!dragging) ++dragSerial_;  // a click or a key press is a step of its own
    undo_->push(new SessionUndoCommand([this](const LatentSession& s) { apply(s); }, session_, std::move(after), text, mergeKey, dragSerial_));
    return true;
}

// ---------------------------------------------------------------------------------------------
// Keyframes

void SessionModel::insertSeedKeyframe(int at, qint64 seed) {
    if (seed < 0) return;  // session seeds are 0..2^63-1
    edit(tr("Add keyframe (seed %1)").arg(seed), [&](LatentSession& s) {
        SessionKeyframe k;
        k.seed = static_cast<uint64_t>(seed);
        s.keyframes.insert(s.keyframes.begin() + std::clamp(at, 0, static_cast<int>(s.keyframes.size())), k);
    });
}

bool SessionModel::moveKeyframe(int from, int to) {
    const int n = static_cast<int>(session_.keyframes.size());
    if (from < 0 || from >= n || to < 0 || to >= n) return false;
    edit(tr("Move keyframe"), [&](LatentSession& s) {
        const SessionKeyframe k = s.keyframes[static_cast<size_t>(from)];
        s.keyframes.erase(s.keyframes.begin() + from);
        s.keyframes.insert(s.keyframes.begin() + to, k);
    });
    return true;
}

bool SessionModel::duplicateKeyframe(int row) {
    if (row < 0 || row >= static_cast<int>(session_.keyframes.size())) return false;
    return edit(tr("Duplicate keyframe"), [&](LatentSession& s) {
        const SessionKeyframe k = s.keyframes[static_cast<size_t>(row)];
        s.keyframes.insert(s.keyframes.begin() + row + 1, k);
    });
}

bool SessionModel::removeKeyframe(int row) {
    if (row < 0 || row >= static_cast<int>(session_.keyframes.size()) || session_.keyframes.size() == 1) return false;
    return edit(tr("Delete keyframe"), [&](LatentSession& s) { s.keyframes.erase(s.keyframes.begin() + row); });
}

bool SessionModel::setSegmentEasing(int row, const QString& name) {
    if (row < 0 || row >= static_cast<int>(session_.keyframes.size())) return false;
    const std::optional<Easing::Kind> kind = name.isEmpty() ? std::nullopt : easingNamed(name);
    if (!name.isEmpty() && !kind) return false;
    edit(tr("Segment %1 easing").arg(row + 1), [&](LatentSession& s) { s.keyframes[static_cast<size_t>(row)].easing = kind; });
    return true;
}

bool SessionModel::setSegmentTRange(int row, std::optional<WalkRule::TRange> range) {
    if (row < 0 || row >= static_cast<int>(session_.keyframes.size())) return false;
    const QString text = range ? tr("Segment %1 t %2 to %3").arg(row + 1).arg(range->start).arg(range->end) : tr("Segment %1 t: path's range").arg(row + 1);
    edit(text, [&](LatentSession& s) { s.keyframes[static_cast<size_t>(row)].tRange = range; });
    return true;
}

bool SessionModel::setKeyframeZ(int row, std::vector<double> z, int dim, double value, bool dragging) {
    if (row < 0 || row >= static_cast<int>(session_.keyframes.size()) || dim < 0 || dim >= static_cast<int>(z.size())) return false;
    z[static_cast<size_t>(dim)] = value;
    return edit(
        tr("z%1 of keyframe %2").arg(dim).arg(row + 1),
        [&](LatentSession& s) {
            SessionKeyframe& k = s.keyframes[static_cast<size_t>(row)];
            k.seed.reset();  // a seed keyframe becomes its vector (the easing stays)
            k.z = std::move(z);
        },
        kMergeRaw + dim, dragging);
}

// ---------------------------------------------------------------------------------------------
// Path and output

bool SessionModel::setInterpolation(const QString& name) {
    if (name != "slerp" && name != "linear") return false;
    edit(tr("Interpolation %1").arg(name),
         [&](LatentSession& s) { s.interpolation = name == "slerp" ? WalkRule::Interpolation::Slerp : WalkRule::Interpolation::Linear; });
    return true;
}

bool SessionModel::setEasing(const QString& name) {
    const std::optional<Easing::Kind> kind = easingNamed(name);
    if (!kind) return false;
    edit(tr("Easing %1").arg(name), [&](LatentSession& s) { s.easing = *kind; });
    return true;
}

void SessionModel::setFramesPerSegment(int frames) {
    edit(tr("Frames per segment %1").arg(frames), [&](LatentSession& s) { s.framesPerSegment = frames; });
}

void SessionModel::setTRange(double start, double end) {
    edit(tr("t from %1 to %2").arg(start).arg(end), [&](LatentSession& s) { s.tRange = {start, end}; });
}

bool SessionModel::makeReferenceWalk(qint64 seedFrom, qint64 seedTo) {
    if (seedFrom < 0 || seedTo < 0) return false;  // session seeds are 0..2^63-1
    edit(tr("Reference walk (seeds %1, %2)").arg(seedFrom).arg(seedTo),
         [&](LatentSession& s) { s.makeReferenceWalk(static_cast<uint64_t>(seedFrom), static_cast<uint64_t>(seedTo)); });
    return true;
}

void SessionModel::setLoop(bool loop) {
    edit(loop ? tr("Closed loop") : tr("Open path"), [&](LatentSession& s) { s.loop = loop; });
}

void SessionModel::setSize(int pixels) {
    edit(tr("Size %1 px").arg(pixels), [&](LatentSession& s) { s.size = pixels; });
}

bool SessionModel::setUpscale(const QString& name) {
    if (name != "nearest" && name != "smooth") return false;
    edit(tr("Upscale %1").arg(name),
         [&](LatentSession& s) { s.upscale = name == "smooth" ? LatentSession::Upscale::Smooth : LatentSession::Upscale::Nearest; });
    return true;
}

void SessionModel::setTargetFps(double fps) {
    if (fps <= 0) return;
    const int delay = std::clamp(static_cast<int>(std::lround(1000.0 / fps)), 10, 60000);
    edit(tr("Frame rate %1 fps").arg(fps, 0, 'f', 1), [&](LatentSession& s) { s.frameDelayMs = delay; });
}

void SessionModel::setExportOptions(const LatentSession& chosen) {
    edit(tr("Export settings"), [&](LatentSession& s) {
        s.size = chosen.size;
        s.frameDelayMs = chosen.frameDelayMs;
        s.gifPerFramePalette = chosen.gifPerFramePalette;
        s.gifDithering = chosen.gifDithering;
        s.gifLoopCount = chosen.gifLoopCount;
        s.gifSpeed = chosen.gifSpeed;
        s.upscale = chosen.upscale;
        s.nrow = chosen.nrow;
        s.padding = chosen.padding;
        s.framesPerSegment = chosen.framesPerSegment;
        s.loop = chosen.loop;
    });
}

// ---------------------------------------------------------------------------------------------
// Sliders

void SessionModel::setTruncation(double psi, bool dragging) {
    edit(
        tr("Truncation %1").arg(psi, 0, 'f', 2), [&](LatentSession& s) { s.truncation = psi; }, kMergeTruncation, dragging);
}

void SessionModel::setDirection(int index, double amount, bool dragging) {
    edit(
        tr("Direction %1: %2 σ").arg(index).arg(amount, 0, 'f', 2),
        [&](LatentSession& s) {
            auto& ds = s.directions;
            const auto it = std::find_if(ds.begin(), ds.end(), [&](const DirectionEdit& d) { return d.index == index; });
            if (amount == 0) {
                if (it != ds.end()) ds.erase(it);  // an edit of 0 sigma is no edit: keep the list short
            } else if (it != ds.end()) {
                it->amount = amount;
            } else {
                ds.push_back(DirectionEdit{index, amount});
            }
        },
        kMergeDirection + index, dragging);
}

void SessionModel::setComponents(int k) {
    edit(tr("Top-%1 directions").arg(k), [&](LatentSession& s) {
        s.pcaComponents = k;
        auto& ds = s.directions;  // the validator refuses indices >= k
        ds.erase(std::remove_if(ds.begin(), ds.end(), [&](const DirectionEdit& d) { return d.index >= k; }), ds.end());
    });
}

QList<int> SessionModel::rawDims(int nz) const {
    QList<int> dims;
    const nlohmann::json& v = JsonFields::at(session_.extra, kRawDimsKey);
    if (!v.is_array()) return dims;
    for (const auto& d : v) {
        const int dim = JsonFields::asInt(d, -1);
        if (dim >= 0 && dim < nz) dims.append(dim);
    }
    return dims;
}

void SessionModel::addRawDimension(int dim) {
    edit(tr("Slider for z%1").arg(dim), [&](LatentSession& s) {
        nlohmann::json& dims = s.extra[kRawDimsKey];
        if (!dims.is_array()) dims = nlohmann::json::array();
        dims.push_back(dim);
    });
}

void SessionModel::removeRawDimension(int dim) {
    edit(tr("Remove slider z%1").arg(dim), [&](LatentSession& s) {
        nlohmann::json kept = nlohmann::json::array();
        const nlohmann::json& dims = JsonFields::at(s.extra, kRawDimsKey);
        if (dims.is_array())
            for (const auto& d : dims)
                if (JsonFields::asInt(d) != dim) kept.push_back(d);
        if (kept.empty())
            s.extra.erase(kRawDimsKey);
        else
            s.extra[kRawDimsKey] = kept;
    });
}

QHash<int, QString> SessionModel::directionNames() const {
    QHash<int, QString> names;
    const nlohmann::json& v = JsonFields::at(session_.extra, kDirectionNamesKey);
    if (!v.is_object()) return names;
    for (auto it = v.begin(); it != v.end(); ++it) {
        bool ok = false;
        const int index = QString::fromStdString(it.key()).toInt(&ok);
        if (ok && index >= 0 && it.value().is_string()) names.insert(index, QString::fromStdString(it.value().get<std::string>()));
    }
    return names;
}

void SessionModel::renameDirection(int index, const QString& name) {
    const QString trimmed = name.trimmed();
    edit(trimmed.isEmpty() ? tr("Unname direction %1").arg(index) : tr("Name direction %1 “%2”").arg(index).arg(trimmed), [&](LatentSession& s) {
        nlohmann::json& names = s.extra[kDirectionNamesKey];
        if (!names.is_object()) names = nlohmann::json::object();
        if (trimmed.isEmpty())
            names.erase(std::to_string(index));
        else
            names[std::to_string(index)] = trimmed.toStdString();
        if (names.empty()) s.extra.erase(kDirectionNamesKey);
    });
}

int SessionModel::addNamedDirections(const std::vector<NamedDirectionEdit>& directions) {
    int added = 0;
    edit(tr("Add %n named direction(s)", nullptr, static_cast<int>(directions.size())), [&](LatentSession& s) {
        for (const NamedDirectionEdit& d : directions) {
            auto it = std::find_if(s.namedDirections.begin(), s.namedDirections.end(), [&](const NamedDirectionEdit& e) { return e.name == d.name; });
            if (it != s.namedDirections.end()) {
                it->z = d.z;  // the same name learnt again: the new vector, the amount the user set
                continue;
            }
            s.namedDirections.push_back(d);
            ++added;
        }
    });
    return added;
}

void SessionModel::setNamedAmount(int index, double amount, bool dragging) {
    if (index < 0 || index >= static_cast<int>(session_.namedDirections.size())) return;
    edit(
        tr("%1: %2").arg(QString::fromStdString(session_.namedDirections[static_cast<size_t>(index)].name)).arg(amount, 0, 'f', 2),
        [&](LatentSession& s) { s.namedDirections[static_cast<size_t>(index)].amount = amount; }, kMergeNamed + index, dragging);
}

void SessionModel::renameNamedDirection(int index, const QString& name) {
    const QString trimmed = name.trimmed();
    if (index < 0 || index >= static_cast<int>(session_.namedDirections.size()) || trimmed.isEmpty()) return;
    edit(tr("Rename direction “%1”").arg(trimmed), [&](LatentSession& s) { s.namedDirections[static_cast<size_t>(index)].name = trimmed.toStdString(); });
}

void SessionModel::removeNamedDirection(int index) {
    if (index < 0 || index >= static_cast<int>(session_.namedDirections.size())) return;
    edit(tr("Remove direction “%1”").arg(QString::fromStdString(session_.namedDirections[static_cast<size_t>(index)].name)),
         [&](LatentSession& s) { s.namedDirections.erase(s.namedDirections.begin() + index); });
}

}  // namespace streetgan::ui
