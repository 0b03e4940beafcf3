#include "base/run/RunDirectory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/run/CheckpointName.h"
#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"

namespace fs = std::filesystem;

namespace streetgan {

namespace {

// An existing folder the trainer is to write into: a directory of this user that no other user can
// write to (as OpenSSH's StrictModes asks of ~/.ssh). `what` names it in the error. A folder another
// user made, or one anyone may write to (/tmp), could hold links planted to make the trainer write
// through them, and the trainer must not take its permissions away from its owner either.
void checkOurs(const std::string& dir, const std::string& what) {
    struct stat link;
    if (::lstat(dir.c_str(), &link) != 0) return;  // not there: created below, by us
    if (S_ISLNK(link.st_mode) && link.st_uid != ::geteuid())
        throw IoError(what + " '" + dir + "' is a link another user made: remove it, or choose another --run-dir");
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) throw IoError("cannot use " + what + " '" + dir + "': " + std::strerror(errno) + ": choose another --run-dir");
    if (!S_ISDIR(st.st_mode)) throw IoError(what + " '" + dir + "' is not a folder: choose another --run-dir");
    if (st.st_uid != ::geteuid())
        throw IoError(what + " '" + dir + "' belongs to another user (uid " + std::to_string(st.st_uid) + "): choose a folder of your own for --run-dir");
    if (st.st_mode & S_IWOTH)
        throw IoError(what + " '" + dir + "' can be written by any user: choose a folder of your own for --run-dir (e.g. a new one inside it)");
}

}  // namespace

RunDirectory::RunDirectory(std::string root, bool create) : root_(std::move(root)) {
    while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
    if (create) {
        checkOurs(root_, "run directory");
        const bool existed = fs::exists(root_);
        std::error_code ec;
        for (const auto& d : {root_, checkpointsDir(), samplesDir(), tbDir()}) {
            if (d != root_) checkOurs(d, "run sub-folder");
            fs::create_directories(d, ec);
            if (ec) throw IoError("cannot create run directory '" + d + "': " + ec.message() + ": choose a writable --run-dir");
        }
        // A folder we make is private (events, checkpoints and the control socket are the user's
        // alone); one that existed keeps the mode its owner gave it.
        if (!existed && ::chmod(root_.c_str(), 0700) != 0)
            throw IoError("cannot make run directory '" + root_ + "' private (chmod 0700): " + std::strerror(errno) + ": choose another --run-dir");
        if (::access(root_.c_str(), W_OK) != 0 || ::access(checkpointsDir().c_str(), W_OK) != 0)
            throw IoError("run directory '" + root_ + "' is not writable: " + std::strerror(errno) + ": choose another --run-dir");
    } else if (!fs::is_directory(root_)) {
        throw IoError("run directory '" + root_ + "' does not exist");
    }
}

std::string RunDirectory::checkpointPath(int64_t epoch) const { return checkpointsDir() + "/" + CheckpointName::ofEpoch(epoch); }

std::string RunDirectory::stepCheckpointPath(int64_t epoch, int64_t step) const { return checkpointsDir() + "/" + CheckpointName::ofStep(epoch, step); }

std::string RunDirectory::bestCheckpointPath() const { return checkpointsDir() + "/" + CheckpointName::kBest; }

std::string RunDirectory::samplePath(int64_t step) const { return samplesDir() + "/step_" + std::to_string(step) + ".png"; }

void RunDirectory::writeRunJson(const nlohmann::json& j) const { AtomicFile::write(runJson(), j.dump(2) + "\n"); }

bool RunDirectory::hasRunJson() const { return fs::exists(runJson()); }

nlohmann::json RunDirectory::readRunJson() const {
    const std::string text = AtomicFile::read(runJson());
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw ConfigError("run.json in '" + root_ + "' is malformed (" + e.what() + ")");
    }
}

std::vector<std::string> RunDirectory::checkpoints() const {
    std::vector<std::pair<CheckpointName, std::string>> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(checkpointsDir(), ec))
        if (const auto name = CheckpointName::parse(entry.path().filename().string())) found.emplace_back(*name, entry.path().string());
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (auto& f : found) out.push_back(f.second);
    return out;
}

std::optional<std::string> RunDirectory::latestCheckpoint() const {
    auto all = checkpoints();
    if (all.empty()) return std::nullopt;
    return all.back();
}

}  // namespace streetgan
