// Worker of the set-up dialog: connects to the host and runs one RemoteTrainerSetup method
// (no-root .deb install, sudo apt, build from source, or a prebuilt bundle), streaming output
// lines and upload progress, then probes the trainer it set up; or surveys the host (what system,
// which torch, which GPU) and chooses the set-up (TrainerPlan). Lives in a worker QThread; run()
// and survey() there. cancel() is thread-safe. `sudoPassword` runs on the worker thread (the dialog
// asks on the GUI thread).
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "base/remote/HostPlatform.h"
#include "base/remote/SshOptions.h"
#include "remote/TrainerStatus.h"

namespace streetgan::ui {

struct TrainerSetupRequest {
    enum Method { NoRoot = 0, SudoApt = 1, Source = 2, Bundle = 3 };
    Method method = NoRoot;
    QString file;                  ///< the .deb (NoRoot, SudoApt), the source tarball (Source) or the bundle (Bundle)
    QString python;                ///< Bundle: the Python whose torch the trainer runs against
    QString prefix = "~/.local";   ///< install prefix on the host
    QString workDir;               ///< Source: build folder; empty: PREFIX/src/streetgan
    BuildEnvironment environment;  ///< Source: the PyTorch to build against
};

class TrainerSetupWorker : public QObject {
    Q_OBJECT
public:
    explicit TrainerSetupWorker(SshOptions ssh) : ssh_(std::move(ssh)) {}
    void run(const streetgan::ui::TrainerSetupRequest& request);
    /// Probes the host's trainer (`remembered` first; emits probed()) and platform: surveyed(), or
    /// surveyFailed() with the error's one line. The choice (TrainerPlan) is the dialog's, with
    /// what it offers when the answer arrives.
    void survey(const std::string& remembered);
    void cancel() { cancel_.store(true); }
    std::function<std::optional<std::string>(const std::string& prompt, const std::atomic<bool>& cancel)> sudoPassword;

signals:
    void line(const QString& text);
    void uploadProgress(qint64 done, qint64 total);
    /// ok: `trainer` is the path to remember for the host.
    void finished(bool ok, bool cancelled, const QString& message, const QString& trainer);
    void probed(const streetgan::ui::TrainerStatus& status);
    /// `host`: the session's label, for the plan's texts.
    void surveyed(const streetgan::HostPlatform& platform, const QString& host);
    void surveyFailed(const QString& message);

private:
    SshOptions ssh_;
    std::atomic<bool> cancel_{false};
};

}  // namespace streetgan::ui

Q_DECLARE_METATYPE(streetgan::HostPlatform)
