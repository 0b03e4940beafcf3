// The explorer's embedded default: the demo checkpoint (resources/demo/naive-64-synthetic.pt, a
// 64 px naive-64 generator trained on the synthetic streets, weights stored as float16) and its
// walk (walk.json) are compiled into streetgan_ui (resources/demo.qrc). The explore worker needs file
// paths, so install() copies both to QStandardPaths::AppDataLocation/demo/ on first use: each file
// is written atomically (AtomicFile), and the checkpoint's SHA-256 must equal walk.json's
// "checkpoint_sha256" (a copy that is already there and matches is kept as it is).
//
// Thread contract: stateless static functions; call from any one thread at a time (the GUI thread
// in the app: the files are 7.2 MB, tens of milliseconds of hashing and copying).
#pragma once

#include <QString>

namespace streetgan::ui {

class DemoCheckpoint {
public:
    /// Installs the files if needed and returns the absolute path of the demo session (walk.json),
    /// whose "checkpoint" names the copied checkpoint relative to it. Throws IoError when the
    /// folder cannot be written, DataError when the embedded checkpoint does not match its hash.
    static QString install();
    /// The folder install() writes to.
    static QString folder();
    /// SHA-256 of a file as 64 lower-case hex digits; empty when it cannot be read.
    static QString sha256(const QString& path);
    /// The checkpoint's file name, in the resources and in folder().
    static constexpr const char* kCheckpointFile = "naive-64-synthetic.pt";
};

}  // namespace streetgan::ui
