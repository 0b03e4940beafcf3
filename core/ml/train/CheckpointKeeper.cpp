#include "ml/train/CheckpointKeeper.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <vector>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"

namespace fs = std::filesystem;

namespace streetgan {

CheckpointKeeper::CheckpointKeeper(const RunDirectory& dir, const TrainConfig& cfg)
    : dir_(dir), keep_(cfg.keepCheckpoints), best_(BestMetric::find(cfg.bestMetric)) {
    // No figures, no best: metrics off, or the default swd in a run whose --metrics leave it out.
    if (best_ && (cfg.metricEveryCheckpoints <= 0 || !BestMetric::computes(*best_, cfg.metrics))) best_ = nullptr;
}

std::string CheckpointKeeper::relative(const std::string& path) { return "checkpoints/" + fs::path(path).filename().string(); }

void CheckpointKeeper::resume(const std::string& path, int64_t step) {
    const auto name = CheckpointName::parse(fs::path(path).filename().string());
    if (name && !name->step) {
        resumedEpochFile_ = name;
        resumedStep_ = step;
    }
    readBestSoFar();
}

void CheckpointKeeper::readBestSoFar() {
    if (!best_ || !fs::exists(dir_.bestCheckpointPath())) return;
    std::ifstream in(dir_.events());
    EventReader reader;
    std::string line;
    // The last best event of this figure: an earlier one of another figure (best_metric changed on
    // resume) says nothing about this one, and the first figure measured now takes best.pt.
    while (std::getline(in, line)) {
        if (line.find("\"best\"") == std::string::npos) continue;  // most lines: not worth parsing
        const ParsedEvent parsed = reader.read(line);
        if (const auto* b = std::get_if<BestEvent>(&parsed.event); parsed.ok() && b && b->metric == best_->figure) bestValue_ = b->value;
    }
}

std::string CheckpointKeeper::pathFor(int64_t epoch, int64_t step, bool epochFile) {
    if (resumedEpochFile_ && resumedEpochFile_->epoch == epoch && !epochFile) {
        // The run ended inside this epoch and wrote the epoch's file; a newer checkpoint of the
        // epoch is coming, so that file takes its step name (resume's order: CheckpointName).
        const std::string from = dir_.checkpointsDir() + "/" + resumedEpochFile_->fileName();
        const std::string to = dir_.stepCheckpointPath(epoch, resumedStep_);
        if (fs::exists(from) && ::rename(from.c_str(), to.c_str()) != 0)
            throw IoError("cannot rename '" + from + "' to '" + to +
                          "' (the checkpoint this run resumed from, before a newer one of its epoch): " + AtomicFile::describeError(errno));
    }
    // Decided at the first checkpoint after the resume: a later one is of this process's making.
    resumedEpochFile_.reset();
    return epochFile ? dir_.checkpointPath(epoch) : dir_.stepCheckpointPath(epoch, step);
}

void CheckpointKeeper::written(int64_t step, int64_t epoch, const std::string& path, bool evaluating) {
    if (evaluating) awaited_[step] = Awaited{epoch, path};
}

std::optional<BestEvent> CheckpointKeeper::measured(const MetricEvent& m) {
    if (!m.step) return std::nullopt;
    const auto it = awaited_.find(*m.step);
    if (it == awaited_.end()) return std::nullopt;
    const Awaited ck = std::move(it->second);
    awaited_.erase(it);
    if (!best_) return std::nullopt;
    const std::optional<double> value = BestMetric::valueIn(*best_, m);
    if (!value || (bestValue_ && !BestMetric::better(*best_, *value, *bestValue_))) return std::nullopt;
    copyAtomically(ck.path, dir_.bestCheckpointPath());
    bestValue_ = value;
    BestEvent e;
    e.step = *m.step;
    e.epoch = ck.epoch;
    e.path = relative(dir_.bestCheckpointPath());
    e.source = relative(ck.path);
    e.metric = best_->figure;
    e.value = *value;
    return e;
}

int CheckpointKeeper::prune() {
    if (keep_ <= 0) return 0;
    std::vector<std::string> steps;  // the mid-epoch files, oldest first
    for (const std::string& path : dir_.checkpoints()) {
        const auto name = CheckpointName::parse(fs::path(path).filename().string());
        if (name && name->step) steps.push_back(path);
    }
    int removed = 0;
    for (size_t i = 0; i + static_cast<size_t>(keep_) < steps.size(); ++i) {
        const std::string& path = steps[i];
        const bool isAwaited = std::any_of(awaited_.begin(), awaited_.end(), [&](const auto& a) { return a.second.path == path; });
        std::error_code ec;
        // A file that cannot be deleted (permissions changed under the run) costs disk, not the run.
        if (!isAwaited && fs::remove(path, ec)) ++removed;
    }
    return removed;
}

void CheckpointKeeper::copyAtomically(const std::string& from, const std::string& to) {
    // AtomicFile's temporary form (NAME.tmp.<pid>.<n>): a kill between link and rename leaves a
    // name that the next run's removeStaleTemporaries deletes.
    const std::string tmp = to + ".tmp." + std::to_string(::getpid()) + ".0";
    ::unlink(tmp.c_str());
    if (::link(from.c_str(), tmp.c_str()) != 0) {
        if (errno == ENOENT) throw IoError("cannot keep '" + from + "' as the best checkpoint: it is gone (deleted while the run went on?)");
        // No hard links here (some network and FUSE file systems), or the link limit: a copy,
        // written as every run file is (temporary file, fsync, rename).
        AtomicFile::write(to, AtomicFile::read(from));
        return;
    }
    if (::rename(tmp.c_str(), to.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw IoError("cannot replace '" + to + "': " + AtomicFile::describeError(err));
    }
    const int dfd = ::open(fs::path(to).parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

}  // namespace streetgan
