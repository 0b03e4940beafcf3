// Reads a TensorBoard run (TensorBoardRun: a folder of event files) as typed events of our
// schema (base/run/Events.h), then follows it as its writer appends, through an EventFileSource
// (this machine, or SFTP for a host where only sshd runs).
//
// Offsets: the run's event files, in reading order, are taken as one stream: a file's first
// byte follows the last byte of the file before it. Each event comes with the byte range of the
// records it was made of, so a reader that resumes from the `end` of the last event it got sees
// no gap and no duplicate (what the attach protocol promises; docs/attach-protocol.md). As
// TensorBoard does, a file is left for good once a newer one exists and holds no more.
//
// Events: the scalars logged at one step (consecutive records of the same step) make one
// metrics event: the reference project's tags and ours fill its fields (G_loss -> loss_g,
// D_loss -> loss_d, D_X -> d_x, D_G_z1, D_G_z2; loss_d, img_per_s, ... as our trainer names
// them), every other tag goes into its `scalars`. A step's event is handed out once a record of
// another step follows, or once the run was quiet for `hold` (so a step whose tags are still
// being written is not cut in two). img_per_s is derived from the steps and wall times of
// consecutive events when no tag carries it (the reference's step counts images). An image
// (Summary.Image or a TF2 image tensor) gives a sample event whose path names its record
// (TensorBoardRun::imagePath). Simple values and TF2 tensor scalars (plugin "scalars", float,
// double or half) are scalars; histograms, audio and other plugins' tensors are counted only.
//
// Settings: the hparams plugin's values (PyTorch's add_hparams, TensorBoard's hparams API) are
// decoded (TfRecordReader::parseHParams) and kept for takeHParams(), not handed out as events
// (the attach stream stays as it was); malformed hparams data gives an HParams with a problem line.
//
// Bad input: a record whose CRC does not match or whose protobuf is malformed is skipped (the
// reading goes on at the next valid record); the first in each file gives an error event naming
// the file and the offset, the others are only counted. A torn last record waits for its rest.
//
// Thread contract: one thread. Errors: IoError when the run folder cannot be read (a file that
// vanished meanwhile is passed over), ConfigError for a start offset past the run's end or not at
// a record.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/run/Events.h"
#include "base/tensorboard/EventFileSource.h"
#include "base/tensorboard/TfRecordReader.h"

namespace streetgan {

class TensorBoardFollower {
public:
    struct Item {
        uint64_t offset = 0, end = 0;  ///< the byte range of its records in the run's stream
        Event event;
    };
    struct Counts {
        int64_t records = 0, scalars = 0, images = 0, histograms = 0, other = 0, corrupt = 0;
    };

    TensorBoardFollower(EventFileSource& files, std::string runDir, uint64_t fromOffset = 0, std::chrono::milliseconds hold = std::chrono::milliseconds(200));

    /// Reads what was appended (at most about `maxBytes`) and adds the events it completes to
    /// `out`. True when it stopped at `maxBytes` (more is waiting: poll again at once); false when
    /// it read up to the end of the run's files as they were (then wait()).
    bool poll(std::vector<Item>& out, std::size_t maxBytes = 4 << 20);
    /// Hands out the step still held back (the end of a finished run's reading).
    void flush(std::vector<Item>& out);
    /// A one-off read (ls, the Runs table): polls up to the end of the run's files as they are now,
    /// then flushes, handing each event to `each` (held in memory a poll's worth at a time).
    void drain(const std::function<void(const Item&)>& each);
    /// Blocks until the run's folder changes or `timeout` passes.
    void wait(std::chrono::milliseconds timeout) { files_.wait(runDir_, timeout); }
    /// Where a reader that got every event handed out so far resumes.
    uint64_t offset() const { return group_.open ? group_.start : consumed_; }
    const Counts& counts() const { return counts_; }
    /// The hparams plugin data read since the last call, in reading order (a run's Runs table
    /// settings: RunRecordReader).
    std::vector<TfRecordReader::HParams> takeHParams() { return std::exchange(hparams_, {}); }
    const std::string& runDir() const { return runDir_; }

    /// The metrics field a tag fills, nullptr for a tag with no field of its own.
    static double* fieldOf(MetricsEvent& m, const std::string& tag);

private:
    struct File {
        std::string name;
        uint64_t size = 0;
    };
    struct Group {
        bool open = false;
        uint64_t start = 0, end = 0;
        int64_t step = 0;
        double t = kNoValue;
        MetricsEvent metrics;
        std::chrono::steady_clock::time_point touched;
    };

    void refreshFiles();
    void seek(uint64_t offset);
    void consume(std::vector<Item>& out);
    void record(std::string_view data, uint64_t start, uint64_t end, std::vector<Item>& out);
    void addScalar(const std::string& tag, double value, double wallTime, int64_t step, uint64_t start, uint64_t end, std::vector<Item>& out);
    void bad(const std::string& what, uint64_t fileOffset, uint64_t end, std::vector<Item>& out);

    EventFileSource& files_;
    std::string runDir_;
    std::chrono::milliseconds hold_;
    std::vector<File> list_;                      // the event files, in reading order
    std::size_t cur_ = 0;                         // the file being read
    uint64_t base_ = 0;                           // the stream offset of its first byte
    uint64_t pos_ = 0;                            // the file offset of buf_'s first byte
    std::string buf_;                             // bytes read and not yet made into records
    uint64_t consumed_ = 0;                       // the stream offset up to which all is handed out
    std::map<std::string, std::string> plugins_;  // tag -> plugin, as stated in the current file
    bool reportedBad_ = false;                    // the current file's first bad record was reported
    bool listDue_ = true;                         // list the folder before the next read (the current file held no more)
    Group group_;
    bool tagThroughput_ = false;                             // a tag carries img_per_s: do not derive it
    std::optional<std::pair<int64_t, double>> lastMetrics_;  // step and wall time of the last event
    double lastWall_ = kNoValue;
    Counts counts_;
    std::vector<TfRecordReader::HParams> hparams_;
};

}  // namespace streetgan
