// TensorBoard's convention for what a run is, in one place: every folder that directly holds
// event files (names containing "tfevents") is one run, and its event files are read in
// wall-time order (the Unix seconds in "events.out.tfevents.<seconds>.<host>...", then the
// name), so a restart's new file continues the run. PyTorch's SummaryWriter.add_hparams writes
// its hparams and metric values into a sub-folder of the run named by time.time()
// ("1795993823.0984778"): such a folder holding event files is part of its parent run (which is a
// run even when it holds no event files of its own), never a run of its own. A folder that is one of our own runs
// (RunStatus) is ours, with its tb/ copy of the events: never a TensorBoard run of its own.
//
// Also the name of an image inside an event file, as a sample event's path: "<file>#<offset>"
// (the record's byte offset in that file), which the app's file fetcher resolves.
//
// Plain functions; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/tensorboard/EventFileSource.h"

namespace streetgan {

class TensorBoardRun {
public:
    /// The state `ls` and attach give a TensorBoard run: there is no trainer of ours to ask.
    static constexpr char kState[] = "tensorboard";

    static bool isEventFileName(const std::string& name);
    /// Whether event file `a` is read before `b` (wall-time order).
    static bool readsBefore(const std::string& a, const std::string& b);
    /// The event files among `entries`, in reading order.
    static std::vector<EventFileSource::Entry> eventFiles(std::vector<EventFileSource::Entry> entries);
    /// Whether `folder` on this machine directly holds an event file, or an hparams sub-folder does.
    static bool isRun(const std::string& folder);
    /// A name as add_hparams gives its sub-folder: str(time.time()), Unix seconds with a fraction.
    static bool isHParamsFolderName(const std::string& name);
    /// The hparams sub-folders among a folder's `entries` that hold event files (read through
    /// `files` from `folder`), by name, sorted. An unreadable one is passed over.
    static std::vector<std::string> hparamsFolders(EventFileSource& files, const std::string& folder, const std::vector<EventFileSource::Entry>& entries);
    /// Whether a folder with these entries is one of our runs (it holds run.json or events.jsonl,
    /// as RunStatus::isRunDirectory says of a local folder).
    static bool holdsOurRun(const std::vector<EventFileSource::Entry>& entries);
    /// The TensorBoard runs under `root` (root itself included), as paths relative to it ("" for
    /// root itself), sorted; at most `maxDepth` folders below it. Hidden folders and our own runs
    /// are not searched.
    static std::vector<std::string> find(EventFileSource& files, const std::string& root, int maxDepth);

    /// Where a TensorBoard run's torch.save checkpoints are looked for, relative to its folder: the
    /// reference project's checkpoints/ beside its events/ folder, a checkpoints/ inside, and the
    /// run folder itself.
    static const std::vector<std::string>& checkpointFolders();
    /// A checkpoint file's name: *.pt or *.pth.
    static bool isCheckpointName(const std::string& name);
    struct CheckpointFile {
        std::string path;  ///< relative to the run folder, "<checkpoint folder>/<name>" (uncleaned: "./NAME")
        uint64_t size = 0;
        int64_t mtime = 0;
    };
    /// The checkpoints in checkpointFolders() of the run `runDir`, read through `files`, oldest
    /// first: by the number that ends the name's stem (the reference's checkpoint_<epoch>.pt; a
    /// name without one first), then modification time, then name. A folder that is missing or
    /// unreadable holds none; a lost connection (ConnectionLostError) is thrown.
    static std::vector<CheckpointFile> checkpoints(EventFileSource& files, const std::string& runDir);

    /// A sample path naming the image of the record at `recordOffset` of `eventFile`.
    static std::string imagePath(const std::string& eventFile, uint64_t recordOffset);
    struct ImageRef {
        std::string eventFile;
        uint64_t recordOffset = 0;
    };
    /// The parts of an imagePath(), nullopt for any other path.
    static std::optional<ImageRef> parseImagePath(const std::string& path);
    /// The encoded image (PNG bytes) of the record imagePath() names, read through `files` from
    /// the run folder `runDir`. IoError naming the file and offset when it holds none.
    static std::string readImage(EventFileSource& files, const std::string& runDir, const ImageRef& ref);

private:
    static void findIn(EventFileSource& files, const std::string& root, const std::string& rel, int depthLeft, std::vector<std::string>& out);
};

}  // namespace streetgan
