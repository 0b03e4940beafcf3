#include "base/follow/RunStatus.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "base/daemon/RunLock.h"
#include "base/run/Events.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardFollower.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace fs = std::filesystem;

namespace {
constexpr std::streamoff kTailBytes = 4 << 20;
// What readMore() holds of events.jsonl at a time.
constexpr uint64_t kReadChunk = 1 << 20;

// The members of `ls --json` (docs/attach-protocol.md, "ls"); state, step, total_steps, epoch,
// loss_d, loss_g and pid are named as in the events they come from.
constexpr char kName[] = "name";
constexpr char kRunPath[] = "path";
constexpr char kLastCheckpoint[] = "last_checkpoint";
constexpr char kUpdated[] = "updated";
constexpr char kError[] = "error";
constexpr char kRuns[] = "runs";
constexpr char kSlurmJob[] = "slurm_job";
constexpr char kReason[] = "reason";

// A TensorBoard run: the follower from where the last read stopped; what it reads folded in.
void readTensorBoard(EventFileSource& files, const std::string& runDir, RunInfo& info, RunReadProgress& p) {
    std::unique_ptr<TensorBoardFollower> follower;
    try {
        follower = std::make_unique<TensorBoardFollower>(files, runDir, p.tensorBoard ? p.offset : 0, std::chrono::milliseconds(0));
    } catch (const ConfigError&) {  // its files were replaced or cut: read afresh
        info = RunInfo();
        p = RunReadProgress();
        follower = std::make_unique<TensorBoardFollower>(files, runDir, 0, std::chrono::milliseconds(0));
    }
    follower->drain([&](const TensorBoardFollower::Item& item) {
        const EventStamp stamp = stampOf(item.event);
        if (!std::isnan(stamp.t)) info.updated = std::max(info.updated, stamp.t);
        if (const auto* m = std::get_if<MetricsEvent>(&item.event)) {
            if (m->step) info.step = *m->step;  // the last step (a restart may go back)
            if (!std::isnan(m->lossD)) info.lossD = m->lossD;
            if (!std::isnan(m->lossG)) info.lossG = m->lossG;
            for (const auto& [tag, v] : m->scalars) info.scalars[tag] = v;
        } else if (const auto* e = std::get_if<ErrorEvent>(&item.event)) {
            info.error = e->message;
        }
    });
    p.offset = follower->offset();
    p.tensorBoard = true;
    p.started = true;
    info.state = TensorBoardRun::kState;
}
}  // namespace

nlohmann::json RunInfo::toJson() const {
    namespace F = EventField;
    nlohmann::json j = {{kName, name},
                        {kRunPath, path},
                        {F::kState, state},
                        {F::kStep, step},
                        {F::kTotalSteps, totalSteps},
                        {F::kEpoch, epoch},
                        {F::kLossD, nullptr},
                        {F::kLossG, nullptr},
                        {kLastCheckpoint, lastCheckpoint},
                        {kUpdated, updated},
                        {F::kPid, pid}};
    if (lossD) j[F::kLossD] = *lossD;
    if (lossG) j[F::kLossG] = *lossG;
    if (!error.empty()) j[kError] = error;
    if (!slurmJob.empty()) j[kSlurmJob] = slurmJob;
    if (!reason.empty()) j[kReason] = reason;
    if (!scalars.empty()) {
        nlohmann::json values = nlohmann::json::object();
        for (const auto& [tag, v] : scalars) values[tag] = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
        j[EventField::kScalars] = std::move(values);
    }
    return j;
}

RunInfo RunInfo::fromJson(const nlohmann::json& j) {
    namespace F = EventField;
    RunInfo r;
    if (!j.is_object()) return r;
    const auto text = [&](const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const auto integer = [&](const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_number() ? it->get<int64_t>() : int64_t{0};
    };
    const auto number = [&](const char* key) -> std::optional<double> {
        const auto it = j.find(key);
        return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
    };
    r.name = text(kName);
    r.path = text(kRunPath);
    r.state = text(F::kState);
    r.step = integer(F::kStep);
    r.totalSteps = integer(F::kTotalSteps);
    r.epoch = integer(F::kEpoch);
    r.lossD = number(F::kLossD);
    r.lossG = number(F::kLossG);
    r.lastCheckpoint = text(kLastCheckpoint);
    r.updated = number(kUpdated).value_or(0.0);
    r.pid = integer(F::kPid);
    r.error = text(kError);
    r.slurmJob = text(kSlurmJob);
    r.reason = text(kReason);
    if (const auto it = j.find(F::kScalars); it != j.end() && it->is_object())
        for (auto v = it->begin(); v != it->end(); ++v)
            if (v->is_number()) r.scalars[v.key()] = v->get<double>();
    return r;
}

nlohmann::json RunStatus::listToJson(const std::vector<RunInfo>& runs) {
    nlohmann::json j = {{kRuns, nlohmann::json::array()}};
    for (const auto& r : runs) j[kRuns].push_back(r.toJson());
    return j;
}

std::vector<RunInfo> RunStatus::listFromJson(const nlohmann::json& j) {
    std::vector<RunInfo> runs;
    if (!j.is_object()) return runs;
    const auto it = j.find(kRuns);
    if (it == j.end() || !it->is_array()) return runs;
    for (const auto& r : *it) runs.push_back(RunInfo::fromJson(r));
    return runs;
}

bool RunStatus::isRunDirectory(const std::string& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir + "/run.json", ec) || fs::is_regular_file(dir + "/events.jsonl", ec) || fs::is_regular_file(dir + "/slurm.json", ec);
}

bool RunStatus::isAnyRun(const std::string& dir) { return isRunDirectory(dir) || TensorBoardRun::isRun(dir); }

std::string RunStatus::effectiveState(const std::string& lastStatus, bool alive) {
    if (lastStatus.empty()) return alive ? RunState::kRunning : RunState::kNew;
    if ((lastStatus == RunState::kRunning || lastStatus == RunState::kPaused) && !alive) return RunState::kCrashed;
    return lastStatus;
}

RunInfo RunStatus::read(const std::string& runDir) {
    RunInfo info;
    RunReadProgress progress;
    readMore(runDir, info, progress);
    return info;
}

void RunStatus::readMore(const std::string& runDir, RunInfo& info, RunReadProgress& p) {
    if (!isRunDirectory(runDir) && TensorBoardRun::isRun(runDir)) {
        if (info.name.empty()) {
            const fs::path dir = fs::path(runDir).lexically_normal();
            const fs::path named = dir.filename() == "events" && dir.has_parent_path() ? dir.parent_path() : dir;  // RUNS/NAME/events: NAME
            info.name = named.filename().string();
        }
        info.path = runDir;
        LocalEventFiles files;
        readTensorBoard(files, runDir, info, p);
        return;
    }
    if (p.tensorBoard) {  // it became one of our runs
        info = RunInfo();
        p = RunReadProgress();
    }
    struct stat st {};
    const std::string events = runDir + "/events.jsonl";
    const bool haveFile = ::stat(events.c_str(), &st) == 0;
    const auto size = haveFile ? static_cast<uint64_t>(st.st_size) : 0;
    if (p.started && (!haveFile || static_cast<uint64_t>(st.st_ino) != p.inode || size < p.offset)) {
        info = RunInfo();  // replaced or cut: read afresh
        p = RunReadProgress();
    }
    info.path = runDir;
    info.name = fs::path(runDir).filename().string();
    if (info.name.empty()) info.name = fs::path(runDir).parent_path().filename().string();
    const bool alive = RunLock::isHeld(runDir);
    info.pid = alive ? RunLock::recordedPid(runDir) : 0;

    std::ifstream in(events, std::ios::binary);
    if (in && size > p.offset) {
        bool cutTail = false;
        uint64_t from = p.offset;
        if (!p.started && size > static_cast<uint64_t>(kTailBytes)) {
            from = size - static_cast<uint64_t>(kTailBytes);
            cutTail = true;
        }
        in.seekg(static_cast<std::streamoff>(from));
        EventReader reader;
        const auto take = [&](std::string_view line) {
            const ParsedEvent parsed = reader.read(line);
            if (!parsed.ok()) return;  // a torn line left by a crash
            const EventStamp stamp = stampOf(parsed.event);
            if (!std::isnan(stamp.t)) info.updated = stamp.t;
            if (stamp.step) info.step = std::max(info.step, *stamp.step);
            if (stamp.epoch) info.epoch = *stamp.epoch;
            if (stamp.totalSteps) info.totalSteps = *stamp.totalSteps;
            if (const auto* status = std::get_if<StatusEvent>(&parsed.event)) {
                p.lastStatus = status->state;
                p.sawStatus = true;
            } else if (const auto* metrics = std::get_if<MetricsEvent>(&parsed.event)) {
                if (!std::isnan(metrics->lossD)) info.lossD = metrics->lossD;
                if (!std::isnan(metrics->lossG)) info.lossG = metrics->lossG;
            } else if (const auto* checkpoint = std::get_if<CheckpointEvent>(&parsed.event)) {
                info.lastCheckpoint = checkpoint->path;
            } else if (const auto* error = std::get_if<ErrorEvent>(&parsed.event)) {
                p.lastError = error->message;
            }
        };
        // In chunks of kReadChunk: a run followed while it logs fast grows by tens of MB between two
        // listings, and a buffer of all of it at once stayed in the app's heap (issue 48).
        uint64_t at = from;  // the file offset of text[0]
        std::string text;
        bool skipCut = cutTail;  // the first line of a tail is probably cut
        while (at + text.size() < size) {
            const size_t kept = text.size();
            text.resize(kept + static_cast<size_t>(std::min<uint64_t>(kReadChunk, size - at - kept)));
            in.read(text.data() + kept, static_cast<std::streamsize>(text.size() - kept));
            const auto got = static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0));
            text.resize(kept + got);
            if (got == 0) break;
            size_t pos = 0;
            if (skipCut) {
                const size_t nl = text.find('\n');
                if (nl == std::string::npos) continue;
                pos = nl + 1;
                skipCut = false;
            }
            for (size_t nl = 0; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1) take(std::string_view(text).substr(pos, nl - pos));
            text.erase(0, pos);
            at += pos;
        }
        // Up to the last complete line: a line still being written is read whole next time.
        p.offset = at;
        // A long run whose status line has scrolled out of the tail is running if it is alive.
        if (cutTail && !p.sawStatus) p.lastStatus = alive ? RunState::kRunning : RunState::kCrashed;
    }
    p.started = true;
    p.inode = haveFile ? static_cast<uint64_t>(st.st_ino) : 0;
    // A long run seen from its tail, whose status scrolled out: its state follows the lock.
    std::string last = p.lastStatus;
    if (!p.sawStatus && (last == RunState::kRunning || last == RunState::kCrashed)) last = alive ? RunState::kRunning : RunState::kCrashed;
    info.state = effectiveState(last, alive);
    // The last error event's message, only for a failed run (e.g. a refused control command is
    // not the run's failure).
    info.error = info.state == RunState::kFailed ? p.lastError : std::string();
}

std::vector<std::string> RunStatus::runDirectories(const std::string& root) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw IoError("'" + root + "' is not a folder: give the folder that holds your run directories");
    if (isRunDirectory(root)) return {root};
    std::vector<std::string> dirs;
    for (const auto& entry : fs::directory_iterator(root, fs::directory_options::skip_permission_denied, ec))
        if (entry.is_directory(ec) && isRunDirectory(entry.path().string())) dirs.push_back(entry.path().string());
    // Other trainers' TensorBoard runs, as TensorBoard finds them (our runs' tb/ copies are ours).
    LocalEventFiles files;
    for (const auto& rel : TensorBoardRun::find(files, root, kTensorBoardDepth)) dirs.push_back(rel.empty() ? root : root + "/" + rel);
    std::sort(dirs.begin(), dirs.end());
    return dirs;
}

std::string RunStatus::nameUnder(const std::string& root, const std::string& dir) {
    std::string r = root;
    while (r.size() > 1 && r.back() == '/') r.pop_back();
    if (dir.size() > r.size() + 1 && dir.compare(0, r.size(), r) == 0 && dir[r.size()] == '/') return dir.substr(r.size() + 1);
    std::string name = fs::path(dir).filename().string();
    return name.empty() ? fs::path(dir).parent_path().filename().string() : name;
}

std::string RunStatus::tensorBoardNameUnder(const std::string& root, const std::string& dir) {
    std::string d = dir;
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    const std::string tail = "/events";
    if (d.size() > tail.size() && d.compare(d.size() - tail.size(), tail.size(), tail) == 0) {
        std::string parent = d.substr(0, d.size() - tail.size());
        std::string r = root;
        while (r.size() > 1 && r.back() == '/') r.pop_back();
        if (parent != r) return nameUnder(root, parent);  // RUNS/NAME/events: NAME (not the root's own name)
    }
    return nameUnder(root, dir);
}

std::string RunStatus::listedName(const std::string& root, const std::string& dir, const RunInfo& info) {
    return info.state == TensorBoardRun::kState ? tensorBoardNameUnder(root, dir) : nameUnder(root, dir);
}

void RunStatus::readTensorBoardMore(EventFileSource& files, const std::string& runDir, RunInfo& info, RunReadProgress& progress) {
    readTensorBoard(files, runDir, info, progress);
    info.path = runDir;  // after: a read afresh starts from a blank RunInfo
}

std::vector<RunInfo> RunStatus::listTensorBoard(EventFileSource& files, const std::string& root) {
    std::vector<RunInfo> runs;
    for (const auto& rel : TensorBoardRun::find(files, root, kTensorBoardDepth)) {
        RunInfo r;
        r.path = rel.empty() ? root : root + "/" + rel;
        r.name = tensorBoardNameUnder(root, r.path);
        r.state = TensorBoardRun::kState;
        runs.push_back(std::move(r));
    }
    return runs;
}

std::vector<RunInfo> RunStatus::list(const std::string& root) {
    std::vector<RunInfo> runs;
    for (const auto& d : runDirectories(root)) {
        runs.push_back(read(d));
        runs.back().name = listedName(root, d, runs.back());
    }
    return runs;
}

}  // namespace streetgan
