#include "hosts/TrainerSetupDialog.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QThread>
#include <QVBoxLayout>

#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>

#include "base/remote/TrainerPlan.h"
#include "common/WorkerThreads.h"
#include "remote/RemoteHost.h"

namespace streetgan::ui {

namespace {

const char* const kDebEnv = "STREETGAN_TRAINER_DEB";
const char* const kDebName = "streetgan-trainer.deb";
const char* const kSourceEnv = "STREETGAN_SOURCE_TARBALL";
const char* const kSourceName = "streetgan-source.tar.gz";
// Prebuilt bundles (packaging/gpu-bundle.sh --tar): every one in the app's share/streetgan/remote/
// and in the folder this variable names.
const char* const kBundlesEnv = "STREETGAN_TRAINER_BUNDLES";

std::vector<TrainerBundle> bundledBundles() {
    std::vector<TrainerBundle> all;
    for (const std::string& dir : RemoteTrainerSetup::bundledDirs(QCoreApplication::applicationDirPath().toStdString())) {
        auto found = TrainerBundle::findIn(dir);
        all.insert(all.end(), found.begin(), found.end());
    }
    if (const char* dir = std::getenv(kBundlesEnv); dir && *dir) {
        auto more = TrainerBundle::findIn(dir);
        all.insert(all.begin(), more.begin(), more.end());
    }
    return all;
}

QString bundled(const char* env, const char* name) {
    try {
        return QString::fromStdString(RemoteTrainerSetup::locateBundled(QCoreApplication::applicationDirPath().toStdString(), env, name));
    } catch (const std::exception&) {
        return {};  // a wrong variable: start() names it
    }
}

QLineEdit* fileRow(QWidget* parent, QFormLayout* form, const QString& label, const QString& filter) {
    auto* edit = new QLineEdit(parent);
    auto* browse = new QPushButton(QObject::tr("Browse…"), parent);
    auto* row = new QHBoxLayout;
    row->addWidget(edit, 1);
    row->addWidget(browse);
    form->addRow(label, row);
    QObject::connect(browse, &QPushButton::clicked, parent, [parent, edit, filter] {
        const QString f = QFileDialog::getOpenFileName(parent, QObject::tr("Choose the file to upload"), edit->text(), filter);
        if (!f.isEmpty()) edit->setText(f);
    });
    return edit;
}

}  // namespace

TrainerSetupDialog::TrainerSetupDialog(RemoteHost* host, QWidget* parent) : QDialog(parent), host_(host), hostLabel_(host->label()) {
    setWindowTitle(tr("Set up streetgan-trainer on %1").arg(hostLabel_));
    auto* layout = new QVBoxLayout(this);
    status_ = new QLabel(this);
    status_->setObjectName("setupStatus");
    status_->setWordWrap(true);
    layout->addWidget(status_);
    // What the survey found and chose (survey()); hidden until it has something to say.
    plan_ = new QLabel(this);
    plan_->setObjectName("setupPlan");
    plan_->setWordWrap(true);
    plan_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    plan_->setVisible(false);
    layout->addWidget(plan_);

    methods_ = new QButtonGroup(this);
    auto* noRoot = new QRadioButton(tr("Install the package without root (unpacked under the prefix, a wrapper in PREFIX/bin)"), this);
    auto* sudo = new QRadioButton(tr("Install the package with sudo apt (asks for the sudo password; never stored)"), this);
    auto* bundle =
        new QRadioButton(tr("Install the prebuilt trainer bundle for the host's torch (no root, nothing compiled; runs against that Python's torch)"), this);
    auto* source = new QRadioButton(tr("Build from source on the host against its own PyTorch (packaging/build-trainer.sh)"), this);
    methods_->addButton(noRoot, TrainerSetupRequest::NoRoot);
    methods_->addButton(sudo, TrainerSetupRequest::SudoApt);
    methods_->addButton(bundle, TrainerSetupRequest::Bundle);
    methods_->addButton(source, TrainerSetupRequest::Source);
    for (auto* b : {noRoot, sudo, bundle, source}) layout->addWidget(b);

    layout->addLayout(buildForm());

    log_ = new QPlainTextEdit(this);
    log_->setObjectName("setupLog");
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(5000);
    log_->setMinimumHeight(200);
    log_->setPlaceholderText(tr("Choose how to set it up, then Set up: the upload, the installation or the build's output appear here."));
    layout->addWidget(log_, 1);
    progress_ = new QProgressBar(this);
    progress_->setVisible(false);
    layout->addWidget(progress_);
    result_ = new QLabel(this);
    result_->setObjectName("setupResult");
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(result_);
    layout->addLayout(buildButtons());
    connect(methods_, &QButtonGroup::idClicked, this, [this](int) {
        chosen_ = true;
        updateChoices();
    });

    const TrainerStatus& s = host->trainerStatus();
    // The header follows the host's own checks (one state per host): a probe that ends while the
    // dialog is open ("not installed") shows here as in the hosts list and the status bar.
    connect(host, &RemoteHost::trainerProbed, this, [this](const TrainerStatus& st) { showStatus(st); });
    // Unknown OS (not probed yet): offer every set-up; the host's own checks refuse what cannot work.
    debian12_ = s.state == TrainerStatus::Unknown || s.debian12;
    showStatus(s);
    noRoot->setEnabled(debian12_);
    sudo->setEnabled(debian12_);
    debFile_->setText(bundled(kDebEnv, kDebName));
    tarball_->setText(bundled(kSourceEnv, kSourceName));
    setMethod(debian12_ ? TrainerSetupRequest::NoRoot : TrainerSetupRequest::Source);
    if (!debian12_ && s.hasConda) envKind_->setCurrentIndex(envKind_->findData(int(BuildEnvironment::Kind::Conda)));
    chosen_ = false;  // the default above is no choice; a remembered one (below) is
    loadSettings();
    resize(720, 560);
}

// Where to install, the files to upload (pre-filled with those the app's package carries), and
// the PyTorch a build uses.
QFormLayout* TrainerSetupDialog::buildForm() {
    auto* form = new QFormLayout;
    prefix_ = new QLineEdit("~/.local", this);
    form->addRow(tr("Install prefix on the host:"), prefix_);
    debFile_ = fileRow(this, form, tr("Trainer package (.deb):"), tr("Debian packages (*.deb)"));
    bundleFile_ = fileRow(this, form, tr("Trainer bundle:"), tr("Trainer bundles (streetgan-trainer-bundle-*.tar.gz)"));
    tarball_ = fileRow(this, form, tr("Source tarball:"), tr("Tarballs (*.tar.gz *.tgz)"));
    debFile_->setPlaceholderText(tr("none installed with this app: Browse… for streetgan-trainer_<version>_<arch>.deb"));
    tarball_->setPlaceholderText(tr("none installed with this app: Browse… for streetgan-source.tar.gz"));
    bundleFile_->setPlaceholderText(
        tr("chosen for the host's torch when the host is checked, or Browse… for streetgan-trainer-bundle-torch<version>-*.tar.gz"));
    envKind_ = new QComboBox(this);
    envKind_->addItem(tr("Python interpreter (empty: python3)"), int(BuildEnvironment::Kind::Python));
    envKind_->addItem(tr("conda environment (name)"), int(BuildEnvironment::Kind::Conda));
    envKind_->addItem(tr("venv (folder)"), int(BuildEnvironment::Kind::Venv));
    envKind_->addItem(tr("LibTorch (folder)"), int(BuildEnvironment::Kind::LibTorch));
    envValue_ = new QLineEdit(this);
    auto* envRow = new QHBoxLayout;
    envRow->addWidget(envKind_);
    envRow->addWidget(envValue_, 1);
    form->addRow(tr("PyTorch to use:"), envRow);
    return form;
}

// Set up, Cancel, Close.
QHBoxLayout* TrainerSetupDialog::buildButtons() {
    auto* buttons = new QHBoxLayout;
    start_ = new QPushButton(tr("Set up"), this);
    cancel_ = new QPushButton(tr("Cancel"), this);
    auto* close = new QPushButton(tr("Close"), this);
    buttons->addStretch(1);
    for (auto* b : {start_, cancel_, close}) buttons->addWidget(b);
    cancel_->setEnabled(false);
    connect(start_, &QPushButton::clicked, this, [this] { start(); });
    connect(cancel_, &QPushButton::clicked, this, [this] { cancel(); });
    connect(close, &QPushButton::clicked, this, [this] { reject(); });
    return buttons;
}

TrainerSetupDialog::~TrainerSetupDialog() {
    if (worker_) worker_->cancel();
    if (thread_) WorkerThreads::quitWithoutBlocking(thread_);
    if (surveyThread_) WorkerThreads::quitWithoutBlocking(surveyThread_);
}

QString TrainerSetupDialog::settingsKey(const QString& name) const {
    // The host's identity (user@address:port after ~/.ssh/config), so that an alias and its
    // address share their remembered choices. QSettings reads '/' as a group separator.
    QString host = hostIdentity_;
    host.replace('/', '_');
    return "remoteSetup/" + host + "/" + name;
}

void TrainerSetupDialog::loadSettings() {
    QSettings s;
    if (!s.contains(settingsKey("method"))) return;
    const auto m = static_cast<TrainerSetupRequest::Method>(s.value(settingsKey("method")).toInt());
    if (methods_->button(m) && methods_->button(m)->isEnabled()) setMethod(m);  // remembered: a choice the plan keeps
    prefix_->setText(s.value(settingsKey("prefix"), prefix_->text()).toString());
    if (const auto k = BuildEnvironment::kindFromName(s.value(settingsKey("envKind")).toString().toStdString()))
        setEnvironment(*k, s.value(settingsKey("envValue")).toString());
    const QString deb = s.value(settingsKey("deb")).toString(), tarball = s.value(settingsKey("tarball")).toString();
    const QString bundle = s.value(settingsKey("bundle")).toString();
    if (!deb.isEmpty() && QFileInfo::exists(deb)) debFile_->setText(deb);
    if (!tarball.isEmpty() && QFileInfo::exists(tarball)) tarball_->setText(tarball);
    if (!bundle.isEmpty() && QFileInfo::exists(bundle)) bundleFile_->setText(bundle);
}

void TrainerSetupDialog::saveSettings() const {
    QSettings s;
    const TrainerSetupRequest r = request();
    s.setValue(settingsKey("method"), int(r.method));
    s.setValue(settingsKey("prefix"), r.prefix);
    s.setValue(settingsKey("envKind"), QString(BuildEnvironment::kindName(r.environment.kind)));
    s.setValue(settingsKey("envValue"), QString::fromStdString(r.environment.value));
    s.setValue(settingsKey("deb"), debFile_->text());
    s.setValue(settingsKey("tarball"), tarball_->text());
    s.setValue(settingsKey("bundle"), bundleFile_->text());
}

void TrainerSetupDialog::setMethod(TrainerSetupRequest::Method method) {
    if (auto* b = methods_->button(method)) b->setChecked(true);
    chosen_ = true;
    updateChoices();
}

TrainerSetupRequest::Method TrainerSetupDialog::method() const { return static_cast<TrainerSetupRequest::Method>(methods_->checkedId()); }

void TrainerSetupDialog::setFile(const QString& path) {
    const auto m = method();
    (m == TrainerSetupRequest::Source ? tarball_ : m == TrainerSetupRequest::Bundle ? bundleFile_ : debFile_)->setText(path);
}
void TrainerSetupDialog::setPrefix(const QString& prefix) { prefix_->setText(prefix); }

void TrainerSetupDialog::setEnvironment(BuildEnvironment::Kind kind, const QString& value) {
    envKind_->setCurrentIndex(envKind_->findData(int(kind)));
    envValue_->setText(value);
}

void TrainerSetupDialog::updateChoices() {
    const bool source = method() == TrainerSetupRequest::Source, bundle = method() == TrainerSetupRequest::Bundle;
    debFile_->setEnabled(!source && !bundle);
    tarball_->setEnabled(source);
    bundleFile_->setEnabled(bundle);
    envKind_->setEnabled(source || bundle);
    envValue_->setEnabled(source || bundle);
    prefix_->setEnabled(method() != TrainerSetupRequest::SudoApt);
}

TrainerSetupRequest TrainerSetupDialog::request() const {
    TrainerSetupRequest r;
    r.method = method();
    r.file = (r.method == TrainerSetupRequest::Source ? tarball_ : r.method == TrainerSetupRequest::Bundle ? bundleFile_ : debFile_)->text().trimmed();
    r.prefix = prefix_->text().trimmed().isEmpty() ? QString("~/.local") : prefix_->text().trimmed();
    r.environment.kind = static_cast<BuildEnvironment::Kind>(envKind_->currentData().toInt());
    r.environment.value = envValue_->text().trimmed().toStdString();
    // A bundle runs against a Python's torch: the interpreter itself, or a venv's.
    if (r.environment.kind == BuildEnvironment::Kind::Venv)
        r.python = QString::fromStdString(r.environment.value) + "/bin/python";
    else if (r.environment.kind == BuildEnvironment::Kind::Python)
        r.python = r.environment.value.empty() ? QString("python3") : QString::fromStdString(r.environment.value);
    return r;
}

QString TrainerSetupDialog::resultText() const { return result_->text(); }
QString TrainerSetupDialog::logText() const { return log_->toPlainText(); }

bool TrainerSetupDialog::start() {
    if (thread_ || !host_) return false;
    const TrainerSetupRequest r = request();
    if (const QString missing = missingChoice(r); !missing.isEmpty()) {
        result_->setText(missing);
        return false;
    }
    saveSettings();
    log_->clear();
    result_->setText(tr("working…"));
    start_->setEnabled(false);
    cancel_->setEnabled(true);
    startWorker(r);
    return true;
}

// Why the set-up cannot start with the choices made (which file, where it was looked for), or "".
QString TrainerSetupDialog::missingChoice(const TrainerSetupRequest& r) const {
    const bool source = r.method == TrainerSetupRequest::Source;
    if (r.method == TrainerSetupRequest::Bundle) {
        if (r.file.isEmpty()) {
            const auto dirs = RemoteTrainerSetup::bundledDirs(QCoreApplication::applicationDirPath().toStdString());
            return tr("No trainer bundle chosen: none for the host's torch in %1/, %2/ or %3; Browse… for one, "
                      "or build from source")
                .arg(QString::fromStdString(dirs[0]), QString::fromStdString(dirs[1]), kBundlesEnv);
        }
        if (r.python.isEmpty()) return tr("A bundle runs against a Python's torch: name the Python interpreter or the venv (for a conda env, its bin/python).");
    } else if (r.file.isEmpty()) {
        const char* env = source ? kSourceEnv : kDebEnv;
        const char* name = source ? kSourceName : kDebName;
        try {
            RemoteTrainerSetup::locateBundled(QCoreApplication::applicationDirPath().toStdString(), env, name);
            return QString::fromStdString(RemoteTrainerSetup::missingBundleMessage(QCoreApplication::applicationDirPath().toStdString(), env, name));
        } catch (const std::exception& e) {
            return QString::fromStdString(e.what());
        }
    }
    if (!QFileInfo(r.file).isFile())
        return tr("%1 is not a file: choose the %2 to upload.")
            .arg(r.file, source                                    ? tr("source tarball")
                         : r.method == TrainerSetupRequest::Bundle ? tr("trainer bundle")
                                                                   : tr("streetgan-trainer .deb"));
    if (source && r.environment.kind != BuildEnvironment::Kind::Python && r.environment.value.empty())
        return tr("Name the %1 to build against.").arg(envKind_->currentText());
    return {};
}

// The set-up on a TrainerSetupWorker of its own thread; its output, progress and result here.
void TrainerSetupDialog::startWorker(const TrainerSetupRequest& r) {
    thread_ = new QThread(this);
    worker_ = new TrainerSetupWorker(host_->sshOptions());
    worker_->moveToThread(thread_);
    connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
    // Asked on the GUI thread; the worker waits, giving up when cancelled (the dialog closed).
    QPointer<TrainerSetupDialog> self(this);
    worker_->sudoPassword = [self](const std::string& prompt, const std::atomic<bool>& cancel) -> std::optional<std::string> {
        auto answer = std::make_shared<std::promise<std::optional<std::string>>>();
        auto future = answer->get_future();
        QMetaObject::invokeMethod(qApp, [self, answer, prompt] {
            std::optional<std::string> out;
            if (self) {
                const QString p = QString::fromStdString(prompt);
                if (self->sudoPasswordDialog) {
                    if (auto a = self->sudoPasswordDialog(p)) out = a->toStdString();
                } else {
                    bool ok = false;
                    const QString a = QInputDialog::getText(self, tr("sudo password"), p, QLineEdit::Password, {}, &ok);
                    if (ok) out = a.toStdString();
                }
            }
            answer->set_value(out);
        });
        while (future.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
            if (cancel.load()) return std::nullopt;
        return future.get();
    };
    connect(worker_, &TrainerSetupWorker::line, this, [this](const QString& l) { log_->appendPlainText(l); });
    connect(worker_, &TrainerSetupWorker::uploadProgress, this, [this](qint64 done, qint64 total) {
        progress_->setVisible(done < total);
        progress_->setRange(0, 1000);
        progress_->setValue(total > 0 ? static_cast<int>(1000 * done / total) : 0);
        progress_->setFormat(tr("uploading %p%"));
    });
    connect(worker_, &TrainerSetupWorker::finished, this,
            [this](bool ok, bool cancelled, const QString& m, const QString& trainer) { finish(ok, cancelled, m, trainer); });
    connect(worker_, &TrainerSetupWorker::probed, this, [this](const TrainerStatus& s) { showStatus(s); });
    thread_->start();
    QMetaObject::invokeMethod(worker_, [w = worker_, r] { w->run(r); });
}

void TrainerSetupDialog::finish(bool ok, bool cancelled, const QString& message, const QString& trainer) {
    progress_->setVisible(false);
    result_->setText(cancelled ? tr("Cancelled.") : ok ? message : tr("Failed: %1").arg(message));
    log_->appendPlainText(result_->text());
    start_->setEnabled(true);
    cancel_->setEnabled(false);
    if (ok && host_ && !trainer.isEmpty()) {
        host_->setTrainer(trainer);
        host_->probeTrainer();  // the host's own view (the hosts list) follows, even once this dialog is closed
    }
    // The worker's probe (after finished) is queued before the thread's quit: it still arrives.
    WorkerThreads::quitWithoutBlocking(thread_);
    thread_ = nullptr;
    worker_ = nullptr;
    emit setupFinished(ok, result_->text());
}

void TrainerSetupDialog::showStatus(const TrainerStatus& s) {
    QString text = tr("%1: %2").arg(hostLabel_, s.state == TrainerStatus::Unknown ? tr("not checked yet") : s.summary);
    if (!s.osName.isEmpty()) text += tr(" — %1").arg(s.osName);
    if (!s.mismatch.isEmpty()) text += "\n" + s.mismatch;
    status_->setText(text);
}

void TrainerSetupDialog::survey() {
    if (surveyThread_ || !host_) return;
    plan_->setVisible(true);
    plan_->setText(tr("Checking %1: system, C library, Python and torch, GPU…").arg(hostLabel_));
    surveyThread_ = new QThread(this);
    surveyWorker_ = new TrainerSetupWorker(host_->sshOptions());
    surveyWorker_->moveToThread(surveyThread_);
    connect(surveyThread_, &QThread::finished, surveyWorker_, &QObject::deleteLater);
    connect(surveyWorker_, &TrainerSetupWorker::surveyed, this, &TrainerSetupDialog::applyPlan);
    connect(surveyWorker_, &TrainerSetupWorker::surveyFailed, this, [this](const QString& m) {
        plan_->setText(tr("Could not check %1: %2").arg(hostLabel_, m));
        endSurvey();
    });
    surveyThread_->start();
    connect(surveyWorker_, &TrainerSetupWorker::probed, this, [this](const TrainerStatus& st) { showStatus(st); });
    const std::string remembered = host_->config().trainer.toStdString();
    QMetaObject::invokeMethod(surveyWorker_, [w = surveyWorker_, remembered] { w->survey(remembered); });
}

QString TrainerSetupDialog::planText() const { return plan_->text(); }

QString TrainerSetupDialog::statusText() const { return status_->text(); }

void TrainerSetupDialog::applyPlan(const HostPlatform& platform, const QString& host) {
    // A .deb is on offer when the field names one (chosen, remembered, or the app's own).
    const bool haveDeb = !debFile_->text().trimmed().isEmpty() && QFileInfo(debFile_->text().trimmed()).isFile();
    const TrainerPlan planned = TrainerPlan::choose(platform, bundledBundles(), haveDeb, host.toStdString());
    const auto k = planned.kind;
    const QString reason = QString::fromStdString(planned.reason), gpuAdvice = QString::fromStdString(planned.gpuAdvice);
    const QString python = QString::fromStdString(planned.python), bundle = QString::fromStdString(planned.bundle.path);
    QString verb;
    std::optional<TrainerSetupRequest::Method> m;
    switch (k) {
        case TrainerPlan::Kind::Bundle:
            verb = tr("Chosen: the prebuilt trainer bundle");
            m = TrainerSetupRequest::Bundle;
            break;
        case TrainerPlan::Kind::HostBuild:
            verb = tr("Chosen: build from source");
            m = TrainerSetupRequest::Source;
            break;
        case TrainerPlan::Kind::Deb:
            verb = tr("Chosen: the Debian 12 package without root");
            m = TrainerSetupRequest::NoRoot;
            break;
        case TrainerPlan::Kind::Unsupported:
            verb = tr("Cannot set up here");
            break;
    }
    QString text = tr("Found: %1\n%2 — %3").arg(QString::fromStdString(platform.summary()), verb, reason);
    if (!gpuAdvice.isEmpty()) text += "\n" + tr("GPU: %1").arg(gpuAdvice);
    // A choice made already (by hand, or remembered for this host) stands; the line still says
    // what the survey would choose.
    if (m && !chosen_ && !thread_) {
        if (auto* b = methods_->button(*m)) b->setChecked(true);
        if (!bundle.isEmpty()) bundleFile_->setText(bundle);
        if (!python.isEmpty()) setEnvironment(BuildEnvironment::Kind::Python, python);
        updateChoices();
    } else if (m && method() != *m) {
        text += "\n" + tr("(Your choice above is kept.)");
    }
    plan_->setText(text);
    endSurvey();
}

void TrainerSetupDialog::endSurvey() {
    WorkerThreads::quitWithoutBlocking(surveyThread_);
    surveyThread_ = nullptr;
    surveyWorker_ = nullptr;
    emit surveyFinished();
}

void TrainerSetupDialog::cancel() {
    if (worker_) worker_->cancel();
}

void TrainerSetupDialog::reject() {
    cancel();
    QDialog::reject();
}

}  // namespace streetgan::ui
