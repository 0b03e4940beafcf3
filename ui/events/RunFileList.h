// A run's sample grids (or other files named by step) as RunSeries keeps them for the whole run:
// (step, path) in the order the events came. A run followed for days writes hundreds of thousands
// of grids (one every 50 steps: 20,000 per million events), and a std::string path each cost ~90
// bytes a grid, the app's memory growing with the run (issue 48). Here a path that follows the
// list's naming rule, `prefix` + step + `suffix` ("samples/step_<N>.png", RunDirectory::samplePath
// and what the trainer logs), is not stored: it is made again when asked for, so an entry costs
// its step, 8 bytes. Any other path is kept as it came. GUI thread (plain value type).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "events/EventBatch.h"

namespace streetgan::ui {

class RunFileList {
public:
    /// Paths `prefix` + step + `suffix` are made from the step instead of kept.
    RunFileList(std::string prefix, std::string suffix) : prefix_(std::move(prefix)), suffix_(std::move(suffix)) {}

    void push_back(const RunFileRef& ref);
    size_t size() const { return steps_.size(); }
    bool empty() const { return steps_.empty(); }
    int64_t step(size_t i) const { return steps_[i]; }
    std::string path(size_t i) const;
    RunFileRef operator[](size_t i) const { return RunFileRef{steps_[i], path(i)}; }
    RunFileRef back() const { return (*this)[size() - 1]; }
    /// Paths kept as they came (not of the naming rule).
    size_t otherPaths() const { return others_.size(); }
    /// Approximate bytes held.
    size_t memoryBytes() const;

private:
    bool follows(const std::string& path, int64_t step) const;

    std::string prefix_, suffix_;
    std::vector<int64_t> steps_;
    /// (index, path) of the entries whose path does not follow the rule, by index.
    std::vector<std::pair<size_t, std::string>> others_;
};

}  // namespace streetgan::ui
