// Runs the real streetgan-trainer binary through /bin/sh and captures exit code, stdout, stderr.
// `prefix` lets a test add shell setup such as `ulimit -f 100;` (a real kernel file-size limit).
// runWithFileSizeLimit(): the same with RLIMIT_FSIZE set in the child before exec (what a full
// disk looks like to the trainer: write(2) fails with EFBIG), exact to the byte.
// readEvents(): a run directory's events.jsonl as parsed objects (torn or bad lines skipped).
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace streetgan::test {

inline std::vector<nlohmann::json> readEvents(const std::string& runDir) {
    std::ifstream in(runDir + "/events.jsonl");
    std::vector<nlohmann::json> events;
    std::string line;
    while (std::getline(in, line)) {
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_object()) events.push_back(j);
    }
    return events;
}

struct CliResult {
    int code = -1;
    std::string out, err;
};

class CliRunner {
public:
    explicit CliRunner(std::string workDir) : dir_(std::move(workDir)) {}

    static std::string quote(const std::string& s) {
        std::string q = "'";
        for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
        return q + "'";
    }

    CliResult run(const std::vector<std::string>& args, const std::string& prefix = "") const { return finish(std::system(command(args, prefix).c_str())); }

    /// run() with the kernel's file-size limit of the trainer (and its shell) set to `maxFileBytes`:
    /// each file it writes can grow to that size, then write(2) fails with EFBIG. The captured
    /// stdout/stderr files are under the limit too (the trainer's own output is a few lines).
    CliResult runWithFileSizeLimit(const std::vector<std::string>& args, uint64_t maxFileBytes) const {
        const std::string cmd = command(args, "");
        const pid_t pid = ::fork();
        if (pid < 0) return CliResult{};
        if (pid == 0) {
            struct rlimit lim {};
            ::getrlimit(RLIMIT_FSIZE, &lim);
            lim.rlim_cur = static_cast<rlim_t>(maxFileBytes);
            if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) ::_exit(126);
            ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        return finish(status);
    }

    static std::string slurp(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }

private:
    std::string command(const std::vector<std::string>& args, const std::string& prefix) const {
        std::string cmd = prefix + " " + quote(STREETGAN_TRAINER);
        for (const auto& a : args) cmd += " " + quote(a);
        return "(" + cmd + ") </dev/null >" + quote(dir_ + "/.stdout") + " 2>" + quote(dir_ + "/.stderr");
    }
    CliResult finish(int status) const {
        CliResult r;
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        r.out = slurp(dir_ + "/.stdout");
        r.err = slurp(dir_ + "/.stderr");
        return r;
    }

    std::string dir_;
};

}  // namespace streetgan::test
