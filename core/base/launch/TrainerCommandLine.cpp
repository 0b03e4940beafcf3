#include "base/launch/TrainerCommandLine.h"

#include <nlohmann/json.hpp>

#include "base/remote/ShellQuote.h"

namespace streetgan {

namespace {
// True when `word` is `flag` or `flag=VALUE`.
bool isFlag(const std::string& word, const std::string& flag) { return word == flag || word.rfind(flag + "=", 0) == 0; }
}  // namespace

TrainerCommandLine::TrainerCommandLine(std::string trainer) : trainer_(std::move(trainer)) {}

std::vector<std::string> TrainerCommandLine::start(const std::vector<std::string>& trainArgs) const {
    std::vector<std::string> words{trainer_, "start", "--detach"};
    for (const std::string& a : trainArgs)
        if (a != "--detach") words.push_back(a);
    return words;
}

std::vector<std::string> TrainerCommandLine::control(const std::string& runDir, const std::string& command, const std::string& value) const {
    std::vector<std::string> words{trainer_, "control", runDir, command};
    if (!value.empty()) words.push_back(value);
    return words;
}

std::vector<std::string> TrainerCommandLine::status(const std::string& runDir) const { return {trainer_, "ls", runDir, "--json"}; }

std::vector<std::string> TrainerCommandLine::slurmTrain(const std::string& runDir, const std::vector<std::string>& trainArgs) const {
    std::vector<std::string> words{trainer_, "train", "--run-dir", runDir, "--resume"};
    for (size_t i = 0; i < trainArgs.size(); ++i) {
        const std::string& a = trainArgs[i];
        if (a == "--resume" || a == "--detach" || isFlag(a, "--run-dir") || isFlag(a, "--wait")) {
            if ((a == "--run-dir" || a == "--wait") && i + 1 < trainArgs.size()) ++i;  // and its value
            continue;
        }
        words.push_back(a);
    }
    return words;
}

std::vector<std::string> TrainerCommandLine::launchNode(int nproc, int nnodes, int nodeRank, const std::string& master,
                                                        const std::vector<std::string>& trainArgs) const {
    std::vector<std::string> words{
        trainer_,   "launch", "--detach", "--nproc", std::to_string(nproc), "--nnodes", std::to_string(nnodes), "--node-rank", std::to_string(nodeRank),
        "--master", master,   "--",       "train"};
    for (size_t i = 0; i < trainArgs.size(); ++i) {
        const std::string& a = trainArgs[i];
        if (a == "--detach" || isFlag(a, "--wait")) {
            if (a == "--wait" && i + 1 < trainArgs.size()) ++i;  // and its value
            continue;
        }
        words.push_back(a);
    }
    return words;
}

std::optional<TrainerCommandLine::DetachedLaunch> TrainerCommandLine::detachedLaunch(const std::string& launchOutput) {
    const nlohmann::json j = nlohmann::json::parse(startedRunDir(launchOutput), nullptr, false);
    if (!j.is_object() || !j.contains("pid") || !j["pid"].is_number_integer() || !j.contains("log") || !j["log"].is_string() || !j.contains("master") ||
        !j["master"].is_string())
        return std::nullopt;
    DetachedLaunch d;
    d.pid = j["pid"].get<long>();
    d.log = j["log"].get<std::string>();
    d.master = j["master"].get<std::string>();
    if (j.contains("run_dir") && j["run_dir"].is_string()) d.runDir = j["run_dir"].get<std::string>();
    if (d.pid <= 1) return std::nullopt;
    return d;
}

std::string TrainerCommandLine::shellLine(const std::vector<std::string>& words) { return ShellQuote::join(words); }

std::string TrainerCommandLine::startedRunDir(const std::string& startOutput) {
    const auto trim = [](const std::string& t) {
        const size_t b = t.find_first_not_of(" \t\r\n");
        return b == std::string::npos ? std::string() : t.substr(b, t.find_last_not_of(" \t\r\n") + 1 - b);
    };
    const std::string all = trim(startOutput);
    const size_t nl = all.rfind('\n');
    return nl == std::string::npos ? all : trim(all.substr(nl + 1));
}

}  // namespace streetgan
