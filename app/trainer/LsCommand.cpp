#include "trainer/LsCommand.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "base/follow/RunRecordReader.h"
#include "base/launch/LocalShell.h"
#include "base/slurm/SlurmRunStates.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

std::string fixed(const std::optional<double>& v) {
    if (!v) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", *v);
    return buf;
}

constexpr std::size_t kMaxCell = 32;  // a wider cell (a long data source) is cut with "..."

std::string general(double v) {
    if (!std::isfinite(v)) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

// 1234567 -> 1.23M: image counts are read at a glance.
std::string count(int64_t n) {
    if (n < 10000) return std::to_string(n);
    char buf[32];
    std::snprintf(buf, sizeof buf,
                  n < 10000000      ? "%.1fk"
                  : n < 10000000000 ? "%.2fM"
                                    : "%.2fG",
                  double(n) / (n < 10000000      ? 1e3
                               : n < 10000000000 ? 1e6
                                                 : 1e9));
    return buf;
}

std::string duration(double s) {
    if (!std::isfinite(s) || s <= 0) return "-";
    const auto t = static_cast<int64_t>(std::llround(s));
    char buf[32];
    if (t < 60)
        std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(t));
    else if (t < 3600)
        std::snprintf(buf, sizeof buf, "%lldm%02llds", static_cast<long long>(t / 60), static_cast<long long>(t % 60));
    else
        std::snprintf(buf, sizeof buf, "%lldh%02lldm", static_cast<long long>(t / 3600), static_cast<long long>(t / 60 % 60));
    return buf;
}

std::string jsonCell(const nlohmann::json& v) {
    if (v.is_null()) return "-";
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_float()) return general(v.get<double>());
    return v.dump();
}

// The columns of the table besides settings and scalars, each with what it shows.
const std::vector<std::pair<std::string, std::string (*)(const RunRecord&)>>& builtins() {
    static const std::vector<std::pair<std::string, std::string (*)(const RunRecord&)>> all = {
        {"name", [](const RunRecord& r) { return r.info.name; }},
        {"kind", [](const RunRecord& r) { return r.kind; }},
        {"state", [](const RunRecord& r) { return r.info.state; }},
        {"host", [](const RunRecord& r) { return r.host.empty() ? std::string("-") : r.host; }},
        {"job", [](const RunRecord& r) { return r.info.slurmJob.empty() ? std::string("-") : r.info.slurmJob; }},
        {"reason", [](const RunRecord& r) { return r.info.reason.empty() ? std::string("-") : r.info.reason; }},
        {"step", [](const RunRecord& r) { return std::to_string(r.info.step) + (r.info.totalSteps > 0 ? "/" + std::to_string(r.info.totalSteps) : ""); }},
        {"images", [](const RunRecord& r) { return r.images > 0 ? count(r.images) : std::string("-"); }},
        {"wall", [](const RunRecord& r) { return duration(r.wallSeconds); }},
        {"img_per_s", [](const RunRecord& r) { return general(r.imagesPerSecond); }},
        {"energy_kwh", [](const RunRecord& r) { return general(r.energyKwh); }},
        {"best",
         [](const RunRecord& r) {
             return r.best.checkpoint.empty() ? std::string("-") : r.best.metric + " " + general(r.best.value) + " @" + std::to_string(r.best.step);
         }},
        {"problems", [](const RunRecord& r) { return r.problems.empty() ? std::string("-") : std::to_string(r.problems.size()); }},
    };
    return all;
}

// "loss_d.min" -> {"loss_d", "min"}; "loss_d" -> {"loss_d", ""}.
std::pair<std::string, std::string> splitStatistic(const std::string& column) {
    const auto dot = column.rfind('.');
    if (dot != std::string::npos) {
        const std::string stat = column.substr(dot + 1);
        if (stat == "last" || stat == "min" || stat == "max" || stat == "best") return {column.substr(0, dot), stat};
    }
    return {column, ""};
}

std::string scalarCell(const RunRecord& r, const std::string& name, const std::string& stat) {
    if (stat == "best") {
        const auto it = r.best.scalars.find(name);
        return it == r.best.scalars.end() ? "-" : general(it->second);
    }
    const auto it = r.scalars.find(name);
    if (it == r.scalars.end()) return "-";
    return general(stat == "min" ? it->second.min : stat == "max" ? it->second.max : it->second.last);
}

bool anyHasSetting(const std::vector<RunRecord>& runs, const std::string& key) {
    return std::any_of(runs.begin(), runs.end(), [&](const RunRecord& r) { return r.settings.contains(key); });
}

bool anyHasScalar(const std::vector<RunRecord>& runs, const std::string& name) {
    return std::any_of(runs.begin(), runs.end(), [&](const RunRecord& r) { return r.scalars.count(name) > 0; });
}

// One cell: a built-in column, else a setting (a name that is both, "lr", is the setting: the
// scalar is "lr.last"), else a scalar's statistic (plain: its last value).
std::string cell(const RunRecord& r, const std::string& column, const std::vector<RunRecord>& runs) {
    for (const auto& [name, show] : builtins())
        if (name == column) return show(r);
    if (anyHasSetting(runs, column)) {
        const auto it = r.settings.find(column);
        return it == r.settings.end() ? "-" : jsonCell(*it);
    }
    const auto [name, stat] = splitStatistic(column);
    return scalarCell(r, name, stat);
}

bool known(const std::string& column, const std::vector<RunRecord>& runs) {
    for (const auto& b : builtins())
        if (b.first == column) return true;
    return anyHasSetting(runs, column) || anyHasScalar(runs, splitStatistic(column).first);
}

// Runs submitted to Slurm (RUN/slurm.json) take their state from it, asked of this computer's
// Slurm in one squeue call for the whole listing; when it cannot be asked, one line says so and
// the runs show what their trainers wrote.
void askSlurm(const std::vector<RunInfo*>& runs) {
    LocalShell shell;
    const std::string warning = SlurmRunStates::apply(runs, shell);
    if (!warning.empty()) std::cerr << "streetgan-trainer: " << warning << "\n";
}

// The end of a Slurm run's line: its job and Slurm's reason ("job 12: Priority").
std::string slurmNote(const RunInfo& r) {
    if (r.slurmJob.empty()) return r.reason.empty() ? std::string() : "  " + r.reason;
    return "  job " + r.slurmJob + (r.reason.empty() ? std::string() : ": " + r.reason);
}

std::string clip(std::string s) {
    if (s.size() > kMaxCell) s = s.substr(0, kMaxCell - 3) + "...";
    return s;
}

}  // namespace

CLI::App* LsCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("ls", "List the runs under a folder with their state");
    a->add_option("root", root_, "Folder of run directories (or one run directory)")->required();
    a->add_flag("--json", json_, "One JSON document: {\"runs\":[...]} (with --table: every run's whole record)");
    auto* table = a->add_flag("--table", table_, "The Runs table: settings that differ, cost, last/best losses and quality figures");
    a->add_option(
         "--columns", columns_,
         "With --table: the columns, comma-separated: name, kind, state, host, job, reason, step, images, wall, img_per_s, energy_kwh, best, problems, "
         "any setting (lr, batch, ...) or scalar (loss_d; loss_d.min, .max, .last, .best: its value at the best checkpoint)")
        ->delimiter(',')
        ->needs(table);
    return a;
}

int LsCommand::execute() {
    if (!table_) {
        std::vector<RunInfo> runs = RunStatus::list(root_);
        std::vector<RunInfo*> infos;
        for (auto& r : runs) infos.push_back(&r);
        askSlurm(infos);
        print(runs, root_, json_);
        return 0;
    }
    std::vector<RunRecord> runs = RunRecordReader::list(root_);
    std::vector<RunInfo*> infos;
    for (auto& r : runs) infos.push_back(&r.info);
    askSlurm(infos);
    if (json_) {
        nlohmann::json j = {{"runs", nlohmann::json::array()}};
        for (const auto& r : runs) j["runs"].push_back(r.toJson());
        std::cout << j.dump(2) << std::endl;
        return 0;
    }
    if (runs.empty()) {
        std::cout << "no runs under " << root_ << "\n";
        return 0;
    }
    printTable(runs, columns_.empty() ? defaultColumns(runs) : columns_);
    return 0;
}

std::vector<std::string> LsCommand::defaultColumns(const std::vector<RunRecord>& runs) {
    std::vector<std::string> columns = {"name", "state", "host", "step", "images", "wall", "img_per_s"};
    if (std::any_of(runs.begin(), runs.end(), [](const RunRecord& r) { return !r.info.slurmJob.empty(); }))
        columns.insert(columns.begin() + 2, {"job", "reason"});  // Slurm runs: their job and why it waits
    std::set<std::string> keys;
    for (const auto& r : runs)
        for (auto it = r.settings.begin(); it != r.settings.end(); ++it) keys.insert(it.key());
    for (const auto& key : keys) {
        // Compared among the runs that have it: a TensorBoard run beside ours shares none of our
        // keys, which is no difference worth a column.
        const nlohmann::json* first = nullptr;
        bool differs = false;
        for (const auto& r : runs) {
            const auto it = r.settings.find(key);
            if (it == r.settings.end()) continue;
            if (!first)
                first = &*it;
            else if (*it != *first)
                differs = true;
        }
        if (differs) columns.emplace_back(key);
    }
    for (const char* c : {"loss_d.last", "loss_g.last", "swd.min", "fid.min", "kid.min", "precision.max", "recall.max"})
        if (anyHasScalar(runs, splitStatistic(c).first)) columns.emplace_back(c);
    columns.emplace_back("best");
    return columns;
}

void LsCommand::printTable(const std::vector<RunRecord>& runs, const std::vector<std::string>& columns) {
    for (const auto& c : columns)
        if (!known(c, runs))
            throw ConfigError("--columns: '" + c + "' is no column, setting or scalar of these runs: use name, state, host, job, reason, step, images, wall, " +
                              "img_per_s, energy_kwh, best, problems, a setting or a scalar (see ls ROOT --table --json)");
    std::vector<std::vector<std::string>> rows;
    rows.push_back(columns);
    for (const auto& r : runs) {
        std::vector<std::string> row;
        for (const auto& c : columns) row.push_back(clip(cell(r, c, runs)));
        rows.push_back(std::move(row));
    }
    std::vector<std::size_t> width(columns.size(), 0);
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            std::string cellText = row[i];
            if (i + 1 < row.size()) cellText.resize(width[i] + 2, ' ');
            line += cellText;
        }
        std::cout << line << "\n";
    }
    std::cout.flush();
}

void LsCommand::print(const std::vector<RunInfo>& runs, const std::string& root, bool json) {
    if (json) {
        std::cout << RunStatus::listToJson(runs).dump(2) << std::endl;  // the one {"runs":[...]} shape (RemoteHostWorker reads it back)
        return;
    }
    if (runs.empty()) {
        std::cout << "no runs under " << root << "\n";
        return;
    }
    std::printf("%-28s %-11s %15s %9s %9s  %s\n", "RUN", "STATE", "STEP", "LOSS_D", "LOSS_G", "LAST CHECKPOINT");
    for (const auto& r : runs) {
        const std::string step = std::to_string(r.step) + (r.totalSteps > 0 ? "/" + std::to_string(r.totalSteps) : "");
        std::printf("%-28s %-11s %15s %9s %9s  %s%s\n", r.name.c_str(), r.state.c_str(), step.c_str(), fixed(r.lossD).c_str(), fixed(r.lossG).c_str(),
                    r.lastCheckpoint.empty() ? "-" : r.lastCheckpoint.c_str(), slurmNote(r).c_str());
    }
    std::fflush(stdout);
}

}  // namespace streetgan
