// Where the TensorBoard runs of a machine are, without the user typing a path: the folders a
// TensorBoard user would give as --logdir, found under a home folder (a host with only another
// trainer's event files, e.g. the reference project's on a DL1 box). Looks first in the usual
// places (~/runs, ~/logs, ~/lightning_logs, ~/tb_logs, ~/tensorboard, ~/outputs), deeper there,
// then the home folder to a bounded depth; hidden folders, our own runs and the Python
// environments' trees are not searched, and the number of folders listed is bounded (each is one
// SFTP round trip on a remote host).
//
// Each run found (TensorBoardRun's rule: a folder directly holding event files) belongs to one
// watch folder: the usual place it lies under, else the folder holding its run folder (the
// reference's RUNS/NAME/events/ counts NAME as the run, RunStatus::tensorBoardNameUnder), always
// within RunStatus::kTensorBoardDepth of its runs so that listing the folder finds them all.
//
// Plain functions; safe from any thread. Errors: IoError when `home` itself cannot be read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/tensorboard/EventFileSource.h"

namespace streetgan {

class TensorBoardDiscovery {
public:
    struct Limits {
        int homeDepth = 3;     ///< folders below home searched (home/a/b/c holding events is found)
        int placeDepth = 4;    ///< folders below a usual place (~/runs/...) searched
        int maxFolders = 400;  ///< folders listed in all, the usual places first
    };
    struct Folder {
        std::string path;               ///< absolute: the folder to watch
        std::vector<std::string> runs;  ///< the runs' names under it (as the Runs list will show them), sorted
        int64_t newest = 0;             ///< the newest event file's modification time (seconds since the epoch)
    };
    struct Result {
        std::vector<Folder> folders;  ///< newest first
        int listed = 0;               ///< folders listed
        bool cut = false;             ///< maxFolders was reached before everything in depth was listed
    };

    /// The usual places of TensorBoard logs under a home folder, searched first and deepest.
    static const std::vector<std::string>& usualPlaces();
    /// The folders under `home` (absolute, no trailing slash) that hold TensorBoard runs.
    static Result find(EventFileSource& files, const std::string& home, const Limits& limits);
    static Result find(EventFileSource& files, const std::string& home) { return find(files, home, Limits{}); }
    /// The folder to watch for the run folder `run` (relative to home, "" for home itself).
    static std::string watchFolderOf(const std::string& run);
};

}  // namespace streetgan
