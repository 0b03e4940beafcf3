// Opens the explorer's sessions through the explore worker (docs/explore-worker.md):
//  - a checkpoint: a new session (three seed keyframes, every other key the worker's default);
//  - a session file (docs/cli.md "Session file"): its checkpoint is resolved against the file's folder
//    and kept as an absolute path; a session that names none uses the checkpoint open now;
//  - the embedded demo (DemoCheckpoint).
// The worker opens the checkpoint (`open`: nz, size, SHA-256); a session made for another
// checkpoint asks the Confirm hook first; then the worker validates the session and fills its
// defaults (`session`: core's LatentSession, the one validator), and loaded() hands it over. After
// that the worker's PCA cache is warmed, so the first direction slider moves at once.
// Asynchronous: loaded() or failed() follows each open; a newer open drops an older one's answers.
//
// Thread contract: GUI thread; the RenderClient must outlive this object.
#pragma once

#include <QObject>
#include <QString>
#include <functional>

#include <nlohmann/json.hpp>

#include "base/latent/LatentSession.h"

namespace streetgan::ui {

class RenderClient;
class WorkerRequests;

class SessionLoader : public QObject {
    Q_OBJECT
public:
    /// The hash-mismatch prompt: the warning line; true = continue with this checkpoint.
    using Confirm = std::function<bool(const QString& warning)>;

    struct Opened {
        LatentSession session;  ///< validated, every default filled in; checkpoint_sha256 is the checkpoint's
        QString checkpoint;     ///< absolute path
        nlohmann::json info;    ///< the worker's `open` reply (nz, img_size, sha256, preset, device...)
        QString sessionPath;    ///< absolute; empty for a new session
        bool play = false;      ///< start playback once installed
    };

    SessionLoader(RenderClient* client, QObject* parent);
    void setConfirm(Confirm confirm) { confirm_ = std::move(confirm); }

    /// A new session for `checkpoint` (an existing file).
    void openCheckpoint(const QString& checkpoint);
    /// A session file; `current` is the checkpoint open now (for a session that names none).
    void openSession(const QString& path, const QString& current, bool play = false);
    /// The demo checkpoint and walk, installed from the resources first.
    void openDemo(const QString& current, bool play);

signals:
    void loaded(const streetgan::ui::SessionLoader::Opened& opened);
    /// One line: what could not be opened and what to do.
    void failed(const QString& message);
    void statusMessage(const QString& message);

private:
    void load(const QString& checkpoint, nlohmann::json session, const QString& sessionPath, bool play);

    WorkerRequests* worker_;
    Confirm confirm_;
    quint64 serial_ = 0;
};

}  // namespace streetgan::ui
