// streetgan: the desktop app. Starts the main window (optionally on a run or a checkpoint); all
// the work lives in ui/ (MainWindow and its pages, panels and workers).
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "app/MainWindow.h"
#include "base/util/Version.h"

int main(int argc, char** argv) {
#if defined(__GLIBC__)
    // Two heaps (the GUI thread's and one the workers share) instead of glibc's up to 8 per core:
    // each worker thread's own heap kept the memory of its busiest moment (a backlog read, a
    // checkpoint list), ~27 MB free but held across five heaps after following a run for 2 M
    // events (issue 48, bench/bench_soak.sh). MALLOC_ARENA_MAX, when set, still decides.
    if (!std::getenv("MALLOC_ARENA_MAX")) mallopt(M_ARENA_MAX, 2);
#endif
    QApplication app(argc, argv);
    QApplication::setOrganizationName("StreetGAN");
    QApplication::setApplicationName("StreetGAN Studio");
    QApplication::setApplicationVersion(QString::fromUtf8(streetgan::Version::text()));
    QApplication::setWindowIcon(QIcon(":/streetgan/streetgan.svg"));
    QCommandLineParser cli;
    cli.setApplicationDescription("StreetGAN Studio: start training runs here or on a GPU box and watch them live.");
    cli.addHelpOption();
    cli.addVersionOption();
    const QCommandLineOption openRun("open-run", "Start on this run directory (repeat to overlay runs).", "DIR");
    const QCommandLineOption openCheckpoint("open-checkpoint", "Start on this checkpoint in the latent explorer (and open the run that holds it).", "CK");
    const QCommandLineOption openSession("open-session", "Start on this latent-walk session (JSON, docs/cli.md) in the explorer.", "FILE");
    const QCommandLineOption explore("explore", "Start in the latent explorer on the embedded demo model.");
    const QCommandLineOption tinyRun("tiny-run", "Start the welcome page's one-click run: a tiny CPU run on synthetic streets, in the workspace.");
    const QCommandLineOption workspace("workspace", "Folder of local runs (remembered).", "DIR");
    const QCommandLineOption screenshot("screenshot", "Grab the window to FILE.png after --delay ms, then quit.", "FILE");
    const QCommandLineOption delay("delay", "Milliseconds before --screenshot (default 3000).", "MS", "3000");
    const QCommandLineOption theme("theme", "Look for this run only, not saved: system (follow the desktop), light or dark.", "MODE");
    cli.addOptions({openRun, openCheckpoint, openSession, explore, workspace, screenshot, delay});
    cli.addOption(theme);
    cli.addOption(tinyRun);
    cli.process(app);
    if (cli.isSet(theme) && !QStringList{"system", "light", "dark"}.contains(cli.value(theme))) {
        std::fprintf(stderr, "streetgan: --theme '%s' is unknown; use system, light or dark.\n", qPrintable(cli.value(theme)));
        return 2;
    }

    streetgan::ui::MainWindow window(cli.value(workspace));
    if (cli.isSet(theme)) window.applyTheme(cli.value(theme), false);
    window.show();
    for (const QString& run : cli.values(openRun)) window.openLocalRun(run);  // several: overlaid
    if (cli.isSet(openCheckpoint)) window.openCheckpoint(cli.value(openCheckpoint));
    if (cli.isSet(openSession)) {
        window.openSession(cli.value(openSession));
    } else if (cli.isSet(explore)) {
        window.showExplorer();
    }
    if (cli.isSet(tinyRun)) window.startTinyRun();  // the same path as the welcome page's button
    if (cli.isSet(screenshot)) {
        QTimer::singleShot(cli.value(delay).toInt(), &window, [&] {
            const bool ok = window.grab().save(cli.value(screenshot));
            QApplication::exit(ok ? 0 : 1);
        });
    }
    return QApplication::exec();
}
