// The runs sidebar listing real run directories of a workspace: its remembered width (also through
// a QDockWidget and QMainWindow::resizeDocks, as the main window does it), the filter, the state
// badges and tooltips, and its check boxes deciding which runs the dashboard overlays (each in its
// own colour, named in the legend). Saves a 1280x800 screenshot of sidebar and dashboard with two
// runs when STREETGAN_SCREENSHOT_DIR is set.
#include <qcustomplot.h>
#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QDockWidget>
#include <QHeaderView>
#include <QLineEdit>
#include <QMainWindow>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <memory>

#include "dashboard/DashboardPage.h"
#include "dashboard/PlotPanel.h"
#include "remote/RemoteHost.h"
#include "runs/RunItemDelegate.h"
#include "runs/RunPalette.h"
#include "runs/RunSession.h"
#include "runs/RunsFilterProxy.h"
#include "runs/RunsSidebar.h"
#include "runs/RunsTreeModel.h"
#include "support/ModelRow.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;
using streetgan::test::ModelRow;

class RunsSidebarTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString ws_;

    static void listed(RunsSidebar& s, const QString& ws) {
        QSignalSpy spy(&s, &RunsSidebar::localListed);
        s.setWorkspace(ws);
        QVERIFY(spy.wait(streetgan::test::kWaitMs));
    }
    QString key(const QString& name) const { return RunPalette::key({}, ws_ + "/" + name); }

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        ws_ = tmp_.filePath("ws");
        streetgan::test::writeRun(ws_ + "/alpha-baseline", 300, 0);
        streetgan::test::writeRun(ws_ + "/beta-lr-sweep", 200, 0);
        streetgan::test::writeRun(ws_ + "/a-run-with-a-very-long-name-that-cannot-fit-in-the-sidebar", 10, 0);
    }

    void widthIsRemembered() {
        {
            RunsSidebar s;
            QCOMPARE(s.preferredWidth(), RunsSidebar::kDefaultWidth);  // nothing remembered yet
            s.show();
            s.resize(333, 500);
            QCOMPARE(s.width(), 333);
        }
        {
            RunsSidebar s;
            QCOMPARE(s.preferredWidth(), 333);
            s.show();
            s.resize(100, 500);  // below the minimum: clamped
            QCOMPARE(s.width(), RunsSidebar::kMinimumWidth);
        }
        QCOMPARE(RunsSidebar().preferredWidth(), RunsSidebar::kMinimumWidth);

        // In a dock, as MainWindow holds it: shown, the sidebar gives its dock the remembered
        // width; the dock's width (310 here) is what comes back next time.
        for (int round = 0; round < 2; ++round) {
            QMainWindow w;
            auto* sidebar = new RunsSidebar;
            auto* dock = new QDockWidget("Runs", &w);
            dock->setObjectName("runsDock");
            dock->setWidget(sidebar);
            w.addDockWidget(Qt::LeftDockWidgetArea, dock);
            w.setCentralWidget(new QWidget);
            w.resize(1280, 800);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            if (round == 0) {
                QTRY_COMPARE(dock->width(), RunsSidebar::kMinimumWidth);  // remembered above
                w.resizeDocks({dock}, {310}, Qt::Horizontal);             // as the user drags the splitter
            }
            QTRY_COMPARE(dock->width(), 310);  // second round: the remembered 310
        }
    }

    // An open run's badge and step/total come from its own events (showLive, what the window
    // hands over on each drain): they win over the listing, which is older (a remote host is
    // not even re-listed on a timer), until the run is closed.
    void anOpenRunsBadgeFollowsItsEvents() {
        RunsSidebar s;
        listed(s, ws_);
        const ModelRow beta{s.runIndex(key("beta-lr-sweep"))};
        QVERIFY(beta.isValid());
        QCOMPARE(beta.text(1), QString("finished 200/200"));
        s.showLive(key("beta-lr-sweep"), "running", 15, 300);
        QCOMPARE(beta.text(1), QString("running 15/300"));
        QCOMPARE(beta.data(1, RunItemDelegate::kStateRole).toString(), QString("running"));
        s.showLive(key("beta-lr-sweep"), "stopped", 120, 300);
        QCOMPARE(beta.text(1), QString("stopped 120/300"));
        s.refresh();  // a listing (the files say finished 200/200) does not take it back
        QSignalSpy again(&s, &RunsSidebar::localListed);
        QVERIFY(again.wait(streetgan::test::kWaitMs));
        QCOMPARE(ModelRow{s.runIndex(key("beta-lr-sweep"))}.text(1), QString("stopped 120/300"));
        QVERIFY(ModelRow{s.runIndex(key("beta-lr-sweep"))}.toolTip(1).contains("stopped 120/300"));
        s.forgetLive(key("beta-lr-sweep"));  // closed: the listing speaks again
        s.refresh();
        QVERIFY(again.wait(streetgan::test::kWaitMs));
        QCOMPARE(ModelRow{s.runIndex(key("beta-lr-sweep"))}.text(1), QString("finished 200/200"));
    }

    // The sidebar's model and its filter proxy, checked by QAbstractItemModelTester through a
    // listing, live states, the filter, checks, and hosts added and removed; a run's persistent
    // row follows it when a host's group before its own goes.
    void modelAndFilterPassTheModelTester() {
        RunsSidebar s;
        QAbstractItemModelTester modelTester(s.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(s.filterModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        listed(s, ws_);
        QCOMPARE(s.model()->rowCount(s.model()->localGroup()), 3);
        s.showLive(key("alpha-baseline"), "running", 5, 300);
        ModelRow{s.runIndex(key("beta-lr-sweep"))}.setCheckState(Qt::Checked);
        s.setFilter("beta");
        QCOMPARE(s.filterModel()->rowCount(s.filterModel()->index(0, 0)), 1);
        s.setFilter("");

        HostConfig c;
        c.host = "gpu-a.example";
        c.configFile = "none";
        auto first = std::make_unique<RemoteHost>(c, nullptr);
        c.host = "gpu-b.example";
        RemoteHost second(c, nullptr);
        s.addHost(first.get());
        s.addHost(&second);
        s.addHost(&second);  // one group per host
        QCOMPARE(s.model()->rowCount(), 3);
        QCOMPARE(s.hostIndex(&second).row(), 2);
        RunEntry r;
        r.name = "remote-run";
        r.path = "/srv/runs/remote-run";
        r.state = "running";
        RunsTreeModel::RunRow row;
        row.entry = r;
        row.key = RunPalette::key(second.label(), r.path);
        s.model()->setRuns(s.hostIndex(&second), {row}, [](const QString&) { return false; });
        const ModelRow remote{s.runIndex(row.key)};
        QVERIFY(remote.isValid());
        QCOMPARE(s.model()->hostOf(remote.index), &second);
        first.reset();  // its group goes (QObject::destroyed)
        QCOMPARE(s.model()->rowCount(), 2);
        QVERIFY(remote.isValid());
        QCOMPARE(remote.text(0), QString("remote-run"));
        QCOMPARE(s.model()->hostOf(remote.index), &second);
        QCOMPARE(remote.parent().index, QPersistentModelIndex(s.hostIndex(&second)));
        s.setFilter("remote");
        QVERIFY(!remote.isHiddenBy(s.filterModel()));
        QVERIFY(ModelRow{s.runIndex(key("alpha-baseline"))}.isHiddenBy(s.filterModel()));
        s.setFilter("");
    }

    void listsFiltersAndBadges() {
        RunsSidebar s;
        s.resize(RunsSidebar::kMinimumWidth, 500);
        s.show();
        listed(s, ws_);
        const ModelRow alpha{s.runIndex(key("alpha-baseline"))};
        const ModelRow beta{s.runIndex(key("beta-lr-sweep"))};
        const ModelRow longRun{s.runIndex(key("a-run-with-a-very-long-name-that-cannot-fit-in-the-sidebar"))};
        QVERIFY(alpha.isValid() && beta.isValid() && longRun.isValid());
        QCOMPARE(alpha.text(0), QString("alpha-baseline"));
        QCOMPARE(alpha.data(1, RunItemDelegate::kStateRole).toString(), QString("finished"));
        QCOMPARE(alpha.text(1), QString("finished 300/300"));
        QCOMPARE(alpha.data(1, RunItemDelegate::kDetailRole).toString(), QString("300/300"));
        QCOMPARE(alpha.data(0, RunItemDelegate::kSecondLineRole).toString(), QString("this computer"));
        QVERIFY(alpha.flags() & Qt::ItemIsUserCheckable);
        QCOMPARE(alpha.checkState(), Qt::Unchecked);
        // elided in the view, whole in the tooltip (name, host and path, state)
        const QString tip = longRun.toolTip(0);
        QVERIFY2(tip.contains("a-run-with-a-very-long-name-that-cannot-fit-in-the-sidebar") && tip.contains("this computer") && tip.contains("finished 10/10"),
                 qPrintable(tip));
        QVERIFY(s.view()->header()->sectionSize(0) < s.fontMetrics().horizontalAdvance(longRun.text(0)));
        QCOMPARE(longRun.toolTip(1), tip);

        // the filter: name or host, case-insensitive
        s.setFilter("ALPHA");
        QVERIFY(!alpha.isHiddenBy(s.filterModel()));
        QVERIFY(beta.isHiddenBy(s.filterModel()));
        QVERIFY(longRun.isHiddenBy(s.filterModel()));
        s.filterEdit()->setText("lr-SW");  // as typed
        QVERIFY(alpha.isHiddenBy(s.filterModel()));
        QVERIFY(!beta.isHiddenBy(s.filterModel()));
        s.setFilter("This Computer");
        QVERIFY(!alpha.isHiddenBy(s.filterModel()) && !beta.isHiddenBy(s.filterModel()) && !longRun.isHiddenBy(s.filterModel()));
        s.setFilter("no such run");
        QVERIFY(alpha.isHiddenBy(s.filterModel()) && beta.isHiddenBy(s.filterModel()));
        QVERIFY(alpha.parent().isHiddenBy(s.filterModel()));
        // a refresh keeps the filter
        QSignalSpy again(&s, &RunsSidebar::localListed);
        s.refresh();
        QVERIFY(again.wait(streetgan::test::kWaitMs));
        QVERIFY(alpha.isHiddenBy(s.filterModel()));
        s.setFilter("");
        QVERIFY(!alpha.isHiddenBy(s.filterModel()) && !beta.isHiddenBy(s.filterModel()) && !alpha.parent().isHiddenBy(s.filterModel()));

        // stalled: running, but silent for longer than kStalledAfterS
        const double now = static_cast<double>(QDateTime::currentSecsSinceEpoch());
        RunEntry r;
        r.state = "running";
        r.updated = now - 10;
        QCOMPARE(RunsSidebar::shownState(r, now), QString("running"));
        r.updated = now - RunsSidebar::kStalledAfterS - 60;
        QCOMPARE(RunsSidebar::shownState(r, now), QString("stalled"));
        r.state = "paused";
        QCOMPARE(RunsSidebar::shownState(r, now), QString("paused"));
        QVERIFY(RunItemDelegate::stateColour("stalled") != RunItemDelegate::stateColour("running"));
        QVERIFY(RunItemDelegate::stateColour("crashed") != RunItemDelegate::stateColour("finished"));
        // a Slurm run's states have colours of their own (not the grey of an unknown word)
        for (const char* slurm : {"queued", "requeued", "timed-out"})
            QVERIFY2(RunItemDelegate::stateColour(slurm) != RunItemDelegate::stateColour("no such state"), slurm);
    }

    void checkBoxesDecideWhatIsPlotted() {
        RunsSidebar sidebar;
        DashboardPage page;
        page.resize(1000, 700);
        page.show();
        page.setSmoothing(0);
        page.linkSidebar(&sidebar);
        // what MainWindow does on openLocal: a session, added to the dashboard
        std::vector<std::unique_ptr<RunSession>> sessions;
        connect(&sidebar, &RunsSidebar::openLocal, this, [&](const QString& dir) {
            sessions.push_back(std::make_unique<RunSession>(dir, STREETGAN_TRAINER));
            page.addSession(sessions.back().get());
            sessions.back()->start();
        });
        listed(sidebar, ws_);
        PlotPanel* loss = page.panels()[0];
        QVERIFY2(loss->emptyText().contains("no run selected", Qt::CaseInsensitive), qPrintable(loss->emptyText()));

        const ModelRow alpha{sidebar.runIndex(key("alpha-baseline"))};
        const ModelRow beta{sidebar.runIndex(key("beta-lr-sweep"))};
        alpha.setCheckState(Qt::Checked);  // as a click does: not open yet, so it opens
        QCOMPARE(sessions.size(), size_t{1});
        beta.setCheckState(Qt::Checked);
        QCOMPARE(sessions.size(), size_t{2});
        RunSession* a = sessions[0].get();
        RunSession* b = sessions[1].get();
        QTRY_COMPARE_WITH_TIMEOUT(loss->pointCount(&a->series(), Metric::LossD), 300, streetgan::test::kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(loss->pointCount(&b->series(), Metric::LossD), 200, streetgan::test::kWaitMs);
        QCOMPARE(loss->plot()->graphCount(), 8);
        QVERIFY(loss->emptyText().isEmpty());

        // each run in its own colour: the sidebar's swatch, the plots' pens
        const QColor ca = RunPalette::colour(key("alpha-baseline")), cb = RunPalette::colour(key("beta-lr-sweep"));
        QVERIFY(ca != cb);
        QCOMPARE(RunPalette::colour(key("alpha-baseline")), ca);  // stable
        QCOMPARE(alpha.icon().pixmap(14, 14).toImage().pixelColor(7, 7).rgb(), ca.rgb());
        QCOMPARE(loss->rawGraph(&a->series(), Metric::LossD)->pen().color().rgb(), ca.rgb());
        QCOMPARE(page.panelOf(Metric::ImgPerS)->rawGraph(&b->series(), Metric::ImgPerS)->pen().color().rgb(), cb.rgb());
        // the legend names the run
        auto legendNames = [&] {
            QStringList names;
            for (int i = 0; i < loss->plot()->legend->itemCount(); ++i)
                if (auto* item = qobject_cast<QCPPlottableLegendItem*>(loss->plot()->legend->item(i))) names << item->plottable()->name();
            return names;
        };
        QVERIFY2(legendNames().contains("loss D · alpha-baseline"), qPrintable(legendNames().join(", ")));
        QVERIFY(legendNames().contains("loss G · beta-lr-sweep"));

        // unchecking removes the run's graphs (the run stays open), checking brings them back
        alpha.setCheckState(Qt::Unchecked);
        QVERIFY(!page.isPlotted(a));
        QCOMPARE(loss->plot()->graphCount(), 4);
        QVERIFY(!loss->rawGraph(&a->series(), Metric::LossD));
        QVERIFY(!legendNames().join(" ").contains("alpha"));
        QCOMPARE(page.panelOf(Metric::Lr)->pointCount(&a->series(), Metric::Lr), -1);
        alpha.setCheckState(Qt::Checked);
        QCOMPARE(sessions.size(), size_t{2});  // open already: not opened again
        QVERIFY(page.isPlotted(a));
        QCOMPARE(loss->plot()->graphCount(), 8);
        QCOMPARE(loss->pointCount(&a->series(), Metric::LossD), 300);
        QCOMPARE(loss->rawGraph(&a->series(), Metric::LossD)->pen().color().rgb(), ca.rgb());
        QVERIFY(legendNames().contains("loss D · alpha-baseline"));

        // the dashboard's side shows in the boxes: hidden there, unchecked here; closed, unchecked
        page.setPlotted(b, false);
        QCOMPARE(beta.checkState(), Qt::Unchecked);
        page.setPlotted(b, true);
        QCOMPARE(beta.checkState(), Qt::Checked);
        page.removeSession(a);
        QCOMPARE(alpha.checkState(), Qt::Unchecked);
        QVERIFY(!sidebar.isPlotted(key("alpha-baseline")));
        page.removeSession(b);
        QVERIFY(loss->emptyText().contains("no run selected", Qt::CaseInsensitive));
    }

    // What the window remembers across restarts (AppSettings::plottedRuns): the checked runs
    // (plottedRunsChanged on each change), checked again by restorePlotted() once listed, with
    // plotToggled asking the dashboard to open them; unchecked ones stay unchecked.
    void checkedRunsSurviveARestart() {
        QStringList saved;
        {
            RunsSidebar s;
            QSignalSpy changed(&s, &RunsSidebar::plottedRunsChanged);
            listed(s, ws_);
            ModelRow{s.runIndex(key("alpha-baseline"))}.setCheckState(Qt::Checked);
            ModelRow{s.runIndex(key("beta-lr-sweep"))}.setCheckState(Qt::Checked);
            ModelRow{s.runIndex(key("beta-lr-sweep"))}.setCheckState(Qt::Unchecked);
            QCOMPARE(changed.count(), 3);
            saved = changed.last().at(0).toStringList();
            QCOMPARE(saved, QStringList{key("alpha-baseline")});
            QCOMPARE(s.plottedRuns(), saved);
            s.setPlotted(key("beta-lr-sweep"), true);  // the dashboard's side counts too
            QCOMPARE(changed.count(), 4);
            s.setPlotted(key("beta-lr-sweep"), false);
            s.setPlotted(key("beta-lr-sweep"), false);  // no change, no signal
            QCOMPARE(changed.count(), 5);
        }
        const QString remote = RunPalette::key("me@gpu-box:22", "/srv/runs/r1");
        RunsSidebar s;
        QSignalSpy toggled(&s, &RunsSidebar::plotToggled);
        QSignalSpy changed(&s, &RunsSidebar::plottedRunsChanged);
        s.restorePlotted(saved + QStringList{key("deleted-run"), remote});
        QCOMPARE(toggled.count(), 0);  // nothing listed yet
        listed(s, ws_);
        QCOMPARE(toggled.count(), 1);
        QCOMPARE(toggled.at(0).at(0).toString(), key("alpha-baseline"));
        QVERIFY(toggled.at(0).at(1).toBool());
        QCOMPARE(ModelRow{s.runIndex(key("alpha-baseline"))}.checkState(), Qt::Checked);
        QVERIFY(s.isPlotted(key("alpha-baseline")));
        QCOMPARE(ModelRow{s.runIndex(key("beta-lr-sweep"))}.checkState(), Qt::Unchecked);
        // the local run missing from the listing is forgotten; the remote one waits for its host
        QCOMPARE(s.plottedRuns(), (QStringList{key("alpha-baseline"), remote}));
        QCOMPARE(changed.last().at(0).toStringList(), s.plottedRuns());
    }

    void screenshot() {
        // What a newcomer sees at 1280x800: sidebar and dashboard with two runs overlaid.
        QMainWindow w;
        auto* sidebar = new RunsSidebar;
        auto* dock = new QDockWidget("Runs", &w);
        dock->setWidget(sidebar);
        w.addDockWidget(Qt::LeftDockWidgetArea, dock);
        auto* page = new DashboardPage;
        w.setCentralWidget(page);
        w.resize(1280, 800);
        page->linkSidebar(sidebar);
        std::vector<std::unique_ptr<RunSession>> sessions;
        connect(sidebar, &RunsSidebar::openLocal, this, [&](const QString& dir) {
            sessions.push_back(std::make_unique<RunSession>(dir, STREETGAN_TRAINER));
            page->addSession(sessions.back().get());
            sessions.back()->start();
        });
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        listed(*sidebar, ws_);
        page->setSmoothing(0.6);
        ModelRow{sidebar->runIndex(key("alpha-baseline"))}.setCheckState(Qt::Checked);
        ModelRow{sidebar->runIndex(key("beta-lr-sweep"))}.setCheckState(Qt::Checked);
        QTRY_COMPARE_WITH_TIMEOUT(page->panels()[0]->pointCount(&sessions[1]->series(), Metric::LossD), 200, streetgan::test::kWaitMs);
        PlotPanel* loss = page->panels()[0];
        loss->plot()->replot(QCustomPlot::rpImmediateRefresh);
        loss->showCrosshair(150);
        QVERIFY(loss->crosshairText().contains("loss D · beta-lr-sweep"));
        QTest::qWait(200);
        const QImage shot = w.grab().toImage();
        QCOMPARE(shot.size(), QSize(1280, 800));
        // the legend row sits above the axis rect, not over the data
        const QRect legend = loss->plot()->legend->outerRect(), data = loss->plot()->axisRect()->rect();
        QVERIFY(legend.bottom() <= data.top());
        if (const QString keep = qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR"); !keep.isEmpty()) shot.save(keep + "/runs-sidebar-dashboard.png");
        for (auto& s : sessions) page->removeSession(s.get());
    }
};

QTEST_MAIN(RunsSidebarTest)
#include "RunsSidebarTest.moc"
