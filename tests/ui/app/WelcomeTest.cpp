// The first start and Settings: the welcome page with the runs folder pre-filled to the XDG data
// location and no modal dialog, a folder that cannot be made (one-line error, nothing started), the
// tiny run starting in the chosen folder; later starts listing the recent runs; File → Settings…
// changing the runs folder, theme and notifications (persisted); the runs checked for plotting
// surviving a restart. Saves 1280x800 screenshots of the welcome page when STREETGAN_SCREENSHOT_DIR
// is set.
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCommandLinkButton>
#include <QDialogButtonBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/AppSettings.h"
#include "app/MainWindow.h"
#include "app/SettingsDialog.h"
#include "app/WelcomePage.h"
#include "dashboard/DashboardPage.h"
#include "runs/RunPalette.h"
#include "runs/RunSession.h"
#include "runs/RunsSidebar.h"
#include "support/ModelRow.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;
using streetgan::test::ModelRow;

class WelcomeTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    static void screenshot(QWidget& w, const QString& name) {
        const QString keep = qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR");
        if (keep.isEmpty()) return;
        QTest::qWait(200);
        QVERIFY(w.grab().save(keep + "/" + name));
    }

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("XDG_DATA_HOME", tmp_.filePath("data").toLocal8Bit());
        qunsetenv("STREETGAN_WORKSPACE");
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
        qRegisterMetaType<RunSession*>();
    }

    void cleanupTestCase() { streetgan::test::stopRunsUnder(tmp_.path(), STREETGAN_TRAINER); }

    void firstStartNeedsNoDialog() {
        const QString xdg = tmp_.filePath("data") + "/streetgan/runs";
        QCOMPARE(WelcomePage::defaultRunsFolder(), xdg);
        MainWindow w;  // nothing remembered, nothing given
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(100);  // what the event loop would run first (the old first-start dialog was queued)
        QVERIFY(!QApplication::activeModalWidget());
        auto* page = w.findChild<WelcomePage*>();
        QVERIFY(page && page->isVisible());
        QVERIFY(page->isFirstStart());
        auto* folder = page->findChild<QLineEdit*>("runsFolderEdit");
        QVERIFY(folder && folder->isVisible());
        QCOMPARE(folder->text(), xdg);
        QVERIFY(!QFileInfo::exists(xdg));  // made when used, not before
        for (const char* name : {"tinyRunButton", "newRunButton", "connectButton", "openRunButton", "exploreDemoButton", "changeFolderButton"}) {
            auto* b = page->findChild<QPushButton*>(name);
            QVERIFY2(b && b->isVisible(), name);
        }
        QVERIFY(page->findChildren<QCommandLinkButton*>("recentRunButton").isEmpty());
        screenshot(w, "welcome-first-start.png");

        // A folder that cannot be made: one line naming it, nothing asked for, nothing remembered.
        QFile file(tmp_.filePath("a-file"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        const QString bad = tmp_.filePath("a-file/runs");
        folder->setText(bad);
        QSignalSpy tiny(page, &WelcomePage::tinyRunRequested);
        QTest::mouseClick(page->findChild<QPushButton*>("tinyRunButton"), Qt::LeftButton);
        QCOMPARE(tiny.count(), 0);
        QVERIFY2(page->errorText().contains(bad), qPrintable(page->errorText()));
        QVERIFY(!page->errorText().contains('\n'));
        QVERIFY(!AppSettings().welcomeDone());

        // Another folder, typed: the tiny run starts in it, one click.
        const QString chosen = tmp_.filePath("my runs");
        folder->setText(chosen);
        QSignalSpy opened(&w, &MainWindow::runOpened);
        QTest::mouseClick(page->findChild<QPushButton*>("tinyRunButton"), Qt::LeftButton);
        QCOMPARE(tiny.count(), 1);
        QVERIFY(page->errorText().isEmpty());
        QVERIFY(QFileInfo(chosen).isDir());
        QCOMPARE(w.sidebar()->workspace(), chosen);
        AppSettings settings;
        QCOMPARE(settings.workspace(), chosen);
        QVERIFY(settings.welcomeDone());
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, streetgan::test::kWaitMs);
        RunSession* s = w.activeSession();
        QVERIFY(s->runDir().startsWith(chosen + "/tiny-"));
        QVERIFY(!page->isVisible());                                                 // the dashboard replaced it
        QTRY_VERIFY_WITH_TIMEOUT(s->series().rows() > 0, streetgan::test::kWaitMs);  // the trainer answers commands from now on
        // The stop is answered; a refusal (the trainer not listening yet) is said again once the
        // run has moved on, as a user would click again.
        QSignalSpy replies(s, &RunSession::replyReceived);
        QString reply;
        for (int attempt = 0; attempt < 10; ++attempt) {
            const size_t rows = s->series().rows();
            replies.clear();
            s->sendCommand("stop");
            QTRY_VERIFY_WITH_TIMEOUT(!replies.isEmpty(), streetgan::test::kWaitMs);
            reply = replies.first().at(0).toString();
            if (QJsonDocument::fromJson(reply.toUtf8()).object().value("ok").toBool()) break;
            qWarning("stop refused: %s", qPrintable(reply));
            QTRY_VERIFY_WITH_TIMEOUT(s->series().rows() > rows || s->series().state() != "running", streetgan::test::kWaitMs);
        }
        QVERIFY2(QJsonDocument::fromJson(reply.toUtf8()).object().value("ok").toBool(), qPrintable("the trainer answered stop with " + reply));
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("stopped"), streetgan::test::kWaitMs);
    }

    void laterStartListsRecentRuns() {
        AppSettings settings;
        QVERIFY(settings.welcomeDone());
        settings.setPlottedRuns({});  // the tiny run above would open again (plottedSelectionSurvivesRestart)
        const QString ws = settings.workspace();
        for (int i = 1; i <= 6; ++i) {
            const QString run = QString("%1/street-run-%2").arg(ws).arg(i);
            streetgan::test::writeRun(run, 20, 0);
            settings.addRecentRun(run);
        }
        settings.addRecentRun(tmp_.filePath("deleted-run"));  // no such folder: not listed
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* page = w.findChild<WelcomePage*>();
        QVERIFY(page && page->isVisible());
        QVERIFY(!page->isFirstStart());
        QVERIFY(!page->findChild<QLineEdit*>("runsFolderEdit")->isVisible());
        QVERIFY(page->findChild<QPushButton*>("tinyRunButton")->isVisible());
        const QList<QCommandLinkButton*> recent = page->findChildren<QCommandLinkButton*>("recentRunButton");
        QCOMPARE(recent.size(), WelcomePage::kMaxRecentShown);
        QCOMPARE(page->shownRecentRuns().value(0), ws + "/street-run-6");
        QCOMPARE(recent[0]->text(), QString("street-run-6"));
        screenshot(w, "welcome-later.png");
        QSignalSpy opened(&w, &MainWindow::runOpened);
        QTest::mouseClick(recent[1], Qt::LeftButton);
        QCOMPARE(opened.count(), 1);
        QCOMPARE(w.activeSession()->runDir(), ws + "/street-run-5");
        // the list follows what was opened
        QCOMPARE(page->shownRecentRuns().value(0), ws + "/street-run-5");
    }

    void settingsDialogChangesFolderThemeAndNotifications() {
        AppSettings().setPlottedRuns({});
        MainWindow w;
        w.show();
        auto* action = w.findChild<QAction*>("settingsAction");
        QVERIFY(action);
        QVERIFY(!action->shortcut().isEmpty());
        action->trigger();
        auto* d = w.findChild<SettingsDialog*>();
        QVERIFY(d && d->isVisible());
        auto* folder = d->findChild<QLineEdit*>("runsFolderEdit");
        QCOMPARE(folder->text(), w.sidebar()->workspace());
        QVERIFY(d->findChild<QRadioButton*>("themeSystem")->isChecked());
        QVERIFY(d->findChild<QCheckBox*>("notificationsCheck")->isChecked());
        screenshot(*d, "settings-dialog.png");

        // a folder that cannot be made: the dialog stays, says which, changes nothing
        const QString before = w.sidebar()->workspace();
        const QString bad = tmp_.filePath("a-file/runs");
        folder->setText(bad);
        auto* box = d->findChild<QDialogButtonBox*>();
        QTest::mouseClick(box->button(QDialogButtonBox::Ok), Qt::LeftButton);
        QVERIFY(d->isVisible());
        QVERIFY2(d->errorText().contains(bad), qPrintable(d->errorText()));
        QCOMPARE(w.sidebar()->workspace(), before);

        const QString other = tmp_.filePath("elsewhere/runs");
        folder->setText(other);
        d->findChild<QRadioButton*>("themeDark")->setChecked(true);
        d->findChild<QCheckBox*>("notificationsCheck")->setChecked(false);
        QSignalSpy theme(d, &SettingsDialog::themeChanged);
        QSignalSpy listed(w.sidebar(), &RunsSidebar::localListed);
        QTest::mouseClick(box->button(QDialogButtonBox::Ok), Qt::LeftButton);
        QTRY_VERIFY(!w.findChild<SettingsDialog*>());  // closed (deleted on close)
        QCOMPARE(theme.count(), 1);
        QCOMPARE(theme.at(0).at(0).toString(), QString("dark"));
        QCOMPARE(w.sidebar()->workspace(), other);
        QVERIFY(QFileInfo(other).isDir());
        QVERIFY(listed.wait(streetgan::test::kWaitMs));  // the sidebar lists the new folder
        AppSettings settings;
        QCOMPARE(settings.workspace(), other);
        QCOMPARE(settings.theme(), QString("dark"));
        QVERIFY(!settings.notificationsEnabled());

        // opened again: what was stored
        action->trigger();
        d = w.findChild<SettingsDialog*>();
        QVERIFY(d);
        QCOMPARE(d->findChild<QLineEdit*>("runsFolderEdit")->text(), other);
        QVERIFY(d->findChild<QRadioButton*>("themeDark")->isChecked());
        QVERIFY(!d->findChild<QCheckBox*>("notificationsCheck")->isChecked());
        d->findChild<QRadioButton*>("themeLight")->setChecked(true);
        d->findChild<QCheckBox*>("notificationsCheck")->setChecked(true);
        QVERIFY(d->apply());
        d->reject();
        QCOMPARE(settings.theme(), QString("light"));
        QVERIFY(settings.notificationsEnabled());

        // a restarted window uses the folder chosen in Settings
        MainWindow again;
        QCOMPARE(again.sidebar()->workspace(), other);

        // The welcome page in the dark theme, for a look (no assertion on the theme itself).
        settings.setTheme("dark");
        MainWindow dark;
        dark.resize(1280, 800);
        dark.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dark));
        screenshot(dark, "welcome-later-dark.png");
        settings.setTheme("system");
    }

    void plottedSelectionSurvivesRestart() {
        const QString ws = tmp_.filePath("plot-ws");
        streetgan::test::writeRun(ws + "/alpha", 50, 0);
        streetgan::test::writeRun(ws + "/beta", 40, 0);
        const QString a = RunPalette::key({}, ws + "/alpha"), b = RunPalette::key({}, ws + "/beta");
        {
            MainWindow w(ws);
            w.show();
            QTRY_VERIFY_WITH_TIMEOUT(w.sidebar()->runIndex(a).isValid() && w.sidebar()->runIndex(b).isValid(), streetgan::test::kWaitMs);
            ModelRow{w.sidebar()->runIndex(a)}.setCheckState(Qt::Checked);  // as a click does: opens it
            ModelRow{w.sidebar()->runIndex(b)}.setCheckState(Qt::Checked);
            QVERIFY(w.activeSession());
            ModelRow{w.sidebar()->runIndex(b)}.setCheckState(Qt::Unchecked);  // open, not plotted
            QCOMPARE(AppSettings().plottedRuns(), QStringList{a});
        }
        // the restart: alpha checked and plotted again, beta left alone
        MainWindow w(ws);
        w.show();
        QSignalSpy opened(&w, &MainWindow::runOpened);
        QTRY_VERIFY_WITH_TIMEOUT(w.sidebar()->runIndex(a).isValid() && w.sidebar()->runIndex(b).isValid(), streetgan::test::kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, streetgan::test::kWaitMs);
        QCOMPARE(ModelRow{w.sidebar()->runIndex(a)}.checkState(), Qt::Checked);
        QCOMPARE(ModelRow{w.sidebar()->runIndex(b)}.checkState(), Qt::Unchecked);
        RunSession* s = w.activeSession();
        QVERIFY(s);
        QCOMPARE(RunPalette::key({}, s->runDir()), a);
        QVERIFY(w.dashboard()->isPlotted(s));
        QCOMPARE(AppSettings().plottedRuns(), QStringList{a});
        QTest::qWait(200);
        QCOMPARE(opened.count(), 1);  // beta did not open
    }
};

QTEST_MAIN(WelcomeTest)
#include "WelcomeTest.moc"
