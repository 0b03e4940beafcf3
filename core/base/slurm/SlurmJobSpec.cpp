#include "base/slurm/SlurmJobSpec.h"

#include <array>
#include <cstdio>

#include "base/util/Errors.h"

namespace streetgan {

namespace {

// Options the script sets from a field of its own, or that the run's contract needs as written
// (docs/slurm.md): an extra line may not repeat them. Each with the field to use instead.
struct Reserved {
    const char* longName;
    const char* shortName;  // "" when none
    const char* instead;
};
constexpr std::array<Reserved, 13> kReserved = {{
    {"--nodes", "-N", "--nodes"},
    {"--ntasks-per-node", "", "--tasks-per-node"},
    {"--ntasks", "-n", "--nodes and --tasks-per-node"},
    {"--gpus-per-node", "", "--gpus-per-node"},
    {"--cpus-per-task", "-c", "--cpus-per-task"},
    {"--time", "-t", "--time"},
    {"--partition", "-p", "--partition"},
    {"--account", "-A", "--account"},
    {"--chdir", "-D", "the folder you submit from"},
    {"--output", "-o", "nothing: the job's output goes to RUN/slurm-<job id>.out"},
    {"--signal", "", "--signal-seconds"},
    {"--open-mode", "", "nothing: a requeued job appends to its output"},
    {"--no-requeue", "", "nothing: a run that hits its time limit is requeued and resumes"},
}};

bool isNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'; }

void checkName(const std::string& value, const char* what) {
    if (value.empty()) return;
    for (char c : value)
        if (!isNameChar(c))
            throw ConfigError(
                std::string(what) + " '" + value + "' is not a Slurm " + (what + 2) +
                " name (letters, digits, '_', '-', '.'): see `sinfo -s` for the partitions and `sacctmgr show assoc user=$USER` for your accounts");
}

// A value an #SBATCH line can carry in double quotes: sbatch takes no escapes there, and turns
// '%' in file names into job fields.
void checkSbatchPath(const std::string& path, const char* what) {
    if (path.empty() || path.front() != '/') throw ConfigError(std::string(what) + " '" + path + "' is not an absolute path: the compute nodes need one");
    for (char c : path)
        if (c == '"' || c == '%' || c == '\\' || c == '\n' || c == '\r' || c == '\0')
            throw ConfigError(std::string(what) + " '" + path +
                              "' has a character an #SBATCH line cannot carry (\", %, \\ or a line break): choose a folder without it");
}

void checkRange(int value, int lo, int hi, const char* what) {
    if (value < lo || value > hi)
        throw ConfigError(std::string(what) + " " + std::to_string(value) + " is out of range: give " + std::to_string(lo) + " to " + std::to_string(hi));
}

// Digits only, at most 9 of them (no overflow); -1 otherwise.
int64_t number(const std::string& s) {
    if (s.empty() || s.size() > 9) return -1;
    int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return -1;
        v = v * 10 + (c - '0');
    }
    return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts(1);
    for (char c : s) {
        if (c == sep)
            parts.emplace_back();
        else
            parts.back() += c;
    }
    return parts;
}

}  // namespace

int64_t SlurmJobSpec::parseTimeLimit(const std::string& text) {
    const auto bad = [&]() {
        return ConfigError("time limit '" + text + "' is not one of Slurm's forms: give HH:MM:SS (or MM, MM:SS, D-HH, D-HH:MM, D-HH:MM:SS), e.g. 04:00:00");
    };
    std::string rest = text;
    int64_t days = 0;
    const auto dash = rest.find('-');
    const bool hasDays = dash != std::string::npos;
    if (hasDays) {
        days = number(rest.substr(0, dash));
        rest = rest.substr(dash + 1);
        if (days < 0) throw bad();
    }
    const std::vector<std::string> parts = split(rest, ':');
    std::vector<int64_t> v;
    for (const auto& p : parts) {
        v.push_back(number(p));
        if (v.back() < 0) throw bad();
    }
    int64_t seconds = 0;
    if (hasDays) {  // D-HH, D-HH:MM, D-HH:MM:SS
        if (v.size() > 3) throw bad();
        seconds = days * 86400 + v[0] * 3600 + (v.size() > 1 ? v[1] * 60 : 0) + (v.size() > 2 ? v[2] : 0);
    } else if (v.size() == 1) {  // MM
        seconds = v[0] * 60;
    } else if (v.size() == 2) {  // MM:SS
        seconds = v[0] * 60 + v[1];
    } else if (v.size() == 3) {  // HH:MM:SS
        seconds = v[0] * 3600 + v[1] * 60 + v[2];
    } else {
        throw bad();
    }
    if (seconds <= 0) throw ConfigError("time limit '" + text + "' is no time: give the job at least a minute, e.g. 00:10:00");
    return seconds;
}

std::string SlurmJobSpec::formatTimeLimit(int64_t seconds) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(seconds / 3600), static_cast<long long>(seconds / 60 % 60),
                  static_cast<long long>(seconds % 60));
    return buf;
}

std::string SlurmJobSpec::timeLimitText() const { return timeLimit.empty() ? std::string() : formatTimeLimit(parseTimeLimit(timeLimit)); }

std::string SlurmJobSpec::extraOption(const std::string& line) {
    std::string s = line;
    const auto trim = [](std::string& t) {
        const auto b = t.find_first_not_of(" \t");
        const auto e = t.find_last_not_of(" \t");
        t = b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
    };
    trim(s);
    if (s.rfind("#SBATCH", 0) == 0) {
        s = s.substr(7);
        trim(s);
    }
    return s;
}

void SlurmJobSpec::validate() const {
    checkSbatchPath(runDir, "the run directory");
    if (!workDir.empty()) checkSbatchPath(workDir, "the job's working folder");
    checkRange(nodes, 1, 100000, "--nodes");
    checkRange(tasksPerNode, 1, 4096, "--tasks-per-node");
    checkRange(gpusPerNode, 0, 1024, "--gpus-per-node");
    checkRange(cpusPerTask, 0, 4096, "--cpus-per-task");
    checkRange(signalSeconds, 1, 65535, "--signal-seconds");  // Slurm keeps the lead in 16 bits
    checkName(partition, "--partition");
    checkName(account, "--account");
    for (char c : jobName)
        if (c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\0')
            throw ConfigError("the job name '" + jobName + "' has a character an #SBATCH line cannot carry (\", \\ or a line break): choose another --name");
    if (!timeLimit.empty()) {
        const int64_t limit = parseTimeLimit(timeLimit);
        if (signalSeconds >= limit)
            throw ConfigError("--signal-seconds " + std::to_string(signalSeconds) + " is not shorter than the time limit " + formatTimeLimit(limit) +
                              ": the ranks would be told to stop as they start; give a longer --time or a smaller --signal-seconds");
    }
    for (const auto& line : extraLines) {
        const std::string option = extraOption(line);
        if (option.empty() || option.front() != '-' || option.find_first_of("\n\r") != std::string::npos || option.find('\0') != std::string::npos)
            throw ConfigError("--sbatch-line '" + line + "' is not one sbatch option: give one option per line, e.g. --sbatch-line '--mem=16G'");
        const std::string name = option.substr(0, option.find_first_of("= \t"));
        for (const auto& r : kReserved)
            if (name == r.longName || (*r.shortName && option.rfind(r.shortName, 0) == 0 && (name == r.shortName || option.size() > 2)))
                throw ConfigError("--sbatch-line '" + line + "' sets " + r.longName + ", which the job script writes itself: use " + r.instead);
    }
    if (command.empty()) throw ConfigError("the Slurm job has no command to run on its ranks");
}

}  // namespace streetgan
