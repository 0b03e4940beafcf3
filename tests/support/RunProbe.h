// Looking at a trainer's run directory from outside, as the fault tests do: the daemon's pid and
// whether it lives, polling for a condition, AtomicFile's leftover temporaries, and the raw lines
// of events.jsonl (readEvents() in CliRunner.h skips bad lines; these checks must see them).
// Header-only; any thread.
#pragma once

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace streetgan::test {

/// The pid in RUN/trainer.pid (0 when none).
inline pid_t trainerPidOf(const std::string& runDir) {
    std::ifstream in(runDir + "/trainer.pid");
    long pid = 0;
    in >> pid;
    return static_cast<pid_t>(pid);
}

inline bool processAlive(pid_t pid) { return pid > 0 && ::kill(pid, 0) == 0; }

/// Polls `pred` every 20 ms until it holds or `seconds` pass; returns its last value.
inline bool waitUntil(const std::function<bool()>& pred, double seconds = 60) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
        if (pred()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return pred();
}

/// AtomicFile's temporaries (NAME.tmp.<pid>.<n>) in `dir` (file names; none when `dir` is missing).
inline std::vector<std::string> atomicTemporaries(const std::string& dir) {
    std::vector<std::string> found;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.find(".tmp.") != std::string::npos) found.push_back(name);
    }
    return found;
}

/// The pid a temporary's name carries (NAME.tmp.<pid>.<n>), 0 when it has none.
inline pid_t temporaryOwner(const std::string& name) {
    const size_t at = name.rfind(".tmp.");
    if (at == std::string::npos) return 0;
    return static_cast<pid_t>(std::atol(name.c_str() + at + 5));
}

/// events.jsonl as written, line by line.
struct RawEventLog {
    std::vector<nlohmann::json> events;  ///< every complete line, parsed (discarded when not JSON)
    std::vector<size_t> badLines;        ///< 1-based numbers of complete lines that are not JSON objects
    std::string tail;                    ///< bytes after the last newline (a line being written)
    size_t bytes = 0;
};

inline RawEventLog readRawEvents(const std::string& runDir) {
    std::ifstream in(runDir + "/events.jsonl", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    RawEventLog log;
    log.bytes = text.size();
    size_t start = 0, nl;
    for (size_t n = 1; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1, ++n) {
        nlohmann::json j = nlohmann::json::parse(text.substr(start, nl - start), nullptr, false);
        if (!j.is_object()) log.badLines.push_back(n);
        log.events.push_back(std::move(j));
    }
    log.tail = text.substr(start);
    return log;
}

/// The "step" of every metrics event, in file order.
inline std::vector<int64_t> metricsSteps(const std::vector<nlohmann::json>& events) {
    std::vector<int64_t> steps;
    for (const auto& e : events)
        if (e.is_object() && e.value("kind", "") == "metrics" && e.contains("step")) steps.push_back(e["step"].get<int64_t>());
    return steps;
}

}  // namespace streetgan::test
