// RunStatusCache: the same answers as RunStatus::list, from reading only what each events.jsonl
// gained since the last list; a replaced file is read afresh, a removed run forgotten.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/follow/RunStatus.h"
#include "base/follow/RunStatusCache.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string metrics(int step) {
    return R"({"kind":"metrics","t":)" + std::to_string(1000 + step) + R"(,"step":)" + std::to_string(step) +
           R"(,"epoch":0,"loss_d":0.5,"loss_g":1.5,"total_steps":100})" + "\n";
}

void append(const std::string& file, const std::string& text) { std::ofstream(file, std::ios::app) << text; }

std::string logOf(const TempDir& root, const std::string& run) { return root / (run + "/events.jsonl"); }

void expectSame(const std::vector<RunInfo>& a, const std::vector<RunInfo>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].toJson(), b[i].toJson()) << a[i].name;
}

}  // namespace

TEST(RunStatusCache, ReadsOnlyWhatTheLogsGainedAndAgreesWithRunStatus) {
    TempDir root;
    for (const char* name : {"a", "b"}) {
        fs::create_directories(root / name);
        append(logOf(root, name), R"({"kind":"status","t":999,"state":"running"})"
                                  "\n" +
                                      metrics(1) + metrics(2));
    }
    RunStatusCache cache;
    expectSame(cache.list(root.path().string()), RunStatus::list(root.path().string()));
    const uint64_t first = cache.lastBytesRead();
    EXPECT_GT(first, 0u);

    // Nothing new: nothing read. One run grows: only its new bytes.
    cache.list(root.path().string());
    EXPECT_EQ(cache.lastBytesRead(), 0u);
    const std::string more = metrics(3) + R"({"kind":"status","t":1004,"state":"finished"})"
                                          "\n";
    append(logOf(root, "b"), more);
    const auto runs = cache.list(root.path().string());
    EXPECT_EQ(cache.lastBytesRead(), more.size());
    expectSame(runs, RunStatus::list(root.path().string()));
    EXPECT_EQ(runs[1].step, 3);
    EXPECT_EQ(runs[1].state, "finished");

    // A line still being written is read whole once it is complete.
    const std::string line = metrics(4);
    append(logOf(root, "a"), line.substr(0, 20));
    cache.list(root.path().string());
    append(logOf(root, "a"), line.substr(20));
    EXPECT_EQ(cache.list(root.path().string())[0].step, 4);

    // A replaced (shorter) file is read afresh; a removed run is gone.
    std::ofstream(logOf(root, "a"), std::ios::trunc) << metrics(9);
    fs::remove_all(root / "b");
    const auto after = cache.list(root.path().string());
    ASSERT_EQ(after.size(), 1u);
    EXPECT_EQ(after[0].step, 9);
    expectSame(after, RunStatus::list(root.path().string()));
}

// Growth of several MB between two listings (a run logging fast) is read in chunks, lines cut at
// every chunk boundary, with the same answer as a fresh read and the offset at the last whole line.
TEST(RunStatusCache, ManyMegabytesGainedAreReadInChunksWithTheSameAnswer) {
    TempDir root;
    fs::create_directories(root / "r");
    append(logOf(root, "r"), R"({"kind":"status","t":999,"state":"running"})"
                             "\n");
    RunStatusCache cache;
    cache.list(root.path().string());
    std::string grown;
    int step = 0;
    while (grown.size() < (5u << 20) + 12345) grown += metrics(++step);  // lines cross each 1 MiB boundary
    grown += R"({"kind":"status","t":99999,"state":"finished"})"
             "\n";
    const std::string torn = metrics(step + 1).substr(0, 30);  // a line still being written
    append(logOf(root, "r"), grown + torn);
    const auto runs = cache.list(root.path().string());
    EXPECT_EQ(cache.lastBytesRead(), grown.size());  // up to the last whole line
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].step, step);
    EXPECT_EQ(runs[0].state, "finished");
    expectSame(runs, RunStatus::list(root.path().string()));
    append(logOf(root, "r"), metrics(step + 1).substr(30));
    EXPECT_EQ(cache.list(root.path().string())[0].step, step + 1);  // the torn line, read whole
}
