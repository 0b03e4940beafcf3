#include "base/daemon/RunStatus.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "base/daemon/RunLock.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace fs = std::filesystem;

namespace {
constexpr std::streamoff kTailBytes = 4 << 20;
}

nlohmann::json RunInfo::toJson() const {
    nlohmann::json j = {{"name", name},   {"path", path},   {"state", state},
                        {"step", step},   {"total_steps", totalSteps}, {"epoch", epoch},
                        {"loss_d", nullptr}, {"loss_g", nullptr}, {"last_checkpoint", lastCheckpoint},
                        {"updated", updated}, {"pid", pid}};
    if (lossD) j["loss_d"] = *lossD;
    if (lossG) j["loss_g"] = *lossG;
    if (!error.empty()) j["error"] = error;
    return j;
}

bool RunStatus::isRunDirectory(const std::string& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir + "/run.json", ec) || fs::is_regular_file(dir + "/events.jsonl", ec);
}

std::string RunStatus::effectiveState(const std::string& lastStatus, bool alive) {
    if (lastStatus.empty()) return alive ? "running" : "new";
    if ((lastStatus == "running" || lastStatus == "paused") && !alive) return "crashed";
    return lastStatus;
}

RunInfo RunStatus::read(const std::string& runDir) {
    RunInfo info;
    info.path = runDir;
    info.name = fs::path(runDir).filename().string();
    if (info.name.empty()) info.name = fs::path(runDir).parent_path().filename().string();
    const bool alive = RunLock::isHeld(runDir);
    if (alive) info.pid = RunLock::recordedPid(runDir);

    std::string lastStatus;
    std::ifstream in(runDir + "/events.jsonl", std::ios::binary);
    if (in) {
        in.seekg(0, std::ios::end);
        const std::streamoff size = in.tellg();
        const std::streamoff from = std::max<std::streamoff>(0, size - kTailBytes);
        in.seekg(from);
        std::string tail(static_cast<size_t>(size - from), '\0');
        in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
        size_t pos = 0;
        if (from > 0) pos = tail.find('\n') + 1;  // the first line is probably cut
        bool sawStatus = false;
        for (size_t nl; (nl = tail.find('\n', pos)) != std::string::npos; pos = nl + 1) {
            nlohmann::json e = nlohmann::json::parse(tail.begin() + static_cast<std::ptrdiff_t>(pos), tail.begin() + static_cast<std::ptrdiff_t>(nl),
                                                     nullptr, /*allow_exceptions=*/false);
            if (!e.is_object()) continue;  // a torn line left by a crash
            const std::string kind = e.value("kind", "");
            if (e.contains("t") && e["t"].is_number()) info.updated = e["t"].get<double>();
            if (e.contains("step") && e["step"].is_number_integer()) info.step = std::max(info.step, e["step"].get<int64_t>());
            if (e.contains("epoch") && e["epoch"].is_number_integer()) info.epoch = e["epoch"].get<int64_t>();
            if (e.contains("total_steps") && e["total_steps"].is_number_integer()) info.totalSteps = e["total_steps"].get<int64_t>();
            if (kind == "status") {
                lastStatus = e.value("state", "");
                sawStatus = true;
            } else if (kind == "metrics") {
                if (e.contains("loss_d") && e["loss_d"].is_number()) info.lossD = e["loss_d"].get<double>();
                if (e.contains("loss_g") && e["loss_g"].is_number()) info.lossG = e["loss_g"].get<double>();
            } else if (kind == "checkpoint") {
                info.lastCheckpoint = e.value("path", "");
            } else if (kind == "error") {
                info.error = e.value("message", "");
            }
        }
        // A long run whose status line has scrolled out of the tail is running if it is alive.
        if (!sawStatus && from > 0) lastStatus = alive ? "running" : "crashed";
    }
    info.state = effectiveState(lastStatus, alive);
    if (info.state != "failed") info.error.clear();  // e.g. a refused control command: not the run's failure
    return info;
}

std::vector<RunInfo> RunStatus::list(const std::string& root) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw IoError("'" + root + "' is not a folder: give the folder that holds your run directories");
    if (isRunDirectory(root)) return {read(root)};
    std::vector<std::string> dirs;
    for (const auto& entry : fs::directory_iterator(root, fs::directory_options::skip_permission_denied, ec))
        if (entry.is_directory(ec) && isRunDirectory(entry.path().string())) dirs.push_back(entry.path().string());
    std::sort(dirs.begin(), dirs.end());
    std::vector<RunInfo> runs;
    for (const auto& d : dirs) runs.push_back(read(d));
    return runs;
}

}  // namespace streetgan
