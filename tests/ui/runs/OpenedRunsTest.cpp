// The runs sidebar's "Opened" group (issue 48 item 4): a local run opened from outside the
// workspace shows there with its listed state, stays across restarts (openedRuns() as the window
// stores it in AppSettings) until removed (context menu or Delete), shows greyed as missing when
// its folder is gone, and a run the workspace lists is never listed twice. Then the same through
// the main window: File → Open run's path (MainWindow::openLocalRun), a new window on the same
// settings, and a removal that a restart does not undo.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QDir>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include "app/AppSettings.h"
#include "app/MainWindow.h"
#include "runs/RunItemDelegate.h"
#include "runs/RunPalette.h"
#include "runs/RunsFilterProxy.h"
#include "runs/RunsSidebar.h"
#include "runs/RunsTreeModel.h"
#include "support/ModelRow.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;
using streetgan::test::ModelRow;

class OpenedRunsTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString ws_, elsewhere_;

    /// The folders of the runs under the Opened group, in order ("" when the group is not shown).
    static QStringList openedShown(const RunsSidebar& s) {
        const QModelIndex g = s.model()->openedGroup();
        QStringList out;
        for (int i = 0; g.isValid() && i < s.model()->rowCount(g); ++i) out << s.model()->run(s.model()->index(i, 0, g)).entry.path;
        return out;
    }
    /// The Opened row of `dir` (invalid when not shown there).
    static ModelRow openedRow(const RunsSidebar& s, const QString& dir) {
        const QModelIndex g = s.model()->openedGroup();
        for (int i = 0; g.isValid() && i < s.model()->rowCount(g); ++i)
            if (s.model()->run(s.model()->index(i, 0, g)).entry.path == dir) return ModelRow{s.model()->index(i, 0, g)};
        return {};
    }
    static int timesListed(const RunsSidebar& s, const QString& dir) {
        int n = 0;
        for (int g = 0; g < s.model()->rowCount(); ++g)
            for (int i = 0; i < s.model()->rowCount(s.model()->index(g, 0)); ++i)
                n += s.model()->run(s.model()->index(i, 0, s.model()->index(g, 0))).entry.path == dir;
        return n;
    }
    QString outside(const QString& name) const { return elsewhere_ + "/" + name; }

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
        ws_ = QDir::cleanPath(tmp_.filePath("ws"));
        elsewhere_ = QDir::cleanPath(tmp_.filePath("elsewhere/deep"));
        streetgan::test::writeRun(ws_ + "/in-workspace", 40, 0);
        streetgan::test::writeRun(outside("far-run"), 50, 0);
        streetgan::test::writeRun(outside("second"), 30, 0, 0.05, "stopped");
    }

    // Opened from outside: under Opened with its state, its folder as the second line, plottable
    // and openable like a workspace run; a workspace run "opened" stays where it is, once.
    void aRunOpenedFromOutsideShowsUnderOpened() {
        RunsSidebar s;
        QAbstractItemModelTester modelTester(s.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(s.filterModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(&s, &RunsSidebar::openedRunsChanged);
        s.setWorkspace(ws_);
        QTRY_VERIFY_WITH_TIMEOUT(s.runIndex(RunPalette::key({}, ws_ + "/in-workspace")).isValid(), streetgan::test::kWaitMs);
        QVERIFY(!s.model()->openedGroup().isValid());  // no Opened runs: no group

        s.addOpened(ws_ + "/in-workspace");
        s.addOpened(ws_ + "/./in-workspace/");  // the same folder, written otherwise
        QCOMPARE(changed.count(), 0);
        QVERIFY(s.openedRuns().isEmpty());

        s.addOpened(outside("far-run"));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.last().at(0).toStringList(), QStringList{outside("far-run")});
        QTRY_COMPARE_WITH_TIMEOUT(openedShown(s), QStringList{outside("far-run")}, streetgan::test::kWaitMs);
        s.addOpened(outside("far-run"));  // again: nothing new
        QCOMPARE(changed.count(), 1);

        const QModelIndex group = s.model()->openedGroup();
        QCOMPARE(group.row(), 1);  // after this computer, before any host
        QCOMPARE(group.data().toString(), QString("Opened"));
        QVERIFY(s.model()->isOpened(group));
        const ModelRow far = openedRow(s, outside("far-run"));
        QCOMPARE(far.text(0), QString("far-run"));
        QCOMPARE(far.text(1), QString("finished 50/50"));
        QCOMPARE(far.data(0, RunItemDelegate::kSecondLineRole).toString(), QDir::toNativeSeparators(elsewhere_));
        QVERIFY(far.flags() & Qt::ItemIsUserCheckable);
        QVERIFY(!far.data(0, Qt::ForegroundRole).isValid());
        QCOMPARE(timesListed(s, ws_ + "/in-workspace"), 1);
        QVERIFY(!s.model()->isOpened(s.runIndex(RunPalette::key({}, ws_ + "/in-workspace"))));

        // Its live state (the open run's events) as for any run; a check plots it; double-click opens it.
        s.showLive(RunPalette::key({}, outside("far-run")), "running", 7, 50);
        QCOMPARE(far.text(1), QString("running 7/50"));
        QCOMPARE(far.data(0, RunItemDelegate::kSecondLineRole).toString(), QDir::toNativeSeparators(elsewhere_));
        QSignalSpy toggled(&s, &RunsSidebar::plotToggled);
        QVERIFY(far.setCheckState(Qt::Checked));
        QCOMPARE(toggled.count(), 1);
        QSignalSpy openLocal(&s, &RunsSidebar::openLocal);
        QVERIFY(s.openRun(RunPalette::key({}, outside("far-run"))));
        QCOMPARE(openLocal.value(0).value(0).toString(), outside("far-run"));

        // The filter finds it by name or by its folder.
        s.setFilter("deep");
        QVERIFY(!far.isHiddenBy(s.filterModel()));
        QVERIFY(ModelRow{s.runIndex(RunPalette::key({}, ws_ + "/in-workspace"))}.isHiddenBy(s.filterModel()));
        s.setFilter("");

        // A workspace that comes to list it shows it there, not under Opened as well.
        s.setWorkspace(elsewhere_);
        QTRY_VERIFY_WITH_TIMEOUT(!s.model()->openedGroup().isValid() && s.model()->rowCount(s.model()->localGroup()) == 2, streetgan::test::kWaitMs);
        QCOMPARE(timesListed(s, outside("far-run")), 1);
        QCOMPARE(s.openedRuns(), QStringList{outside("far-run")});  // still remembered
        s.setWorkspace(ws_);
        QTRY_COMPARE_WITH_TIMEOUT(openedShown(s), QStringList{outside("far-run")}, streetgan::test::kWaitMs);
    }

    // What the window stores (openedRunsChanged) brings the runs back in a new sidebar; Remove
    // (the context menu's action, then Delete in the tree) forgets them and a restart agrees.
    void openedRunsSurviveARestartUntilRemoved() {
        QStringList saved;
        {
            RunsSidebar s;
            QSignalSpy changed(&s, &RunsSidebar::openedRunsChanged);
            s.setWorkspace(ws_);
            s.addOpened(outside("far-run"));
            s.addOpened(outside("second"));
            QCOMPARE(changed.count(), 2);
            saved = changed.last().at(0).toStringList();
        }
        QCOMPARE(saved, (QStringList{outside("far-run"), outside("second")}));
        QStringList afterRemoval;
        {
            RunsSidebar s;
            QAbstractItemModelTester modelTester(s.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
            QSignalSpy changed(&s, &RunsSidebar::openedRunsChanged);
            s.restoreOpened(saved);
            s.setWorkspace(ws_);
            QTRY_COMPARE_WITH_TIMEOUT(openedShown(s), saved, streetgan::test::kWaitMs);
            QCOMPARE(changed.count(), 0);  // restoring is no change
            QCOMPARE(openedRow(s, outside("second")).text(1), QString("stopped 30/30"));

            s.show();
            s.activateWindow();  // (a widget shortcut, Delete below, needs an active window)
            QVERIFY(QTest::qWaitForWindowActive(&s));
            QTreeView* view = s.view();

            // Right-click an Opened run: its menu says Remove from list, which forgets it; the files stay.
            const QModelIndex far = s.filterModel()->mapFromSource(openedRow(s, outside("far-run")).at(0));
            emit view->customContextMenuRequested(view->visualRect(far).center());
            QMenu* menu = s.findChild<QMenu*>();
            QVERIFY(menu);
            QTRY_VERIFY(menu->isVisible());
            QCOMPARE(menu->actions().size(), 1);
            QCOMPARE(menu->actions()[0]->text(), QString("Remove from list"));
            menu->actions()[0]->trigger();
            menu->close();                                             // (deletes itself)
            QCOMPARE(openedShown(s), QStringList{outside("second")});  // at once, not with the next listing
            QCOMPARE(changed.count(), 1);
            QCOMPARE(changed.last().at(0).toStringList(), QStringList{outside("second")});
            QVERIFY(QFileInfo::exists(outside("far-run") + "/events.jsonl"));
            s.refresh();  // and a listing does not bring it back
            QSignalSpy listed(&s, &RunsSidebar::localListed);
            QVERIFY(listed.wait(streetgan::test::kWaitMs));
            QCOMPARE(openedShown(s), QStringList{outside("second")});

            // Delete with the tree focused removes the selected Opened run.
            s.activateWindow();  // (again: the menu had it)
            QVERIFY(QTest::qWaitForWindowActive(&s));
            view->setFocus();
            QTRY_VERIFY(view->hasFocus());
            view->setCurrentIndex(s.filterModel()->mapFromSource(openedRow(s, outside("second")).at(0)));
            QTest::keyClick(view, Qt::Key_Delete);
            QCOMPARE(changed.count(), 2);
            QVERIFY(!s.model()->openedGroup().isValid());  // empty: the group goes
            afterRemoval = changed.last().at(0).toStringList();
            QVERIFY(afterRemoval.isEmpty());
            QVERIFY(QFileInfo::exists(outside("second") + "/events.jsonl"));
        }
        RunsSidebar s;
        s.restoreOpened(afterRemoval);
        QSignalSpy listed(&s, &RunsSidebar::localListed);
        s.setWorkspace(ws_);
        QVERIFY(listed.wait(streetgan::test::kWaitMs));
        QVERIFY(!s.model()->openedGroup().isValid());
    }

    // A remembered run whose folder is gone shows greyed, "missing" with why in its tooltip, with
    // nothing to plot or open; it is removed like any other.
    void aMissingFolderShowsAsMissing() {
        const QString gone = outside("deleted-since");
        streetgan::test::writeRun(gone, 10, 0);
        QVERIFY(QDir(gone).removeRecursively());
        RunsSidebar s;
        QSignalSpy changed(&s, &RunsSidebar::openedRunsChanged);
        s.restoreOpened({gone, outside("far-run"), ""});  // (a blank entry is no run)
        // Listed without a workspace too: the Opened runs need none.
        QTRY_COMPARE_WITH_TIMEOUT(openedShown(s).size(), 2, streetgan::test::kWaitMs);
        QCOMPARE(s.openedRuns(), (QStringList{gone, outside("far-run")}));
        const ModelRow missing = openedRow(s, gone);
        QVERIFY(missing.isValid());
        QCOMPARE(missing.text(0), QString("deleted-since"));
        QCOMPARE(missing.data(1, RunItemDelegate::kStateRole).toString(), QString("missing"));
        QVERIFY2(missing.toolTip(0).contains("no longer exists"), qPrintable(missing.toolTip(0)));
        QVERIFY(missing.toolTip(0).contains(gone));
        QVERIFY(missing.toolTip(0).contains("remove it from this list"));
        QVERIFY(missing.data(0, Qt::ForegroundRole).isValid());  // greyed
        QVERIFY(!(missing.flags() & Qt::ItemIsUserCheckable));
        QVERIFY(!missing.data(0, Qt::CheckStateRole).isValid());
        QVERIFY(!missing.setCheckState(Qt::Checked));
        QSignalSpy openLocal(&s, &RunsSidebar::openLocal);
        QVERIFY(!s.openRun(RunPalette::key({}, gone)));
        QCOMPARE(openLocal.count(), 0);
        // A plotted key restored for it is not opened (and is forgotten with the workspace's
        // listing, as a deleted workspace run's is): there is nothing to plot.
        QSignalSpy toggled(&s, &RunsSidebar::plotToggled);
        s.restorePlotted({RunPalette::key({}, gone)});
        s.setWorkspace(ws_);
        QTRY_VERIFY_WITH_TIMEOUT(s.plottedRuns().isEmpty(), streetgan::test::kWaitMs);
        QCOMPARE(toggled.count(), 0);

        // Back again (restored from a backup): it shows as a run once more.
        streetgan::test::writeRun(gone, 10, 0);
        s.refresh();
        QTRY_COMPARE_WITH_TIMEOUT(openedRow(s, gone).text(1), QString("finished 10/10"), streetgan::test::kWaitMs);
        QVERIFY(!openedRow(s, gone).data(0, Qt::ForegroundRole).isValid());
        QVERIFY(QDir(gone).removeRecursively());
        s.refresh();
        QTRY_COMPARE_WITH_TIMEOUT(openedRow(s, gone).data(1, RunItemDelegate::kStateRole).toString(), QString("missing"), streetgan::test::kWaitMs);

        s.removeOpened({gone});
        QCOMPARE(openedShown(s), QStringList{outside("far-run")});
        QCOMPARE(changed.last().at(0).toStringList(), QStringList{outside("far-run")});
    }

    // Through the main window, as File → Open run… and --open-run open a run: it shows under
    // Opened, a new window on the same settings shows it again, and once removed a restart does
    // not bring it back. A workspace run opened the same way is not added.
    void theMainWindowRemembersOpenedRuns() {
        const QString ws = QDir::cleanPath(tmp_.filePath("ws-window"));
        streetgan::test::writeRun(ws + "/local-one", 20, 0);
        AppSettings settings;
        settings.setOpenedRuns({});
        {
            MainWindow w(ws);
            w.show();
            QVERIFY(w.openLocalRun(outside("far-run")));
            QVERIFY(w.openLocalRun(ws + "/local-one"));
            QTRY_COMPARE_WITH_TIMEOUT(openedShown(*w.sidebar()), QStringList{outside("far-run")}, streetgan::test::kWaitMs);
            QCOMPARE(settings.openedRuns(), QStringList{outside("far-run")});
            QTRY_COMPARE_WITH_TIMEOUT(timesListed(*w.sidebar(), ws + "/local-one"), 1, streetgan::test::kWaitMs);
        }
        {
            MainWindow w(ws);
            QTRY_COMPARE_WITH_TIMEOUT(openedShown(*w.sidebar()), QStringList{outside("far-run")}, streetgan::test::kWaitMs);
            w.sidebar()->removeOpened({outside("far-run")});
            QVERIFY(!w.sidebar()->model()->openedGroup().isValid());
            QVERIFY(settings.openedRuns().isEmpty());
        }
        MainWindow w(ws);
        QSignalSpy listed(w.sidebar(), &RunsSidebar::localListed);
        QVERIFY(listed.wait(streetgan::test::kWaitMs));
        QVERIFY(!w.sidebar()->model()->openedGroup().isValid());
        QVERIFY(w.sidebar()->openedRuns().isEmpty());
    }
};

QTEST_MAIN(OpenedRunsTest)
#include "OpenedRunsTest.moc"
