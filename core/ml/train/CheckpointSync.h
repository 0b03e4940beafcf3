// CheckpointSync: a run's checkpoints copied to S3 as they are written (--checkpoint-sync
// s3://bucket/prefix), so that a spot or preemptible instance that is taken away costs at most
// one checkpoint interval, and `train --resume --checkpoint-sync s3://...` on a new machine, in an
// empty folder, continues the run (restore()).
//
// What the prefix holds:
//   checkpoints/<step>/<file>   each synced checkpoint (multipart for large files, S3Client::putFile);
//                               keyed by step too, since a run writes its epoch file again later
//   events.jsonl                the run's event log, the whole file at each sync (see upload())
//   latest.json                 the manifest, written last: the checkpoint's key, step and size, the
//                               event log's length at that sync and run.json's content. A reader
//                               that reads the manifest first sees one consistent state: the
//                               checkpoint object is never rewritten, the log is append-only (its
//                               first events_bytes bytes are that state's log) and run.json is in it.
// The mid-epoch checkpoints a later sync supersedes are deleted but those of the latest two
// manifests (a reader that just read the previous one still finds its checkpoint); epoch files
// stay, as in the run folder.
//
// The uploads run on a thread of their own, so training never waits for the network: onEvent (the
// training thread) hard-links the checkpoint an event names into the run's .checkpoint-sync/
// folder (pruning cannot take it away) and queues it; when the uploads fall behind, a queued
// checkpoint is replaced by the newer one. finish() (after the run, e.g. after SIGTERM or the spot
// notice) waits until the last checkpoint and the final event log are uploaded. A failed upload is
// one line through `say` (then silent until a sync succeeds again) and training goes on.
//
// Thread contract: onEvent and finish on the training thread (the TrainObserver's); `say` is called
// from the upload thread. restore() is a plain function of any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/run/TrainObserver.h"
#include "base/s3/S3Client.h"
#include "base/s3/S3Url.h"

namespace streetgan {

class CheckpointSync : public TrainObserver {
public:
    struct Target {
        s3::S3Url url;
        s3::S3ClientOptions options;
        s3::S3Client::CredentialSource credentials;
        /// Bytes: a checkpoint larger than this goes up in parts of this size (--checkpoint-sync-part-size)
        std::uint64_t partSize = 64ULL << 20;
    };
    using Say = std::function<void(const std::string& line)>;
    static constexpr const char* kManifest = "latest.json";

    /// `runDir`: the run directory the trainer writes (rank 0's). Starts the upload thread.
    CheckpointSync(std::string runDir, Target target, Say say);
    /// Stops after the upload in progress (what is queued is dropped: call finish() first).
    ~CheckpointSync() override;
    CheckpointSync(const CheckpointSync&) = delete;
    CheckpointSync& operator=(const CheckpointSync&) = delete;

    /// The observer every event is passed on to first (nullptr: none).
    void setInner(TrainObserver* inner) { inner_ = inner; }
    void onEvent(const nlohmann::json& event) override;
    /// Uploads what is queued, then the event log as it is now with a new manifest; returns when
    /// done (call once, after the run). False when any sync of this run failed (each was said).
    bool finish();

    /// Into `runDir` (made if needed), when it has no checkpoint of its own: the checkpoint the
    /// target's manifest names, the event log up to that sync and run.json. Returns the step
    /// restored; nullopt when the folder has a checkpoint (it is resumed as it is) or nothing was
    /// synced yet (said). Throws S3Error / ConfigError (a manifest that is not ours) / IoError.
    static std::optional<int64_t> restore(const std::string& runDir, const Target& target, const Say& say);

private:
    struct Job {
        std::string staged;  ///< the hard link (or the file itself where links fail)
        std::string file;    ///< its name in checkpoints/
        int64_t step = 0, epoch = 0;
        std::uint64_t bytes = 0;  ///< its size, once uploaded
    };
    void work();
    /// One checkpoint: the file, the event log, the manifest; then the superseded objects deleted.
    void upload(s3::S3Client& client, const Job& job);
    /// The event log as it is (whole lines) and a manifest naming `last_`'s checkpoint.
    void uploadState(s3::S3Client& client);
    void failed(const std::exception& e);

    const std::string runDir_, stagingDir_;
    const Target target_;
    const Say say_;
    TrainObserver* inner_ = nullptr;

    std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<Job> pending_;
    bool finishing_ = false, stopping_ = false;
    bool failing_ = false;  ///< the last sync failed (its line was said)
    bool anyFailed_ = false;
    // The upload thread's own.
    std::optional<Job> last_;            ///< the checkpoint of the latest manifest
    std::vector<std::string> recent_;    ///< the checkpoint keys of the latest two manifests
    std::vector<std::string> midEpoch_;  ///< the mid-epoch checkpoint keys uploaded and not yet deleted
    std::thread thread_;
};

}  // namespace streetgan
