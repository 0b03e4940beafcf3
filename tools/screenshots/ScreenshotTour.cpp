// screenshot_tour: drives the real main window through each main screen and saves what the
// screen shows, for docs/screenshots (tools/screenshots.sh runs it under Xvfb at 1280x800 with
// runs it prepared). Not a test: it asserts nothing, a person looks at the pictures.
//
// Each shot grabs the whole screen (QScreen::grabWindow(0)), not just the window: the export dialog
// is a separate top-level window and belongs in its picture, and a shot shows exactly what a user
// at a 1280x800 screen would see, cut-offs included.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QPushButton>
#include <QScreen>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>
#include <functional>
#include <vector>

#include "app/MainWindow.h"
#include "checkpoints/CheckpointBrowserPage.h"
#include "dashboard/DashboardPage.h"
#include "dashboard/SamplesPage.h"
#include "explorer/ExplorerPage.h"
#include "explorer/ExportDialog.h"
#include "runs/RunSession.h"
#include "table/RunsTableModel.h"
#include "table/RunsTablePage.h"

using streetgan::ui::MainWindow;

namespace {

struct Step {
    int waitMs;  ///< after the previous step
    std::function<void()> run;
};

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName("StreetGAN");
    QApplication::setApplicationName("StreetGAN Studio");
    QCommandLineParser cli;
    cli.setApplicationDescription("Renders docs/screenshots: welcome, live dashboard, two runs compared, checkpoints, explorer, export dialog, dark mode.");
    cli.addHelpOption();
    const QCommandLineOption out("out", "Folder for the PNG files.", "DIR");
    const QCommandLineOption live("live", "A live run directory (its trainer running).", "DIR");
    const QCommandLineOption compare("compare", "A finished run directory (give two).", "DIR");
    const QCommandLineOption tensorBoard("tensorboard", "A TensorBoard run of another trainer (NAME for NAME/events).", "DIR");
    cli.addOptions({out, live, compare, tensorBoard});
    cli.process(app);
    const QString outDir = cli.value(out);
    const QStringList compared = cli.values(compare);
    if (outDir.isEmpty() || !cli.isSet(live) || compared.size() != 2) {
        fprintf(stderr, "screenshot_tour: --out DIR, --live DIR and two --compare DIR are required\n");
        return 2;
    }
    QDir().mkpath(outDir);

    MainWindow window;  // first start: settings are empty (the script gives it its own HOME)
    window.setGeometry(QApplication::primaryScreen()->availableGeometry());
    window.show();

    int failures = 0;
    auto shot = [&](const QString& name) {
        const QString path = QDir(outDir).filePath(name + ".png");
        QApplication::processEvents();
        if (!QApplication::primaryScreen()->grabWindow(0).save(path)) {
            fprintf(stderr, "screenshot_tour: cannot write %s\n", qPrintable(path));
            ++failures;
        } else {
            printf("%s\n", qPrintable(path));
        }
    };
    auto tabs = [&] { return window.findChild<QTabWidget*>("mainTabs"); };

    streetgan::ui::RunSession* liveRun = nullptr;
    std::vector<Step> steps = {
        {1500, [&] { shot("01-welcome"); }},
        {0, [&] { liveRun = window.openLocalRun(cli.value(live)); }},
        {0,
         [&] {
             // At 1280 px the System and cost panel is a tab under the runs list: show it once.
             if (auto* dock = window.findChild<QDockWidget*>("systemDock")) dock->raise();
         }},
        {9000, [&] { shot("02-dashboard-live"); }},
        {0,
         [&] {
             for (const QString& r : compared) window.openLocalRun(r);
             // Compare the two finished runs: the live one's check box off.
             if (liveRun) window.dashboard()->setPlotted(liveRun, false);
             window.dashboard()->setSmoothing(0.6);  // the raw series shows faintly behind the smoothed one
             if (auto* dock = window.findChild<QDockWidget*>("runsDock")) dock->raise();
         }},
        {5000, [&] { shot("03-two-runs-compared"); }},
        {0, [&] { tabs()->setCurrentWidget(window.checkpoints()); }},
        {6000, [&] { shot("04-checkpoint-browser"); }},
        {0, [&] { window.showExplorer(); }},
        {9000, [&] { shot("05-explorer"); }},
        {0, [&] { window.explorer()->showExportDialog(); }},
        {2500, [&] { shot("06-export-dialog"); }},
        {0,
         [&] {
             for (QWidget* w : QApplication::topLevelWidgets())
                 if (qobject_cast<streetgan::ui::ExportDialog*>(w)) w->close();
             window.applyTheme("dark");
             tabs()->setCurrentWidget(window.dashboard());
         }},
        {4000, [&] { shot("07-dark-mode"); }},
        // The Runs table with the two compared runs selected: their settings side by side below.
        {0,
         [&] {
             window.applyTheme("light");
             tabs()->setCurrentWidget(window.runsTable());
         }},
        {4000,
         [&] {
             QStringList keys;
             const auto* model = window.runsTable()->model();
             for (int row = 0; row < model->rowCount(); ++row)
                 for (const QString& r : compared)
                     if (QDir(QString::fromStdString(model->record(row).info.path)) == QDir(r)) keys << model->key(row);
             window.runsTable()->selectKeys(keys);
         }},
        {2000, [&] { shot("18-runs-table"); }},
        {0,
         [&] {
             if (auto* below = window.runsTable()->findChild<QTabWidget*>("runsTableBelow")) below->setCurrentIndex(1);
         }},
        {2000, [&] { shot("19-runs-table-parallel"); }},
    };
    if (cli.isSet(tensorBoard)) {
        streetgan::ui::RunSession* tbRun = nullptr;
        steps.push_back({0, [&] {
                             window.applyTheme("light");
                             // Only the other trainer's run in the plots.
                             for (const QString& r : compared)
                                 if (auto* s = window.openLocalRun(r)) window.dashboard()->setPlotted(s, false);
                             if (liveRun) window.dashboard()->setPlotted(liveRun, false);
                             tbRun = window.openLocalRun(cli.value(tensorBoard));
                             window.dashboard()->setSmoothing(0.6);
                             tabs()->setCurrentWidget(window.dashboard());
                             window.dashboard()->views()->setCurrentIndex(0);
                         }});
        steps.push_back({5000, [&] { shot("11-tensorboard-run"); }});
        steps.push_back({0, [&] { window.dashboard()->views()->setCurrentIndex(1); }});
        steps.push_back({2500, [&] { shot("12-tensorboard-scalars"); }});
        // The grids its newest checkpoint keeps (img_list), in the Samples tab.
        steps.push_back({0, [&] {
                             tabs()->setCurrentWidget(window.samples());
                             window.samples()->showCheckpointGrids(true);
                         }});
        steps.push_back({3000, [&] { shot("13-tensorboard-img-list"); }});
    }
    // Run the steps one after another on the event loop (each waits for the previous one's effect).
    std::function<void(size_t)> next = [&](size_t i) {
        if (i == steps.size()) {
            QApplication::exit(failures == 0 ? 0 : 1);
            return;
        }
        QTimer::singleShot(steps[i].waitMs, &window, [&, i] {
            steps[i].run();
            next(i + 1);
        });
    };
    next(0);
    return QApplication::exec();
}
