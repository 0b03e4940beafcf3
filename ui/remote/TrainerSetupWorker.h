// Worker of the set-up dialog: connects to the host and runs one RemoteTrainerSetup method
// (no-root .deb install, sudo apt, or build from source), streaming output lines and upload
// progress, then probes the trainer it set up. Lives in a worker QThread; run() there. cancel()
// is thread-safe. `sudoPassword` runs on the worker thread (the dialog asks on the GUI thread).
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "base/remote/SshOptions.h"
#include "remote/TrainerStatus.h"

namespace streetgan::ui {

struct TrainerSetupRequest {
    enum Method { NoRoot = 0, SudoApt = 1, Source = 2 };
    Method method = NoRoot;
    QString file;                  ///< the .deb (NoRoot, SudoApt) or the source tarball (Source)
    QString prefix = "~/.local";   ///< install prefix on the host
    QString workDir;               ///< Source: build folder; empty: PREFIX/src/streetgan
    BuildEnvironment environment;  ///< Source: the PyTorch to build against
};

class TrainerSetupWorker : public QObject {
    Q_OBJECT
public:
    explicit TrainerSetupWorker(SshOptions ssh) : ssh_(std::move(ssh)) {}
    void run(const streetgan::ui::TrainerSetupRequest& request);
    void cancel() { cancel_.store(true); }
    std::function<std::optional<std::string>(const std::string& prompt, const std::atomic<bool>& cancel)> sudoPassword;

signals:
    void line(const QString& text);
    void uploadProgress(qint64 done, qint64 total);
    /// ok: `trainer` is the path to remember for the host.
    void finished(bool ok, bool cancelled, const QString& message, const QString& trainer);
    void probed(const streetgan::ui::TrainerStatus& status);

private:
    SshOptions ssh_;
    std::atomic<bool> cancel_{false};
};

}  // namespace streetgan::ui
