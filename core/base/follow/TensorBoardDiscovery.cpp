#include "base/follow/TensorBoardDiscovery.h"

#include <algorithm>
#include <deque>
#include <map>

#include "base/follow/RunStatus.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

std::vector<std::string> parts(const std::string& rel) {
    std::vector<std::string> out;
    size_t from = 0;
    while (from <= rel.size() && !rel.empty()) {
        const size_t slash = rel.find('/', from);
        out.push_back(rel.substr(from, slash == std::string::npos ? std::string::npos : slash - from));
        if (slash == std::string::npos) break;
        from = slash + 1;
    }
    return out;
}

std::string join(const std::vector<std::string>& p, size_t n) {
    std::string out;
    for (size_t i = 0; i < n && i < p.size(); ++i) out += (i ? "/" : "") + p[i];
    return out;
}

// Trees that hold packages, not logs: searching them costs the budget and finds nothing a user
// would watch (a package's own test event files at most).
bool isPackageTree(const std::string& name, const std::vector<EventFileSource::Entry>& entries) {
    static const std::vector<std::string> names = {"node_modules", "site-packages", "dist-packages", "__pycache__"};
    if (std::find(names.begin(), names.end(), name) != names.end()) return true;
    for (const auto& e : entries)
        if ((!e.folder && e.name == "pyvenv.cfg") || (e.folder && e.name == "conda-meta")) return true;  // a venv, a conda env
    return false;
}

}  // namespace

const std::vector<std::string>& TensorBoardDiscovery::usualPlaces() {
    static const std::vector<std::string> places = {"runs", "logs", "lightning_logs", "tb_logs", "tensorboard", "outputs"};
    return places;
}

std::string TensorBoardDiscovery::watchFolderOf(const std::string& run) {
    const std::vector<std::string> p = parts(run);
    if (p.empty()) return run;
    const auto& places = usualPlaces();
    if (std::find(places.begin(), places.end(), p[0]) != places.end() && static_cast<int>(p.size()) - 1 <= RunStatus::kTensorBoardDepth) return p[0];
    size_t named = p.size();  // the folder that names the run: the reference's NAME of NAME/events
    if (named > 1 && p.back() == "events") --named;
    return join(p, named - 1);
}

TensorBoardDiscovery::Result TensorBoardDiscovery::find(EventFileSource& files, const std::string& home, const Limits& limits) {
    struct Node {
        std::string rel;
        int depthLeft;
        bool usual;  ///< a usual place or below one
    };
    Result result;
    std::map<std::string, int64_t> runs;  // run folder (relative) -> newest event file
    // Breadth first, the usual places' trees before the rest of home: the budget goes where logs are.
    std::deque<Node> usual, rest;
    const auto& places = usualPlaces();
    auto visit = [&](const Node& n, bool isHome) {
        std::vector<EventFileSource::Entry> entries;
        try {
            entries = files.list(n.rel.empty() ? home : home + "/" + n.rel);
        } catch (const IoError&) {
            if (isHome) throw;
            return;  // a folder we may not read is passed over
        }
        ++result.listed;
        if (TensorBoardRun::holdsOurRun(entries)) return;
        const size_t slash = n.rel.rfind('/');
        if (!isHome && isPackageTree(slash == std::string::npos ? n.rel : n.rel.substr(slash + 1), entries)) return;
        const auto events = TensorBoardRun::eventFiles(entries);
        if (!events.empty()) {
            int64_t newest = 0;
            for (const auto& e : events) newest = std::max(newest, e.mtime);
            // add_hparams' time.time() sub-folder is part of its parent run (TensorBoardRun).
            const bool hparams = !n.rel.empty() && TensorBoardRun::isHParamsFolderName(slash == std::string::npos ? n.rel : n.rel.substr(slash + 1));
            const std::string run = !hparams ? n.rel : slash == std::string::npos ? std::string() : n.rel.substr(0, slash);
            runs[run] = std::max(runs[run], newest);
        }
        if (n.depthLeft <= 0) return;
        for (const auto& e : entries) {
            if (!e.folder || e.name.empty() || e.name[0] == '.') continue;
            const std::string rel = n.rel.empty() ? e.name : n.rel + "/" + e.name;
            if (isHome && std::find(places.begin(), places.end(), e.name) != places.end())
                usual.push_back(Node{rel, limits.placeDepth, true});
            else if (n.usual)
                usual.push_back(Node{rel, n.depthLeft - 1, true});
            else
                rest.push_back(Node{rel, n.depthLeft - 1, false});
        }
    };
    visit(Node{"", limits.homeDepth, false}, true);
    for (std::deque<Node>* queue : {&usual, &rest})
        while (!queue->empty() && result.listed < limits.maxFolders) {
            const Node n = queue->front();
            queue->pop_front();
            visit(n, false);
        }
    result.cut = !usual.empty() || !rest.empty();

    std::map<std::string, Folder> byFolder;
    for (const auto& [run, newest] : runs) {
        const std::string watch = watchFolderOf(run);
        Folder& f = byFolder[watch];
        f.path = watch.empty() ? home : home + "/" + watch;
        f.runs.push_back(RunStatus::tensorBoardNameUnder(f.path, run.empty() ? home : home + "/" + run));
        f.newest = std::max(f.newest, newest);
    }
    for (auto& [watch, f] : byFolder) {
        std::sort(f.runs.begin(), f.runs.end());
        result.folders.push_back(std::move(f));
    }
    std::sort(result.folders.begin(), result.folders.end(),
              [](const Folder& a, const Folder& b) { return a.newest != b.newest ? a.newest > b.newest : a.path < b.path; });
    return result;
}

}  // namespace streetgan
