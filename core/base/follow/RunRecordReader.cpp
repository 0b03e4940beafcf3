#include "base/follow/RunRecordReader.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <variant>

#include "base/run/Events.h"
#include "base/run/QualityMetric.h"
#include "base/run/TrainOption.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardFollower.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

using Progress = RunRecordReader::Progress;
constexpr std::size_t kChunkBytes = 4 << 20;  // events.jsonl is read in pieces of this size
constexpr std::size_t kMaxEventProblems = 8;  // lines of bad TensorBoard records kept per run
constexpr double kJoulesPerKwh = 3.6e6;
constexpr char kOurs[] = "ours";
constexpr char kTensorBoardKind[] = "tensorboard";

std::string shown(const nlohmann::json& v) {
    std::string s = v.dump();
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// What a config key's value must be, by its TrainOption's member type; "" when anything goes.
std::string typeWanted(const TrainOption::Spec& spec, const nlohmann::json& v) {
    return std::visit(
        [&](auto ref) -> std::string {
            using T = std::remove_reference_t<decltype(ref(std::declval<TrainConfig&>()))>;
            if constexpr (std::is_same_v<T, bool>) {
                return v.is_boolean() ? "" : "true or false";
            } else if constexpr (std::is_same_v<T, std::string>) {
                return v.is_string() ? "" : "a string";
            } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
                const bool ok = v.is_array() && std::all_of(v.begin(), v.end(), [](const nlohmann::json& e) { return e.is_string(); });
                return ok ? "" : "a list of strings";
            } else if constexpr (std::is_same_v<T, std::array<double, 2>>) {
                const bool ok = v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number();
                return ok ? "" : "a pair of numbers";
            } else {
                return v.is_number() ? "" : "a number";
            }
        },
        spec.member);
}

// run.json's top-level facts kept as settings under their own keys, and what each must be.
struct Fact {
    const char* key;
    bool text;  ///< a string, else a whole number
};
constexpr Fact kFacts[] = {{"device", true},      {"data_source", true},  {"version", true},
                           {"world_size", false}, {"total_steps", false}, {"steps_per_epoch", false}};

void settingsOf(const nlohmann::json& run, Progress& p) {
    auto problem = [&](const std::string& line) { p.runJsonProblems.push_back("run.json: " + line); };
    for (auto it = run.begin(); it != run.end(); ++it) {
        const std::string& key = it.key();
        const nlohmann::json& v = *it;
        if (key == "config") {
            if (!v.is_object()) {
                problem("'config' is " + shown(v) + ", not an object: the run's settings are unknown");
                continue;
            }
            for (auto c = v.begin(); c != v.end(); ++c) {
                // A config key of another version (older, newer) is still the run's setting.
                if (const TrainOption::Spec* spec = TrainOption::find(c.key())) {
                    const std::string wanted = typeWanted(*spec, *c);
                    if (!wanted.empty()) problem("'" + c.key() + "' is " + shown(*c) + ", not " + wanted);
                }
                // A top-level fact of the same name ("device": the one the run got, not "auto") wins.
                if (!run.contains(c.key())) p.runJsonSettings[c.key()] = *c;
            }
        } else if (key == "host") {
            if (v.is_string())
                p.host = v.get<std::string>();
            else
                problem("'host' is " + shown(v) + ", not a string");
        } else if (key == "start_time") {
            if (v.is_number())
                p.runJsonStart = v.get<double>();
            else
                problem("'start_time' is " + shown(v) + ", not a number");
        } else if (key == "resumes") {
            if (v.is_array())
                p.runJsonSettings["resumes"] = v.size();
            else
                problem("'resumes' is " + shown(v) + ", not a list");
        } else if (key == "distributed" && v.is_object()) {  // {"backend", "global_batch"}
            for (auto d = v.begin(); d != v.end(); ++d) p.runJsonSettings["distributed." + d.key()] = *d;
        } else {
            const auto fact = std::find_if(std::begin(kFacts), std::end(kFacts), [&](const Fact& f) { return key == f.key; });
            if (fact == std::end(kFacts))
                problem("unknown key '" + key + "' (kept as a setting)");
            else if (fact->text ? !v.is_string() : !v.is_number_integer())
                problem("'" + key + "' is " + shown(v) + ", not " + (fact->text ? "a string" : "a whole number"));
            p.runJsonSettings[key] = v;
        }
    }
}

void readRunJson(const std::string& runDir, Progress& p) {
    const std::string path = runDir + "/run.json";
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (p.runJsonSize == -1 && !p.runJsonProblems.empty()) return;  // still missing
        p.runJsonSettings = nlohmann::json::object();
        p.host.clear();
        p.runJsonStart = 0;
        p.runJsonProblems = {"run.json: missing (a run of an older trainer, or not started): its settings are unknown"};
        p.runJsonSize = -1;
        return;
    }
    const int64_t mtime = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    if (mtime == p.runJsonMtimeNs && int64_t(st.st_size) == p.runJsonSize && uint64_t(st.st_ino) == p.runJsonInode) return;
    p.runJsonMtimeNs = mtime;
    p.runJsonSize = int64_t(st.st_size);
    p.runJsonInode = uint64_t(st.st_ino);
    p.runJsonSettings = nlohmann::json::object();
    p.host.clear();
    p.runJsonStart = 0;
    p.runJsonProblems.clear();
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json run = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (run.is_discarded()) {
        p.runJsonProblems.emplace_back("run.json: not valid JSON (cut short or edited by hand?): its settings are unknown");
        return;
    }
    if (!run.is_object()) {
        p.runJsonProblems.push_back("run.json: a JSON " + std::string(run.type_name()) + ", not an object: its settings are unknown");
        return;
    }
    settingsOf(run, p);
}

void addScalar(RunRecord& r, Progress& p, const std::string& name, double v, int64_t step) {
    if (!std::isfinite(v)) return;
    r.scalars[name].add(v, step);
    auto& h = p.history[name];
    h.emplace_back(step, v);
    if (h.size() > RunRecordReader::kHistory) h.pop_front();
}

void foldTime(double t, Progress& p) {
    if (!std::isfinite(t)) return;
    p.firstT = std::isnan(p.firstT) ? t : std::min(p.firstT, t);
    p.lastT = std::isnan(p.lastT) ? t : std::max(p.lastT, t);
}

void foldMetrics(const MetricsEvent& m, RunRecord& r, Progress& p) {
    const int64_t step = m.step.value_or(p.lastStep);
    for (const auto& spec : TrainingScalar::all()) addScalar(r, p, spec.field, m[spec.key], step);
    for (const auto& [tag, v] : m.scalars) addScalar(r, p, tag, v, step);
    if (std::isfinite(m.imgPerS)) {
        p.imgPerSSum += m.imgPerS;
        ++p.imgPerSCount;
    }
}

// Every quality figure of the registry (a figure the event struct does not name is in its extra).
void foldMetric(const MetricEvent& e, RunRecord& r, Progress& p) {
    const nlohmann::json j = e;
    const int64_t step = e.step.value_or(p.lastStep);
    for (const auto& spec : QualityMetric::all())
        for (const char* figure : spec.figures)
            if (const auto it = j.find(figure); it != j.end() && it->is_number()) addScalar(r, p, figure, it->get<double>(), step);
}

void foldBest(const BestEvent& b, RunRecord& r, const Progress& p) {
    r.best = RunRecord::Best();
    r.best.checkpoint = b.path;
    r.best.source = b.source.value_or("");
    r.best.metric = b.metric;
    r.best.value = b.value;
    r.best.step = b.step.value_or(p.lastStep);
    for (const auto& [name, values] : p.history) {
        // The last logged at or before the best step (a resumed run logs some steps twice: the later wins).
        const auto it = std::find_if(values.rbegin(), values.rend(), [&](const auto& sv) { return sv.first <= r.best.step; });
        if (it != values.rend()) r.best.scalars[name] = it->second;
    }
}

void foldSystem(const SystemEvent& s, Progress& p) {
    if (!s.energyJ || !std::isfinite(*s.energyJ)) return;
    if (!std::isnan(p.energyLast) && *s.energyJ < p.energyLast) p.energyDone += p.energyLast;  // a new trainer process counts from 0
    p.energyLast = *s.energyJ;
}

void foldEvent(const Event& ev, RunRecord& r, Progress& p) {
    const EventStamp stamp = stampOf(ev);
    foldTime(stamp.t, p);
    if (stamp.step) p.lastStep = *stamp.step;
    if (const auto* m = std::get_if<MetricsEvent>(&ev))
        foldMetrics(*m, r, p);
    else if (const auto* metric = std::get_if<MetricEvent>(&ev))
        foldMetric(*metric, r, p);
    else if (const auto* best = std::get_if<BestEvent>(&ev))
        foldBest(*best, r, p);
    else if (const auto* system = std::get_if<SystemEvent>(&ev))
        foldSystem(*system, p);
}

// The fold starts over (a replaced or cut file); what RunStatus and run.json gave is kept.
void resetFold(RunRecord& r, Progress& p) {
    Progress fresh;
    fresh.status = p.status;
    fresh.started = p.started;
    fresh.runJsonMtimeNs = p.runJsonMtimeNs;
    fresh.runJsonSize = p.runJsonSize;
    fresh.runJsonInode = p.runJsonInode;
    fresh.runJsonSettings = std::move(p.runJsonSettings);
    fresh.host = std::move(p.host);
    fresh.runJsonStart = p.runJsonStart;
    fresh.runJsonProblems = std::move(p.runJsonProblems);
    p = std::move(fresh);
    RunInfo info = std::move(r.info);
    r = RunRecord();
    r.info = std::move(info);
}

void readEvents(const std::string& runDir, RunRecord& r, Progress& p) {
    const std::string path = runDir + "/events.jsonl";
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (p.offset > 0) resetFold(r, p);
        return;
    }
    const auto size = uint64_t(st.st_size);
    if (p.offset > 0 && (uint64_t(st.st_ino) != p.inode || size < p.offset)) resetFold(r, p);
    p.inode = uint64_t(st.st_ino);
    if (size <= p.offset) return;
    std::ifstream in(path, std::ios::binary);
    in.seekg(std::streamoff(p.offset));
    EventReader reader;
    std::string text;
    std::string chunk(kChunkBytes, '\0');
    while (in) {
        in.read(chunk.data(), std::streamsize(chunk.size()));
        const auto got = std::size_t(in.gcount());
        if (got == 0) break;
        text.append(chunk.data(), got);
        std::size_t pos = 0;
        for (std::size_t nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1) {
            const std::string_view line = std::string_view(text).substr(pos, nl - pos);
            if (line.empty()) continue;
            const ParsedEvent parsed = reader.read(line);
            if (parsed.ok())
                foldEvent(parsed.event, r, p);
            else
                ++p.badLines;  // a torn line left by a crash, or one not of our schema
        }
        // Up to the last complete line: one still being written is read whole next time.
        p.offset += pos;
        p.bytesRead += pos;
        text.erase(0, pos);
    }
}

void foldHParams(std::vector<TfRecordReader::HParams> all, Progress& p) {
    for (auto& h : all) {
        for (auto& line : h.problems) p.eventProblems.push_back("hparams: " + line);
        if (h.kind != TfRecordReader::HParams::Kind::SessionStart) continue;
        for (auto it = h.values.begin(); it != h.values.end(); ++it) p.hparams[it.key()] = *it;
        if (p.hparamsStart == 0 && h.startTimeSecs > 0) p.hparamsStart = h.startTimeSecs;
    }
}

// One folder of a TensorBoard run ("" the run itself, else an hparams sub-folder) from its
// offset. False when the offset is no longer valid (its files were replaced or cut).
bool readTensorBoardFolder(EventFileSource& files, const std::string& runDir, const std::string& sub, RunRecord& r, Progress& p) {
    uint64_t& offset = p.tensorBoardOffsets[sub];
    std::unique_ptr<TensorBoardFollower> follower;
    try {
        follower = std::make_unique<TensorBoardFollower>(files, sub.empty() ? runDir : runDir + "/" + sub, offset, std::chrono::milliseconds(0));
    } catch (const ConfigError&) {
        return false;
    }
    follower->drain([&](const TensorBoardFollower::Item& item) {
        foldTime(stampOf(item.event).t, p);
        if (const auto* m = std::get_if<MetricsEvent>(&item.event)) {
            if (m->step) p.lastStep = *m->step;
            foldMetrics(*m, r, p);
        } else if (const auto* e = std::get_if<ErrorEvent>(&item.event)) {
            if (p.eventProblems.size() < kMaxEventProblems) p.eventProblems.push_back(e->message);
        }
    });
    foldHParams(follower->takeHParams(), p);
    p.bytesRead += follower->offset() - offset;
    offset = follower->offset();
    return true;
}

void readTensorBoard(EventFileSource& files, const std::string& runDir, RunRecord& r, Progress& p) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        std::vector<std::string> folders = {std::string()};
        try {
            const auto more = TensorBoardRun::hparamsFolders(files, runDir, files.list(runDir));
            folders.insert(folders.end(), more.begin(), more.end());
        } catch (const IoError& e) {
            p.eventProblems.emplace_back(e.what());
            return;
        }
        bool ok = true;
        for (const auto& sub : folders) ok = ok && readTensorBoardFolder(files, runDir, sub, r, p);
        if (ok) return;
        resetFold(r, p);  // replaced or cut: read afresh
    }
}

void finish(RunRecord& r, const Progress& p) {
    const bool tb = p.tensorBoard;
    r.kind = tb ? kTensorBoardKind : kOurs;
    r.settings = tb ? p.hparams : p.runJsonSettings;
    r.host = p.host;
    const double start = tb ? p.hparamsStart : p.runJsonStart;
    r.startTime = start > 0 ? start : (std::isnan(p.firstT) ? 0.0 : p.firstT);
    r.wallSeconds = std::isnan(p.firstT) ? 0.0 : p.lastT - p.firstT;
    r.imagesPerSecond = p.imgPerSCount > 0 ? p.imgPerSSum / double(p.imgPerSCount) : ScalarStats::kNone;
    r.energyKwh = std::isnan(p.energyLast) ? ScalarStats::kNone : (p.energyDone + p.energyLast) / kJoulesPerKwh;
    r.images = 0;
    const auto batch = r.settings.find("batch");
    if (!tb && batch != r.settings.end() && batch->is_number()) {
        const auto world = r.settings.find("world_size");
        const int64_t ranks = world != r.settings.end() && world->is_number_integer() ? world->get<int64_t>() : 1;
        r.images = r.info.step * batch->get<int64_t>() * ranks;
    }
    r.problems = tb ? std::vector<std::string>() : p.runJsonProblems;
    r.problems.insert(r.problems.end(), p.eventProblems.begin(), p.eventProblems.end());
    if (p.badLines > 0)
        r.problems.push_back("events.jsonl: " + std::to_string(p.badLines) + " torn or unreadable line" + (p.badLines == 1 ? "" : "s") + " skipped");
}

}  // namespace

RunRecordReader::Progress::Progress() : firstT(ScalarStats::kNone), lastT(ScalarStats::kNone), energyLast(ScalarStats::kNone) {}

void RunRecordReader::readMore(const std::string& runDir, RunRecord& record, Progress& p) {
    RunStatus::readMore(runDir, record.info, p.status);
    const bool tb = record.info.state == TensorBoardRun::kState;
    if (p.started && tb != p.tensorBoard) {  // a TensorBoard run became one of ours, or back
        Progress fresh;
        fresh.status = p.status;
        p = std::move(fresh);
        RunInfo info = std::move(record.info);
        record = RunRecord();
        record.info = std::move(info);
    }
    p.tensorBoard = tb;
    p.bytesRead = 0;
    if (tb) {
        LocalEventFiles files;
        readTensorBoard(files, runDir, record, p);
    } else {
        readRunJson(runDir, p);
        readEvents(runDir, record, p);
    }
    p.started = true;
    finish(record, p);
}

void RunRecordReader::readTensorBoardMore(EventFileSource& files, const std::string& runDir, RunRecord& record, Progress& p) {
    RunStatus::readTensorBoardMore(files, runDir, record.info, p.status);
    p.tensorBoard = true;
    p.bytesRead = 0;
    readTensorBoard(files, runDir, record, p);
    p.started = true;
    finish(record, p);
}

RunRecord RunRecordReader::read(const std::string& runDir) {
    RunRecord r;
    Progress p;
    readMore(runDir, r, p);
    return r;
}

std::vector<RunRecord> RunRecordReader::list(const std::string& root) {
    std::vector<RunRecord> out;
    for (const std::string& d : RunStatus::runDirectories(root)) {
        out.push_back(read(d));
        out.back().info.name = RunStatus::listedName(root, d, out.back().info);
    }
    return out;
}

}  // namespace streetgan
