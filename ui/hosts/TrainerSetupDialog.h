// "Set up streetgan-trainer on HOST": offers the set-ups that apply to the host (docs/remote-
// setup.md): no root under a prefix (~/.local) and sudo apt on Debian 12, a prebuilt bundle run
// against the host's Python torch, build from source against the host's PyTorch (conda env, venv,
// Python or LibTorch folder) anywhere. survey() asks the host what it is and preselects the
// set-up TrainerPlan chooses, saying what it chose and why (unless a choice was made); remembers the
// choice per host (QSettings "remoteSetup/<user@host:port>/...", RemoteHost::identity()), runs a TrainerSetupWorker on its own
// thread, shows its output live and the result, then tells the RemoteHost which trainer to use.
// GUI thread. Closing it while it works cancels the work (the remote build is killed).
#pragma once

#include <QDialog>
#include <QPointer>
#include <QString>

#include <functional>
#include <optional>

#include "remote/TrainerSetupWorker.h"

class QButtonGroup;
class QComboBox;
class QFormLayout;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QThread;

namespace streetgan::ui {

class RemoteHost;

class TrainerSetupDialog : public QDialog {
    Q_OBJECT
public:
    TrainerSetupDialog(RemoteHost* host, QWidget* parent = nullptr);
    ~TrainerSetupDialog() override;

    /// Choices, as the widgets show them (tests set them; settings restore them).
    void setMethod(TrainerSetupRequest::Method method);
    TrainerSetupRequest::Method method() const;
    void setFile(const QString& path);
    void setPrefix(const QString& prefix);
    /// Surveys the host on a worker thread (HostPlatform, TrainerPlan); the plan's line appears in
    /// planText() and its set-up is preselected unless the user (or setMethod) chose one already.
    void survey();
    QString planText() const;
    /// The header: the host and its trainer as last checked (follows the host's checks).
    QString statusText() const;
    bool isSurveying() const { return surveyThread_ != nullptr; }
    void setEnvironment(BuildEnvironment::Kind kind, const QString& value);
    TrainerSetupRequest request() const;
    /// Starts the set-up (the Start button). Returns false, with the reason in resultText(), when
    /// a choice is missing (no file: which file and where it was looked for).
    bool start();
    void cancel();
    bool isRunning() const { return thread_ != nullptr; }
    QString resultText() const;
    QString logText() const;

    /// Tests replace the sudo password question (called on the GUI thread).
    std::function<std::optional<QString>(const QString& prompt)> sudoPasswordDialog;

signals:
    /// The work ended (ok: the host now runs `trainer`).
    void setupFinished(bool ok, const QString& message);
    /// survey() ended; planText() says what was found.
    void surveyFinished();

protected:
    void reject() override;

private:
    QString missingChoice(const TrainerSetupRequest& r) const;
    void startWorker(const TrainerSetupRequest& r);
    QFormLayout* buildForm();
    QHBoxLayout* buildButtons();
    void updateChoices();
    void loadSettings();
    void saveSettings() const;
    QString settingsKey(const QString& name) const;
    void finish(bool ok, bool cancelled, const QString& message, const QString& trainer);
    /// Chooses with TrainerPlan from what the host is and what the dialog offers now (the .deb
    /// field, the bundles found), shows it, and preselects it unless a choice was made.
    void applyPlan(const HostPlatform& platform, const QString& host);
    void endSurvey();
    void showStatus(const TrainerStatus& status);  // the header: host, trainer found, OS, a protocol mismatch

    QPointer<RemoteHost> host_;
    QString hostLabel_, hostIdentity_;
    QLabel *status_, *plan_;
    QButtonGroup* methods_;
    QLineEdit *prefix_, *debFile_, *tarball_, *bundleFile_, *envValue_;
    QComboBox* envKind_;
    QPlainTextEdit* log_;
    QProgressBar* progress_;
    QLabel* result_;
    QPushButton *start_, *cancel_;
    QThread* thread_ = nullptr;
    TrainerSetupWorker* worker_ = nullptr;
    QThread* surveyThread_ = nullptr;
    TrainerSetupWorker* surveyWorker_ = nullptr;
    bool debian12_ = true;
    bool chosen_ = false;  // a set-up was chosen (by hand, by setMethod, or remembered): the plan does not override it
};

}  // namespace streetgan::ui
