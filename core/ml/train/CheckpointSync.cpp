#include "ml/train/CheckpointSync.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/run/CheckpointName.h"
#include "base/run/EventLog.h"
#include "base/run/RunDirectory.h"
#include "base/s3/S3Error.h"
#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {

constexpr int kFormatVersion = 1;
constexpr const char* kFormat = "streetgan-checkpoint-sync";
constexpr const char* kEvents = "events.jsonl";
constexpr std::uint64_t kDownloadPiece = 64ULL << 20;  // a restored checkpoint is read in ranges of this size

// The event log up to its last complete line: the trainer may be appending one as we read.
std::string wholeLines(std::string text) {
    const size_t end = text.rfind('\n');
    text.resize(end == std::string::npos ? 0 : end + 1);
    return text;
}

std::string checkpointKey(int64_t step, const std::string& file) { return "checkpoints/" + std::to_string(step) + "/" + file; }

}  // namespace

CheckpointSync::CheckpointSync(std::string runDir, Target target, Say say)
    : runDir_(std::move(runDir)), stagingDir_(runDir_ + "/.checkpoint-sync"), target_(std::move(target)), say_(std::move(say)) {
    std::error_code ec;
    std::filesystem::remove_all(stagingDir_, ec);  // links a killed trainer left: they only cost names
    std::filesystem::create_directories(stagingDir_, ec);
    thread_ = std::thread([this] { work(); });
}

CheckpointSync::~CheckpointSync() {
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
        wake_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
    std::error_code ec;
    std::filesystem::remove_all(stagingDir_, ec);
}

void CheckpointSync::onEvent(const nlohmann::json& event) {
    if (inner_) inner_->onEvent(event);
    if (event.value("kind", "") != "checkpoint" || !event.contains("path")) return;
    Job job;
    job.file = std::filesystem::path(event.at("path").get<std::string>()).filename().string();
    job.step = event.value("step", int64_t{0});
    job.epoch = event.value("epoch", int64_t{0});
    const std::string source = runDir_ + "/checkpoints/" + job.file;
    // A hard link keeps the file's content for the upload whatever pruning does to its name; where
    // the file system has no links, the file itself (pruned before its upload: a skipped sync).
    job.staged = stagingDir_ + "/" + std::to_string(job.step) + "-" + job.file;
    ::unlink(job.staged.c_str());
    if (::link(source.c_str(), job.staged.c_str()) != 0) job.staged = source;
    const std::lock_guard lock(mutex_);
    if (pending_ && pending_->staged != runDir_ + "/checkpoints/" + pending_->file) ::unlink(pending_->staged.c_str());
    pending_ = std::move(job);  // a newer checkpoint replaces one still waiting
    wake_.notify_all();
}

bool CheckpointSync::finish() {
    {
        const std::lock_guard lock(mutex_);
        finishing_ = true;
        wake_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
    const std::lock_guard lock(mutex_);
    return !anyFailed_;
}

void CheckpointSync::work() {
    s3::S3Client client(target_.url.bucket, target_.options, target_.credentials);
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return pending_ || finishing_ || stopping_; });
        if (stopping_) return;
        if (pending_) {
            const Job job = std::move(*pending_);
            pending_.reset();
            lock.unlock();
            upload(client, job);
            if (job.staged != runDir_ + "/checkpoints/" + job.file) ::unlink(job.staged.c_str());
            lock.lock();
            continue;
        }
        // finishing, nothing queued: the final event log (the stop's status) beside the last checkpoint
        lock.unlock();
        if (last_) {
            try {
                uploadState(client);
                say_("checkpoint of step " + std::to_string(last_->step) + " synced to " + target_.url.str() + " (" + kManifest + ")");
            } catch (const std::exception& e) {
                failed(e);
            }
        }
        return;
    }
}

void CheckpointSync::upload(s3::S3Client& client, const Job& job) {
    try {
        const std::string key = checkpointKey(job.step, job.file);
        const std::uint64_t bytes = std::filesystem::file_size(job.staged);
        client.putFile(target_.url.folderPrefix() + key, job.staged, target_.partSize);
        last_ = job;
        last_->bytes = bytes;
        uploadState(client);
        recent_.push_back(key);
        if (recent_.size() > 2) recent_.erase(recent_.begin());
        const auto name = CheckpointName::parse(job.file);
        if (name && name->step) midEpoch_.push_back(key);
        for (auto it = midEpoch_.begin(); it != midEpoch_.end();) {
            if (std::find(recent_.begin(), recent_.end(), *it) != recent_.end()) {
                ++it;
                continue;
            }
            client.remove(target_.url.folderPrefix() + *it);
            it = midEpoch_.erase(it);
        }
        const std::lock_guard lock(mutex_);
        failing_ = false;
    } catch (const std::exception& e) {
        failed(e);
    }
}

void CheckpointSync::uploadState(s3::S3Client& client) {
    // The whole log at each sync: S3 has no append (a multipart copy could add the new tail to the
    // old object, but every part but the last must be 5 MiB), and the log is small beside a
    // checkpoint (a metrics line is ~0.4 kB per --log-every steps: 4 MB after 100000 steps at 10).
    const RunDirectory dir(runDir_, /*create=*/false);
    const std::string events = wholeLines(AtomicFile::read(dir.events()));
    nlohmann::json manifest = {{"format", kFormat},
                               {"version", kFormatVersion},
                               {"step", last_->step},
                               {"epoch", last_->epoch},
                               {"checkpoint", checkpointKey(last_->step, last_->file)},
                               {"checkpoint_file", last_->file},
                               {"checkpoint_bytes", last_->bytes},
                               {"events", kEvents},
                               {"events_bytes", events.size()},
                               {"run", dir.hasRunJson() ? dir.readRunJson() : nlohmann::json::object()},
                               {"t", EventLog::now()}};
    client.put(target_.url.folderPrefix() + kEvents, events);
    client.put(target_.url.folderPrefix() + kManifest, manifest.dump(2) + "\n");  // last: the state is complete
}

void CheckpointSync::failed(const std::exception& e) {
    const std::lock_guard lock(mutex_);
    anyFailed_ = true;
    if (failing_) return;
    failing_ = true;
    say_("checkpoint sync to " + target_.url.str() + " failed: " + e.what() + " (training goes on; the next checkpoint is uploaded again)");
}

std::optional<int64_t> CheckpointSync::restore(const std::string& runDir, const Target& target, const Say& say) {
    const RunDirectory dir(runDir, /*create=*/true);
    if (dir.latestCheckpoint()) return std::nullopt;  // this folder's own checkpoints come first
    s3::S3Client client(target.url.bucket, target.options, target.credentials);
    const std::string prefix = target.url.folderPrefix();
    const std::string where = target.url.uri(prefix + kManifest);
    std::string text;
    try {
        text = client.get(prefix + kManifest);
    } catch (const s3::S3Error& e) {
        if (e.kind() != s3::S3Error::Kind::NotFound) throw;
        say("no checkpoint synced to " + target.url.str() + " yet (no " + where + "): the run starts from the beginning");
        return std::nullopt;
    }
    const auto manifest = nlohmann::json::parse(text, nullptr, false);
    auto field = [&](const char* name, bool (nlohmann::json::*isType)() const noexcept) -> const nlohmann::json& {
        if (!manifest.is_object() || !manifest.contains(name) || !(manifest.at(name).*isType)())
            throw ConfigError(where + " is not a checkpoint sync manifest (no valid \"" + name +
                              "\"): check --checkpoint-sync names the prefix a run synced to");
        return manifest.at(name);
    };
    if (field("format", &nlohmann::json::is_string) != kFormat || field("version", &nlohmann::json::is_number_integer).get<int>() > kFormatVersion)
        throw ConfigError(where + " is of another format or a newer version: update streetgan-trainer, or check --checkpoint-sync");
    const int64_t step = field("step", &nlohmann::json::is_number_integer).get<int64_t>();
    const std::string file = field("checkpoint_file", &nlohmann::json::is_string).get<std::string>();
    if (!CheckpointName::parse(file)) throw ConfigError(where + " names the checkpoint file '" + file + "', not a checkpoint's name: check --checkpoint-sync");
    const std::string checkpoint = field("checkpoint", &nlohmann::json::is_string).get<std::string>();
    const auto checkpointBytes = field("checkpoint_bytes", &nlohmann::json::is_number_unsigned).get<std::uint64_t>();
    const auto eventsBytes = field("events_bytes", &nlohmann::json::is_number_unsigned).get<std::uint64_t>();
    const std::string events = field("events", &nlohmann::json::is_string).get<std::string>();
    const nlohmann::json& run = field("run", &nlohmann::json::is_object);

    std::string bytes;
    while (bytes.size() < checkpointBytes) {
        const std::string piece = client.getRange(prefix + checkpoint, bytes.size(), std::min(kDownloadPiece, checkpointBytes - bytes.size()));
        if (piece.empty()) break;
        bytes += piece;
    }
    if (bytes.size() != checkpointBytes)
        throw IoError(target.url.uri(prefix + checkpoint) + " has " + std::to_string(bytes.size()) + " bytes, not the " + std::to_string(checkpointBytes) +
                      " its manifest says: another run syncs to the same prefix? Give each run its own --checkpoint-sync");
    // The log's first events_bytes bytes are the log of that sync: a later sync only appended.
    const std::string log = client.getRange(prefix + events, 0, eventsBytes);
    if (log.size() != eventsBytes)
        throw IoError(target.url.uri(prefix + events) +
                      " is shorter than its manifest says: another run syncs to the same prefix? Give each run its own "
                      "--checkpoint-sync");
    // The checkpoint first and run.json last: a restore cut short leaves a folder that is not yet a
    // run, or one that resumes from the restored checkpoint.
    AtomicFile::write(dir.checkpointsDir() + "/" + file, bytes);
    AtomicFile::write(dir.events(), log);
    dir.writeRunJson(run);
    say("continuing from " + target.url.str() + ": the checkpoint of step " + std::to_string(step) + " (" + file + ")");
    return step;
}

}  // namespace streetgan
