// remote_screenshot_tour: drives the real main window along a newcomer's remote path and saves
// what the screen shows, for docs/screenshots (tools/screenshots-remote.sh runs it under Xvfb at
// 1280x800 against a private sshd it starts, reached as the ~/.ssh/config alias "gpubox"):
// connect to a fresh host (no trainer, no runs yet), set streetgan-trainer up there without root,
// start a tiny run and watch it finish; then the DL1 box "dl1" (another trainer's TensorBoard run
// under ~/runs, no streetgan-trainer): the folder the app finds, and the run watched. Not a test: it asserts nothing, a person looks at the
// pictures (a step that does not get where it should within its time is reported and the tour
// goes on, so the picture shows what went wrong).
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QPushButton>
#include <QScreen>
#include <QTimer>
#include <functional>
#include <vector>

#include "app/MainWindow.h"
#include "dashboard/DashboardPage.h"
#include "dashboard/PlotPanel.h"
#include "hosts/TensorBoardFolderDialog.h"
#include "hosts/TrainerSetupDialog.h"
#include "remote/RemoteHost.h"
#include "remote/SshPrompter.h"
#include "runs/NewRunDialog.h"
#include "runs/RunSession.h"
#include "runs/RunsSidebar.h"

using namespace streetgan::ui;

namespace {

struct Step {
    std::function<bool()> ready;  ///< polled every 200 ms (at most `patienceMs`) before `run`
    int patienceMs;
    std::function<void()> run;
};

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName("StreetGAN");
    QApplication::setApplicationName("StreetGAN Studio");
    QCommandLineParser cli;
    cli.setApplicationDescription("Renders the remote flow's screenshots: a fresh host, the set-up, a finished remote run.");
    cli.addHelpOption();
    const QCommandLineOption out("out", "Folder for the PNG files.", "DIR");
    const QCommandLineOption config("ssh-config", "The ssh config that names the host gpubox.", "FILE");
    const QCommandLineOption knownHosts("known-hosts", "known_hosts with gpubox's key.", "FILE");
    const QCommandLineOption deb("deb", "The streetgan-trainer .deb to set up.", "FILE");
    const QCommandLineOption prefix("prefix", "Install prefix on the host.", "DIR");
    const QCommandLineOption root("root", "The runs folder on the host (absent: a fresh host).", "DIR");
    cli.addOptions({out, config, knownHosts, deb, prefix, root});
    cli.process(app);
    for (const auto& o : {out, config, knownHosts, deb, prefix, root})
        if (cli.value(o).isEmpty()) {
            fprintf(stderr, "remote_screenshot_tour: --out, --ssh-config, --known-hosts, --deb, --prefix and --root are required\n");
            return 2;
        }
    const QString outDir = cli.value(out);
    QDir().mkpath(outDir);

    MainWindow window;
    window.setGeometry(QApplication::primaryScreen()->availableGeometry());
    window.show();

    int failures = 0;
    auto shot = [&](const QString& name) {
        const QString path = QDir(outDir).filePath(name + ".png");
        QApplication::processEvents();
        if (!QApplication::primaryScreen()->grabWindow(0).save(path)) {
            fprintf(stderr, "remote_screenshot_tour: cannot write %s\n", qPrintable(path));
            ++failures;
        } else {
            printf("%s\n", qPrintable(path));
        }
    };

    HostConfig gpubox;
    gpubox.host = "gpubox";
    gpubox.configFile = cli.value(config);
    gpubox.knownHosts = cli.value(knownHosts);
    gpubox.root = cli.value(root);
    RemoteHost* host = nullptr;
    TrainerSetupDialog* setup = nullptr;
    bool setupDone = false;
    RunSession* run = nullptr;
    QElapsedTimer settle;
    RemoteHost* dl1Host = nullptr;
    TensorBoardFolderDialog* dl1Dialog = nullptr;
    auto dl1Choice = [&]() -> TensorBoardFolderDialog* {
        for (auto* d : window.findChildren<TensorBoardFolderDialog*>())
            if (d->host() == dl1Host && d->isVisible()) return d;
        return nullptr;
    };
    std::vector<Step> steps = {
        {[] { return true; }, 0, [&] { host = window.connectHost(gpubox); }},
        {[&] { return host->listed() && host->trainerStatus().state != TrainerStatus::Unknown; }, 60000, [&] { settle.start(); }},
        {[&] { return settle.elapsed() > 1500; }, 5000, [&] { shot("08-remote-fresh-host"); }},
        {[] { return true; }, 0,
         [&] {
             // The newcomer's choice in the dialog that opened by itself: set up the trainer.
             if (auto* choice = window.findChild<TensorBoardFolderDialog*>())
                 choice->findChild<QPushButton*>("tbFolderSetUp")->click();
             else
                 emit window.sidebar()->setUpTrainerRequested(host);
             setup = window.findChild<TrainerSetupDialog*>();
             if (!setup) return;
             setup->setMethod(TrainerSetupRequest::NoRoot);
             setup->setFile(cli.value(deb));
             setup->setPrefix(cli.value(prefix));
             QObject::connect(setup, &TrainerSetupDialog::setupFinished, &window, [&](bool, const QString&) { setupDone = true; });
             if (!setup->start()) fprintf(stderr, "remote_screenshot_tour: the set-up did not start: %s\n", qPrintable(setup->resultText()));
         }},
        {[&] { return setupDone && !setup->isSurveying() && host->trainerStatus().state == TrainerStatus::Ready; }, 120000, [&] { settle.start(); }},
        {[&] { return settle.elapsed() > 1000; }, 5000, [&] { shot("09-remote-setup"); }},
        {[] { return true; }, 0,
         [&] {
             if (setup) setup->close();
             QObject::connect(&window, &MainWindow::runOpened, &window, [&](RunSession* s) { run = s; });
             QStringList args = NewRunDialog::tinyRunArguments(gpubox.root + "/tiny-remote");
             args[args.indexOf("--steps") + 1] = "300";
             args[args.indexOf("--batch") + 1] = "16";
             host->startRun(args);
         }},
        {[&] { return run && run->series().ended(); }, 300000,
         [&] {
             if (auto* dock = window.findChild<QDockWidget*>("runsDock")) dock->raise();
             settle.start();
         }},
        {[&] { return settle.elapsed() > 2000; }, 5000, [&] { shot("10-remote-run-finished"); }},
        // The DL1 box: connected by alias with nothing else typed.
        {[] { return true; }, 0,
         [&] {
             HostConfig dl1;
             dl1.host = "dl1";
             dl1.configFile = gpubox.configFile;
             dl1.knownHosts = gpubox.knownHosts;
             dl1Host = window.connectHost(dl1);
         }},
        {[&] { return (dl1Dialog = dl1Choice()) && !dl1Dialog->isSearching() && !dl1Dialog->chosenFolder().isEmpty(); }, 60000, [&] { settle.start(); }},
        {[&] { return settle.elapsed() > 1000; }, 5000, [&] { shot("16-remote-dl1-find-tensorboard"); }},
        {[] { return true; }, 0,
         [&] {
             if (dl1Dialog) dl1Dialog->watch();
         }},
        {[&] { return dl1Host && !dl1Host->runs().isEmpty(); }, 60000, [&] { window.openRemoteRun(dl1Host, dl1Host->runs().first().path); }},
        {[&] {
             RunSession* s = window.activeSession();
             return s && window.dashboard()->panels()[0]->pointCount(&s->series(), Metric::LossG) >= 60;
         },
         60000, [&] { settle.start(); }},
        {[&] { return settle.elapsed() > 2000; }, 5000, [&] { shot("17-remote-dl1-watching"); }},
    };
    // Each step waits for its condition (polled), then runs; a condition that never holds is
    // reported and the tour goes on.
    std::function<void(size_t, int)> next = [&](size_t i, int waited) {
        if (i == steps.size()) {
            QApplication::exit(failures == 0 ? 0 : 1);
            return;
        }
        QTimer::singleShot(200, &window, [&, i, waited] {
            if (!steps[i].ready() && waited < steps[i].patienceMs) {
                next(i, waited + 200);
                return;
            }
            if (!steps[i].ready()) {
                fprintf(stderr, "remote_screenshot_tour: step %zu did not get ready in %d ms\n", i, steps[i].patienceMs);
                ++failures;
            }
            steps[i].run();
            next(i + 1, 0);
        });
    };
    next(0, 0);
    return QApplication::exec();
}
