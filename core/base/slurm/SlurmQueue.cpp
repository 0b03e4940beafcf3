#include "base/slurm/SlurmQueue.h"

#include <set>

#include "base/launch/CommandShell.h"
#include "base/remote/ShellQuote.h"
#include "base/slurm/SlurmJobRecord.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {

std::vector<std::string> fields(const std::string& line, char sep) {
    std::vector<std::string> out(1);
    for (char c : line) {
        if (c == sep)
            out.emplace_back();
        else
            out.back() += c;
    }
    for (auto& f : out) {  // squeue pads some fields with blanks
        const auto b = f.find_first_not_of(" \t\r");
        const auto e = f.find_last_not_of(" \t\r");
        f = b == std::string::npos ? std::string() : f.substr(b, e - b + 1);
    }
    return out;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at < text.size()) {
        size_t nl = text.find('\n', at);
        if (nl == std::string::npos) nl = text.size();
        if (nl > at) out.push_back(text.substr(at, nl - at));
        at = nl + 1;
    }
    return out;
}

std::optional<long> integer(const std::string& s) {
    if (s.empty() || s.size() > 12) return std::nullopt;
    long v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + (c - '0');
    }
    return v;
}

std::string joinIds(const std::vector<std::string>& ids) {
    std::string s;
    for (const auto& id : ids) {
        if (!SlurmJobRecord::isJobId(id)) throw ConfigError("'" + id + "' is not a Slurm job id (digits)");
        s += (s.empty() ? "" : ",") + id;
    }
    return s;
}

std::string lastLine(const std::string& text) {
    const auto all = lines(text);
    for (auto it = all.rbegin(); it != all.rend(); ++it)
        if (it->find_first_not_of(" \t\r") != std::string::npos) return *it;
    return {};
}

}  // namespace

SlurmQueue::SlurmQueue(CommandShell& shell) : shell_(shell) {}

std::string SlurmQueue::squeueCommand(const std::vector<std::string>& jobIds) {
    return "timeout " + std::to_string(kQuerySeconds) + " squeue --noheader --states=all --jobs=" + joinIds(jobIds) + " " +
           ShellQuote::quote("--Format=JobID:|,State:|,Reason:|,exit_code:|");
}

std::string SlurmQueue::sacctCommand(const std::vector<std::string>& jobIds) {
    return "timeout " + std::to_string(kQuerySeconds) + " sacct -n -P -X -j " + joinIds(jobIds) + " -o JobID,State,ExitCode,Reason";
}

std::vector<SlurmJobState> SlurmQueue::parseSqueue(const std::string& out) {
    std::vector<SlurmJobState> states;
    for (const auto& line : lines(out)) {
        auto f = fields(line, '|');
        if (!f.empty() && f.back().empty()) f.pop_back();  // the last field's "|"
        if (f.size() != 4 || !SlurmJobRecord::isJobId(f[0]) || f[1].empty()) continue;
        const auto status = integer(f[3]);  // a wait status: code << 8, or the signal
        std::optional<int> code;
        int signal = 0;
        if (status) {
            signal = static_cast<int>(*status & 0x7f);
            if (signal == 0) code = static_cast<int>((*status >> 8) & 0xff);
        }
        states.push_back(SlurmJobState::fromSlurm(f[0], f[1], f[2], code, signal));
    }
    return states;
}

std::vector<SlurmJobState> SlurmQueue::parseSacct(const std::string& out) {
    std::vector<SlurmJobState> states;
    for (const auto& line : lines(out)) {
        const auto f = fields(line, '|');
        if (f.size() != 4 || !SlurmJobRecord::isJobId(f[0]) || f[1].empty()) continue;  // a step ("12.batch") or noise
        std::optional<int> code;
        int signal = 0;
        const auto colon = f[2].find(':');
        if (colon != std::string::npos) {
            const auto c = integer(f[2].substr(0, colon));
            const auto s = integer(f[2].substr(colon + 1));
            if (c) code = static_cast<int>(*c);
            if (s) signal = static_cast<int>(*s);
        }
        states.push_back(SlurmJobState::fromSlurm(f[0], f[1], f[3], code, signal));
    }
    return states;
}

std::string SlurmQueue::failure(const std::string& tool, const std::string& host, std::optional<int> exitStatus, const std::string& err) {
    if (exitStatus && *exitStatus == 127)
        return "there is no " + tool + " on " + host +
               "'s PATH: is it a Slurm login node? (a command over SSH runs without your interactive shell's `module load`: put Slurm on PATH in "
               "~/.bashrc or ~/.profile)";
    if (exitStatus && *exitStatus == 124)
        return tool + " on " + host + " did not answer within " + std::to_string(kQuerySeconds) + " s: is slurmctld up? (`scontrol ping` there)";
    const std::string said = lastLine(err);
    return tool + " on " + host + " failed" +
           (said.empty() ? std::string(exitStatus ? " with exit code " + std::to_string(*exitStatus) : " (killed)") : ": " + said);
}

std::map<std::string, SlurmJobState> SlurmQueue::states(const std::vector<std::string>& jobIds) {
    std::map<std::string, SlurmJobState> found;
    const std::set<std::string> unique(jobIds.begin(), jobIds.end());
    if (unique.empty()) return found;
    const std::vector<std::string> ids(unique.begin(), unique.end());
    const ExecResult q = shell_.run(squeueCommand(ids));
    if (q.ok()) {
        for (auto& s : parseSqueue(q.out))
            if (unique.count(s.jobId)) found[s.jobId] = s;
    } else if (q.err.find("Invalid job id specified") == std::string::npos) {  // asked for one job only, squeue says so when it has ended
        const std::string why = failure("squeue", shell_.label(), q.exitStatus, q.err);
        if (q.exitStatus && *q.exitStatus == 127) throw ConfigError(why);
        throw IoError(q.exitStatus && *q.exitStatus == 124 ? why : why + "; is slurmctld up? (`scontrol ping`)");
    }
    std::vector<std::string> missing;
    for (const auto& id : ids)
        if (!found.count(id)) missing.push_back(id);
    if (missing.empty()) return found;
    // Where the cluster keeps no accounting (or sacct is missing) the jobs stay unknown.
    const ExecResult a = shell_.run(sacctCommand(missing));
    if (a.ok())
        for (auto& s : parseSacct(a.out))
            if (unique.count(s.jobId) && !found.count(s.jobId)) found[s.jobId] = s;
    return found;
}

bool SlurmQueue::cancel(const std::string& jobId) {
    // scancel says nothing and exits 0 for a job Slurm has forgotten (without -v), and a job that
    // has ended is no longer cancelled: the queue decides first.
    const auto known = states({jobId});
    const auto it = known.find(jobId);
    if (it == known.end() || it->second.ended()) return false;
    const ExecResult r = shell_.run("scancel " + joinIds({jobId}));
    if (r.ok()) return true;
    const std::string why = failure("scancel", shell_.label(), r.exitStatus, r.err);
    if (r.exitStatus && *r.exitStatus == 127) throw ConfigError(why);
    throw IoError(why);
}

}  // namespace streetgan
