#include "base/slurm/SlurmSubmission.h"

#include <cctype>
#include <filesystem>

#include "base/launch/CommandShell.h"
#include "base/remote/ShellQuote.h"
#include "base/slurm/SlurmJobScript.h"
#include "base/slurm/SlurmQueue.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {

constexpr int kExists = 17;  // the prepare step's exit code for "the run directory exists"

std::string firstLine(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    return line;
}

std::string lastMatching(const std::string& text, const std::string& prefix) {
    std::string found;
    size_t at = 0;
    while (at < text.size()) {
        size_t nl = text.find('\n', at);
        if (nl == std::string::npos) nl = text.size();
        const std::string line = text.substr(at, nl - at);
        if (line.rfind(prefix, 0) == 0) found = line.substr(prefix.size());
        at = nl + 1;
    }
    return found;
}

std::string lastLine(const std::string& text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    const auto nl = t.rfind('\n');
    return nl == std::string::npos ? t : t.substr(nl + 1);
}

bool mentions(const std::string& text, const char* word) {
    std::string lower = text;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower.find(word) != std::string::npos;
}

// Writes `content` to `path` on the shell's host: a temporary file renamed over it.
std::string writeCommand(const std::string& path) {
    const std::string tmp = ShellQuote::quote(path + ".tmp");
    return "cat > " + tmp + " && mv -f " + tmp + " " + ShellQuote::quote(path);
}

}  // namespace

SlurmSubmission::SlurmSubmission(CommandShell& shell) : shell_(shell) {}

std::optional<std::pair<std::string, std::string>> SlurmSubmission::parseParsable(const std::string& out) {
    const std::string line = firstLine(out);
    const auto semi = line.find(';');
    const std::string id = line.substr(0, semi);
    if (!SlurmJobRecord::isJobId(id)) return std::nullopt;
    return std::make_pair(id, semi == std::string::npos ? std::string() : line.substr(semi + 1));
}

std::string SlurmSubmission::refusal(const SlurmJobSpec& spec, const std::string& host, const std::string& err) {
    std::string why = lastMatching(err, "sbatch: error: Batch job submission failed: ");
    if (why.empty()) why = lastMatching(err, "sbatch: error: ");
    if (why.empty()) why = firstLine(err);
    std::string line = "Slurm on " + host + " refused the job of " + spec.runDir + ": " + why;
    if (mentions(why, "account"))  // "Invalid account or account/partition combination": the account
        line += (spec.account.empty() ? std::string(" (no --account given") : " (--account " + spec.account) +
                "; `sacctmgr show assoc user=$USER format=account,partition` lists yours)";
    else if (mentions(why, "partition") && !spec.partition.empty())
        line += " (--partition " + spec.partition + "; `sinfo -s` lists the partitions)";
    else if (mentions(why, "partition"))
        line += " (no --partition given and the cluster has no default: `sinfo -s` lists the partitions)";
    else if (mentions(why, "time limit"))
        line += " (--time " + (spec.timeLimit.empty() ? std::string("not given") : spec.timeLimitText()) + "; `sinfo -s` shows each partition's limit)";
    else if (mentions(why, "node configuration") || mentions(why, "gres") || mentions(why, "gpu"))
        line += " (--nodes " + std::to_string(spec.nodes) + ", --tasks-per-node " + std::to_string(spec.tasksPerNode) + ", --gpus-per-node " +
                std::to_string(spec.gpusPerNode) + ": more than a node of the partition has? `sinfo -N -o '%N %c %G'` shows them)";
    return line;
}

SlurmJobRecord SlurmSubmission::submit(const SlurmJobSpec& spec, int64_t now) {
    const std::string script = SlurmJobScript::text(spec);  // validates spec
    const std::string run = ShellQuote::quote(spec.runDir);
    const std::string root = ShellQuote::quote(std::filesystem::path(spec.runDir).parent_path().string());
    const std::string scriptPath = spec.runDir + "/" + SlurmJobScript::kFileName;

    // 1. The run directory (private to the user, as the trainer makes it) and the script.
    const ExecResult made = shell_.run("umask 077 && mkdir -p -- " + root + " && if [ -e " + run + " ]; then exit " + std::to_string(kExists) +
                                           "; fi && mkdir -- " + run + " && " + writeCommand(scriptPath),
                                       script);
    if (made.exitStatus && *made.exitStatus == kExists)
        throw ConfigError("the run directory " + spec.runDir + " exists already on " + shell_.label() + ": choose another --name");
    if (!made.ok())
        throw IoError("cannot write " + scriptPath + " on " + shell_.label() + ": " + lastLine(made.err) + "; choose a --runs folder you can write");
    const auto removeRun = [&]() { shell_.run("rm -f -- " + ShellQuote::quote(scriptPath) + " && rmdir -- " + run); };

    // 2. sbatch, then the cluster's name (in the same round trip: one SSH exec over the network).
    const ExecResult sb =
        shell_.run("sbatch --parsable " + ShellQuote::quote(scriptPath) + " && { scontrol show config 2>/dev/null | sed -n 's/^ClusterName *= *//p'; true; }");
    if (!sb.ok()) {
        removeRun();
        if (sb.exitStatus && *sb.exitStatus == 127) throw ConfigError(SlurmQueue::failure("sbatch", shell_.label(), sb.exitStatus, sb.err));
        throw ConfigError(refusal(spec, shell_.label(), sb.err));
    }
    const auto parsed = parseParsable(sb.out);
    if (!parsed) {
        removeRun();
        throw IoError("sbatch on " + shell_.label() + " answered '" + firstLine(sb.out) +
                      "' instead of a job id; see `squeue --me` for the job it may have queued");
    }

    // 3. The record.
    SlurmJobRecord record;
    record.jobId = parsed->first;
    record.cluster = parsed->second;
    if (record.cluster.empty()) {
        const auto nl = sb.out.find('\n');
        if (nl != std::string::npos) record.cluster = firstLine(sb.out.substr(nl + 1));
    }
    record.submitted = now;
    record.script = SlurmJobScript::kFileName;
    record.nodes = spec.nodes;
    record.tasksPerNode = spec.tasksPerNode;
    record.gpusPerNode = spec.gpusPerNode;
    record.partition = spec.partition;
    record.account = spec.account;
    record.timeLimit = spec.timeLimitText();
    const ExecResult written = shell_.run(writeCommand(SlurmJobRecord::pathIn(spec.runDir)), record.text());
    if (!written.ok()) {
        // Unrecorded, the job could not be listed or stopped from here: it goes.
        std::string cancelled = "the job was cancelled";
        try {
            SlurmQueue(shell_).cancel(record.jobId);
        } catch (const Error& e) {
            cancelled = "cancel it with `scancel " + record.jobId + "` (" + e.what() + ")";
        }
        throw IoError("cannot record job " + record.jobId + " in " + SlurmJobRecord::pathIn(spec.runDir) + " on " + shell_.label() + " (" +
                      lastLine(written.err) + "): " + cancelled);
    }
    return record;
}

}  // namespace streetgan
