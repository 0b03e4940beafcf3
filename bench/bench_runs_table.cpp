// The Runs table's reader over a folder of runs (bench/bench_runs_table.sh makes them): the first
// RunRecordCache::list (every events.jsonl read whole) and a second one (nothing new: only the
// locks, run.json's stat and each file's size), their milliseconds and bytes read, as one JSON line.
// Not a test: it asserts nothing.
// Usage: bench_runs_table ROOT
#include <chrono>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "base/follow/RunRecordCache.h"
#include "base/util/Errors.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: bench_runs_table ROOT\n";
        return 2;
    }
    using Clock = std::chrono::steady_clock;
    const auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
    try {
        streetgan::RunRecordCache cache;
        const auto t0 = Clock::now();
        const auto runs = cache.list(argv[1]);
        const auto t1 = Clock::now();
        const uint64_t firstBytes = cache.lastBytesRead();
        cache.list(argv[1]);
        const auto t2 = Clock::now();
        std::cout << nlohmann::json({{"bench", "runs_table_reader"},
                                     {"runs", runs.size()},
                                     {"first_ms", ms(t1 - t0)},
                                     {"first_bytes", firstBytes},
                                     {"second_ms", ms(t2 - t1)},
                                     {"second_bytes", cache.lastBytesRead()}})
                         .dump()
                  << std::endl;
    } catch (const streetgan::Error& e) {
        std::cerr << "bench_runs_table: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
