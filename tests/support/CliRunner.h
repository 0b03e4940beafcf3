// Runs the real streetgan-trainer binary through /bin/sh and captures exit code, stdout, stderr.
// `prefix` lets a test add shell setup such as `ulimit -f 100;` (a real kernel file-size limit).
// readEvents(): a run directory's events.jsonl as parsed objects (torn or bad lines skipped).
#pragma once

#include <sys/wait.h>

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

    CliResult run(const std::vector<std::string>& args, const std::string& prefix = "") const {
        std::string cmd = prefix + " " + quote(STREETGAN_TRAINER);
        for (const auto& a : args) cmd += " " + quote(a);
        const std::string out = dir_ + "/.stdout", err = dir_ + "/.stderr";
        cmd = "(" + cmd + ") </dev/null >" + quote(out) + " 2>" + quote(err);
        CliResult r;
        const int status = std::system(cmd.c_str());
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        r.out = slurp(out);
        r.err = slurp(err);
        return r;
    }

    static std::string slurp(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }

private:
    std::string dir_;
};

}  // namespace streetgan::test
