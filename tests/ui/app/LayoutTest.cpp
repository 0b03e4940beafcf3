// The main window on small and huge screens, its icons, shortcuts and themes (issue 17).
// The screen is fixed when QApplication starts, so each screen size runs in a child process of this
// same executable: STREETGAN_LAYOUT_SCREEN=WxH[@SCALE] makes main() give the offscreen platform a
// screen of that size (its configfile option, Qt >= 6.2) and QT_SCALE_FACTOR, then run
// ScreenTest; without it, LayoutTest runs on the default offscreen screen and starts the children.
// STREETGAN_LAYOUT_SHOTS=DIR keeps screenshots (DIR/h3_<screen>_<theme>.png).
#include <qcustomplot.h>
#include <QAbstractButton>
#include <QAbstractItemModelTester>
#include <QAbstractScrollArea>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QProcess>
#include <QScreen>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>
#include <QToolBar>
#include <QTreeView>
#include <memory>

#include "app/AppSettings.h"
#include "app/IconSet.h"
#include "app/MainWindow.h"
#include "app/ShortcutsDialog.h"
#include "app/ThemeManager.h"
#include "dashboard/DashboardPage.h"
#include "dashboard/PlotPanel.h"
#include "hosts/ConnectDialog.h"
#include "hosts/TensorBoardFolderDialog.h"
#include "hosts/TrainerSetupDialog.h"
#include "remote/RemoteHost.h"
#include "runs/NewRunDialog.h"
#include "runs/RunSession.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;

namespace {

QString shotDir() { return qEnvironmentVariable("STREETGAN_LAYOUT_SHOTS"); }

/// Visible widgets under `w` whose on-screen rectangle leaves `screen` (not looking inside scroll
/// areas: their content is meant to scroll). A dock behind another one's tab is "visible" but
/// parked outside the window: an empty visible region skips it.
void collectOutside(QWidget* w, const QRect& screen, QStringList& out) {
    if (!w->isVisible() || (!w->isWindow() && w->visibleRegion().isEmpty())) return;
    const QRect global(w->mapToGlobal(QPoint(0, 0)), w->size());
    if (!screen.contains(global))
        out << QString("%1 (%2) at %3,%4 %5x%6")
                   .arg(w->metaObject()->className(), w->objectName())
                   .arg(global.x())
                   .arg(global.y())
                   .arg(global.width())
                   .arg(global.height());
    if (qobject_cast<QAbstractScrollArea*>(w)) return;
    for (QObject* c : w->children())
        if (auto* cw = qobject_cast<QWidget*>(c); cw && !cw->isWindow()) collectOutside(cw, screen, out);
}

/// Issue 41: no text overlaps another. The visible text widgets under `w` (labels, buttons, check
/// boxes; line edits and combo boxes by their frames): each one's text fits its width unless it
/// wraps or elides by design, and no two of them that are not nested overlap on screen.
void collectTextClashes(QWidget* root, QStringList& out) {
    struct Text {
        QWidget* w;
        QRect rect;
        QString text;
    };
    QList<Text> texts;
    const auto visit = [&](auto&& self, QWidget* w) -> void {
        if (!w->isVisible() || (!w->isWindow() && w->visibleRegion().isEmpty())) return;
        QString text;
        int need = 0;
        if (auto* l = qobject_cast<QLabel*>(w); l && !l->text().isEmpty() && l->pixmap().isNull()) {
            text = l->text();
            const bool rich = Qt::mightBeRichText(text);
            if (!l->wordWrap() && !rich && !text.contains('\n')) need = l->fontMetrics().horizontalAdvance(text) + 2 * l->margin() + l->indent();
            // A wrapping label cut off at the bottom runs into what is below it.
            if (l->wordWrap() && l->heightForWidth(l->width()) > l->height() + 2)
                out << QString("'%1' (wrapped) needs %2 px of height, has %3").arg(text.left(60)).arg(l->heightForWidth(l->width())).arg(l->height());
        } else if (auto* b = qobject_cast<QAbstractButton*>(w); b && !b->text().isEmpty()) {
            text = b->text();
        } else if (qobject_cast<QLineEdit*>(w) || qobject_cast<QComboBox*>(w)) {
            text = w->metaObject()->className();
        }
        if (!text.isEmpty()) {
            const QRect r(w->mapToGlobal(QPoint(0, 0)), w->size());
            if (need > w->width() + 1)
                out << QString("'%1' (%2) needs %3 px, has %4").arg(text.left(60), w->metaObject()->className()).arg(need).arg(w->width());
            texts << Text{w, r, text};
        }
        if (qobject_cast<QAbstractScrollArea*>(w)) return;  // scrolled content is laid out by its view
        for (QObject* c : w->children())
            if (auto* cw = qobject_cast<QWidget*>(c); cw && !cw->isWindow()) self(self, cw);
    };
    visit(visit, root);
    for (int i = 0; i < texts.size(); ++i)
        for (int j = i + 1; j < texts.size(); ++j) {
            const Text &a = texts[i], &b = texts[j];
            if (a.w->isAncestorOf(b.w) || b.w->isAncestorOf(a.w)) continue;
            const QRect both = a.rect.intersected(b.rect);
            if (both.width() > 1 && both.height() > 1)
                out << QString("'%1' and '%2' overlap (%3x%4 px)").arg(a.text.left(40), b.text.left(40)).arg(both.width()).arg(both.height());
        }
}

/// Most lightness among the opaque pixels of `icon` at 24 px (which stroke colour it has).
int strokeLightness(const QIcon& icon) {
    const QImage img = icon.pixmap(24, 24).toImage();
    int most = -1;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            if (const QColor c = img.pixelColor(x, y); c.alpha() > 200) most = std::max(most, c.lightness());
    return most;
}

QList<QAction*> menuActionsWithKeys(QMenu* m) {
    QList<QAction*> out;
    for (QAction* a : m->actions()) {
        if (a->menu())
            out << menuActionsWithKeys(a->menu());
        else if (!a->isSeparator() && !a->shortcut().isEmpty())
            out << a;
    }
    return out;
}

}  // namespace

/// One screen (child process): the window with a run open fits it on every tab.
class ScreenTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
    }

    void fitsOnEveryTab() {
        const QString spec = qEnvironmentVariable("STREETGAN_LAYOUT_SCREEN");
        const QString ws = tmp_.filePath("ws");
        streetgan::test::writeRun(ws + "/r1", 400, 100);
        MainWindow w(ws);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        RunSession* s = w.openLocalRun(ws + "/r1");
        QVERIFY(s);
        QTRY_COMPARE_WITH_TIMEOUT(w.dashboard()->panels()[0]->pointCount(&s->series(), Metric::LossD), 400, streetgan::test::kWaitMs);
        const QRect avail = w.screen()->availableGeometry();
        QVERIFY2(avail.contains(w.frameGeometry()), qPrintable(QString("window %1x%2 on a %3x%4 screen (minimum %5x%6)")
                                                                   .arg(w.frameGeometry().width())
                                                                   .arg(w.frameGeometry().height())
                                                                   .arg(avail.width())
                                                                   .arg(avail.height())
                                                                   .arg(w.minimumSizeHint().width())
                                                                   .arg(w.minimumSizeHint().height())));
        auto* tabs = w.findChild<QTabWidget*>("mainTabs");
        QVERIFY(tabs);
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            QTest::qWait(200);  // layouts settle (the explorer starts its demo model)
            QVERIFY2(avail.contains(w.frameGeometry()), qPrintable(tabs->tabText(i) + ": the window grew past the screen"));
            QWidget* page = tabs->currentWidget();
            QVERIFY2(page->width() >= page->minimumSizeHint().width() && page->height() >= page->minimumSizeHint().height(),
                     qPrintable(QString("%1 tab squeezed: %2x%3, needs %4x%5")
                                    .arg(tabs->tabText(i))
                                    .arg(page->width())
                                    .arg(page->height())
                                    .arg(page->minimumSizeHint().width())
                                    .arg(page->minimumSizeHint().height())));
            QStringList outside;
            collectOutside(&w, avail, outside);
            QVERIFY2(outside.isEmpty(), qPrintable(QString("%1 tab on %2: %3").arg(tabs->tabText(i), spec, outside.join("; "))));
            QStringList clashes;
            collectTextClashes(&w, clashes);
            QVERIFY2(clashes.isEmpty(), qPrintable(QString("%1 tab on %2: %3").arg(tabs->tabText(i), spec, clashes.join("; "))));
        }
        // The dialogs too: the set-up with its longest refusal shown (it once ran over the log
        // at 1280x800), Connect, New run and Watch TensorBoard runs.
        {
            HostConfig c;
            c.host = "gpubox-with-a-long-name.example.org";
            RemoteHost host(c, nullptr);
            TrainerSetupDialog setup(&host);
            setup.show();
            QVERIFY(QTest::qWaitForWindowExposed(&setup));
            setup.setMethod(TrainerSetupRequest::Bundle);
            setup.setFile("");
            QVERIFY(!setup.start());
            QTest::qWait(100);
            ConnectDialog connect({c});
            connect.show();
            NewRunDialog newRun({"This computer", c.host}, nullptr, {QString(), "not connected"});
            newRun.show();
            QVERIFY(QTest::qWaitForWindowExposed(&connect) && QTest::qWaitForWindowExposed(&newRun));
            // The TensorBoard-folder dialog with its longest text: a search that failed (port 1 on
            // loopback: refused at once, nothing leaves this machine).
            HostConfig refused;
            refused.host = "127.0.0.1";
            refused.port = 1;
            refused.configFile = "none";
            RemoteHost refusedHost(refused, nullptr);
            TensorBoardFolderDialog watch(&refusedHost);
            watch.show();
            QVERIFY(QTest::qWaitForWindowExposed(&watch));
            QTRY_VERIFY_WITH_TIMEOUT(!watch.isSearching() && watch.searchText().startsWith("The search failed"), streetgan::test::kWaitMs);
            for (QWidget* d : std::initializer_list<QWidget*>{&setup, &connect, &newRun, &watch}) {
                QVERIFY2(avail.contains(d->frameGeometry()), qPrintable(QString("%1 on %2 leaves the screen").arg(d->windowTitle(), spec)));
                QStringList clashes;
                collectTextClashes(d, clashes);
                QVERIFY2(clashes.isEmpty(), qPrintable(QString("%1 on %2: %3").arg(d->windowTitle(), spec, clashes.join("; "))));
            }
        }
        // Nothing of the System-and-cost dock is lost: visible, or one click away (View menu, toolbar).
        auto* systemToggle = w.findChild<QAction*>("systemToggle");
        QVERIFY(systemToggle);
        auto* toolbar = w.findChild<QToolBar*>("mainToolBar");
        QVERIFY(toolbar && toolbar->actions().contains(systemToggle));
        for (QAction* a : toolbar->actions()) {
            if (a->isSeparator()) continue;
            QVERIFY2(!a->icon().isNull(), qPrintable(a->text()));
            // Scalable: a crisp pixmap at the screen's pixel ratio, not a blown-up small one.
            const qreal dpr = w.devicePixelRatioF();
            const QPixmap px = a->icon().pixmap(QSize(24, 24), dpr);
            QVERIFY2(px.width() >= qRound(24 * dpr), qPrintable(QString("%1: %2 px at dpr %3").arg(a->text()).arg(px.width()).arg(dpr)));
            QVERIFY2(a->toolTip().contains(a->shortcut().toString(QKeySequence::NativeText)), qPrintable(a->toolTip()));
        }
        // Text stays readable: at least 8 pt (Qt scales points with the screen).
        QVERIFY(w.font().pointSizeF() >= 8 || w.font().pixelSize() >= 11);
        if (!shotDir().isEmpty()) {
            tabs->setCurrentIndex(0);
            for (const QString theme : {"light", "dark"}) {
                w.applyTheme(theme, false);
                QTest::qWait(300);
                QVERIFY(w.grab().save(QString("%1/h3_%2_%3.png").arg(shotDir(), QString(spec).replace('@', "at"), theme)));
            }
            tabs->setCurrentIndex(tabs->count() - 1);  // the explorer, the widest tab
            QTest::qWait(1500);
            QVERIFY(w.grab().save(QString("%1/h3_%2_explorer.png").arg(shotDir(), QString(spec).replace('@', "at"))));
            w.applyTheme("light", false);
        }
        w.close();
    }

    // A restored geometry bigger than the screen is clamped to it.
    void restoredGeometryIsClamped() {
        {
            MainWindow w(tmp_.filePath("ws-clamp"));
            w.setGeometry(0, 0, 3000, 2000);
            w.close();  // saves the layout
        }
        MainWindow w(tmp_.filePath("ws-clamp"));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QRect avail = w.screen()->availableGeometry();
        QVERIFY2(avail.contains(w.frameGeometry()), qPrintable(QString("%1x%2").arg(w.width()).arg(w.height())));
        w.close();
    }
};

/// On the default offscreen screen: the screen children, icons, shortcuts, themes.
class LayoutTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    void runScreen(const QString& spec) {
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("STREETGAN_LAYOUT_SCREEN", spec);
        child.setProcessEnvironment(env);
        child.setProcessChannelMode(QProcess::MergedChannels);
        child.start(QCoreApplication::applicationFilePath(), {});
        QVERIFY(child.waitForFinished(90000));
        const QString out = QString::fromLocal8Bit(child.readAll());
        QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0, qPrintable(spec + ":\n" + out));
    }

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
    }

    // The check the screens run can fail: two labels placed over each other, and a label whose
    // text is wider than it, are both found.
    void textClashCheckFindsClashes() {
        QWidget host;
        host.resize(300, 100);
        auto* a = new QLabel("Waiting for the first event from gpubox…", &host);
        a->setGeometry(0, 0, 120, 20);
        auto* b = new QLabel("10001250", &host);
        b->setGeometry(60, 5, 80, 20);
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        QStringList clashes;
        collectTextClashes(&host, clashes);
        QVERIFY2(clashes.join("|").contains("overlap"), qPrintable(clashes.join("|")));
        QVERIFY2(clashes.join("|").contains("needs"), qPrintable(clashes.join("|")));
        b->move(200, 50);
        a->resize(a->sizeHint().width(), 20);
        clashes.clear();
        collectTextClashes(&host, clashes);
        QVERIFY2(clashes.isEmpty(), qPrintable(clashes.join("|")));
    }

    void fits1280x800() { runScreen("1280x800"); }
    void fits1366x768() { runScreen("1366x768"); }
    void fits1920x1080() { runScreen("1920x1080"); }
    void fits4kAt2x() { runScreen("3840x2160@2"); }

    void bundledIconsMatchThePalette() {
        for (const QString& name : IconSet::names()) {
            const QIcon light = IconSet::bundled(name, false), dark = IconSet::bundled(name, true);
            QVERIFY2(!light.isNull() && !dark.isNull(), qPrintable(name));
            QVERIFY2(strokeLightness(light) >= 0 && strokeLightness(light) < 80, qPrintable(name));  // dark strokes on light
            QVERIFY2(strokeLightness(dark) > 180, qPrintable(name));                                 // light strokes on dark
        }
        QVERIFY(IconSet::bundled("no-such-icon", false).isNull());
    }

    void toolbarIconsInBothThemes() {
        MainWindow w(tmp_.filePath("ws"));
        auto* toolbar = w.findChild<QToolBar*>("mainToolBar");
        QVERIFY(toolbar);
        for (const QString theme : {"light", "dark"}) {
            w.applyTheme(theme, false);
            int actions = 0;
            for (QAction* a : toolbar->actions()) {
                if (a->isSeparator()) continue;
                ++actions;
                QVERIFY2(!a->icon().isNull(), qPrintable(theme + ": " + a->text()));
                QVERIFY2(!a->icon().pixmap(24, 24).isNull(), qPrintable(theme + ": " + a->text()));
            }
            QCOMPARE(actions, 9);
            // Forced to the other look than the desktop's: the bundled icons, in the palette's colour.
            if (!w.icons()->useThemeIcons()) {
                const int l = strokeLightness(toolbar->actions().first()->icon());
                QVERIFY2(theme == "dark" ? l > 180 : l < 80, qPrintable(QString("%1: stroke lightness %2").arg(theme).arg(l)));
            }
        }
        w.applyTheme("light", false);
    }

    void shortcutsDialogListsEveryMenuAction() {
        MainWindow w(tmp_.filePath("ws"));
        w.show();
        auto* help = w.findChild<QAction*>("shortcutsAction");
        QVERIFY(help);
        QVERIFY(help->shortcuts().contains(QKeySequence(Qt::Key_F1)));
        help->trigger();
        auto* d = w.findChild<ShortcutsDialog*>("shortcutsDialog");
        QVERIFY(d);
        const QList<ShortcutsDialog::Entry> entries = d->entries();
        int expected = 0;
        for (QAction* m : w.menuBar()->actions()) {
            QVERIFY(m->menu());
            for (QAction* a : menuActionsWithKeys(m->menu())) {
                ++expected;
                const QString text = ShortcutsDialog::plainText(a->text());
                const QString key = a->shortcut().toString(QKeySequence::NativeText);
                const bool listed = std::any_of(entries.begin(), entries.end(), [&](const auto& e) { return e.action == text && e.keys.contains(key); });
                QVERIFY2(listed, qPrintable(text + " " + key));
            }
        }
        QVERIFY(expected >= 15);
        // The explorer's keys come from its own actions.
        QVERIFY(std::any_of(entries.begin(), entries.end(), [](const auto& e) {
            return e.group == "Explorer tab" && e.keys == QKeySequence(QKeySequence::Undo).toString(QKeySequence::NativeText);
        }));
        auto* tree = d->findChild<QTreeView*>("shortcutsTree");
        QVERIFY(tree && tree->model() == d->model() && d->model()->rowCount() >= 4);
        QAbstractItemModelTester tester(d->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        int listed = 0;  // every entry under its group, with its keys
        for (int g = 0; g < d->model()->rowCount(); ++g) listed += d->model()->rowCount(d->model()->index(g, 0));
        QCOMPARE(listed, int(entries.size()));
        QCOMPARE(d->model()->index(0, 1, d->model()->index(0, 0)).data().toString(), entries.front().keys);
        if (!shotDir().isEmpty()) QVERIFY(d->grab().save(shotDir() + "/h3_shortcuts.png"));
        d->close();
    }

    void darkAndLightThemes() {
        MainWindow w(tmp_.filePath("ws"));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        PlotPanel* plot = w.dashboard()->panels()[0];
        auto plotCorner = [&] { return plot->plot()->grab().toImage().pixelColor(3, 3).lightness(); };
        w.applyTheme("dark", false);
        QVERIFY(w.themeManager()->isDark());
        // The palette reaches the widgets through (posted) ApplicationPaletteChange events.
        QTRY_VERIFY2(w.palette().color(QPalette::Window).lightness() < 100, qPrintable(w.palette().color(QPalette::Window).name()));
        QTRY_VERIFY2(plotCorner() < 100, qPrintable(QString::number(plotCorner())));
        QVERIFY(plot->plot()->xAxis->tickLabelColor().lightness() > 150);
        w.applyTheme("light", false);
        QVERIFY(!w.themeManager()->isDark());
        QTRY_VERIFY(w.palette().color(QPalette::Window).lightness() > 150);
        QTRY_VERIFY2(plotCorner() > 200, qPrintable(QString::number(plotCorner())));
        QVERIFY(plot->plot()->xAxis->tickLabelColor().lightness() < 100);
        QCOMPARE(AppSettings().theme(), QString("system"));  // applyTheme(…, false) saves nothing
        w.close();
    }

    void themeFromTheMenuPersists() {
        {
            MainWindow w(tmp_.filePath("ws"));
            auto* dark = w.findChild<QAction*>("theme-dark");
            QVERIFY(dark && dark->isCheckable());
            dark->trigger();
            QVERIFY(dark->isChecked());
            QVERIFY(!w.findChild<QAction*>("theme-system")->isChecked());
            QCOMPARE(AppSettings().theme(), QString("dark"));
        }
        {
            MainWindow w(tmp_.filePath("ws"));  // a new start: dark again
            QVERIFY(w.themeManager()->isDark());
            QVERIFY(w.findChild<QAction*>("theme-dark")->isChecked());
            QVERIFY(w.palette().color(QPalette::Window).lightness() < 100);
            w.findChild<QAction*>("theme-light")->trigger();
            QCOMPARE(AppSettings().theme(), QString("light"));
        }
        AppSettings().setTheme("system");
    }

    // "system" follows the desktop: without a portal, GTK_THEME=…:dark means dark.
    void systemModeReadsTheDesktop() {
        qputenv("GTK_THEME", "Adwaita:dark");
        ThemeManager dark(nullptr);
        qputenv("GTK_THEME", "Adwaita");
        ThemeManager light(nullptr);
        qunsetenv("GTK_THEME");
        if (!dark.portalAvailable()) {
            QVERIFY(dark.desktopPrefersDark());
            QVERIFY(!light.desktopPrefersDark());
            dark.setMode("system");
            QVERIFY(dark.isDark());
        }
        QVERIFY(!light.setMode("purple"));
        light.setMode("light");
    }

    // streetgan --theme: applied for that run only; a wrong value is a one-line error.
    void themeOption() {
        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_CONFIG_HOME", tmp_.filePath("app-config"));
        app.setProcessEnvironment(env);
        app.start(STREETGAN_APP, {"--theme", "purple"});
        QVERIFY(app.waitForFinished(streetgan::test::kWaitMs));
        QCOMPARE(app.exitCode(), 2);
        QVERIFY(app.readAllStandardError().contains("--theme 'purple'"));
        const QString png = tmp_.filePath("dark.png");
        app.start(STREETGAN_APP, {"--workspace", tmp_.filePath("ws"), "--theme", "dark", "--screenshot", png, "--delay", "300"});
        QVERIFY(app.waitForFinished(60000));
        QCOMPARE(app.exitCode(), 0);
        const QImage img(png);
        QVERIFY(!img.isNull());
        QVERIFY2(img.pixelColor(img.width() / 2, img.height() - 5).lightness() < 100, "the status bar is not dark");
    }
};

int main(int argc, char** argv) {
    const QString spec = qEnvironmentVariable("STREETGAN_LAYOUT_SCREEN");
    std::unique_ptr<QTemporaryDir> configDir;
    if (!spec.isEmpty()) {
        const QStringList sizeScale = spec.split('@');
        const QStringList wh = sizeScale[0].split('x');
        configDir = std::make_unique<QTemporaryDir>();
        const QString config = configDir->filePath("screen.json");
        QJsonObject screen{{"name", "layout"}, {"x", 0}, {"y", 0}, {"width", wh.value(0).toInt()}, {"height", wh.value(1).toInt()}};
        QFile f(config);
        if (!f.open(QIODevice::WriteOnly)) return 3;
        f.write(QJsonDocument(QJsonObject{{"screens", QJsonArray{screen}}}).toJson());
        f.close();
        qputenv("QT_QPA_PLATFORM", ("offscreen:configfile=" + config).toLocal8Bit());
        if (sizeScale.size() > 1) qputenv("QT_SCALE_FACTOR", sizeScale[1].toLocal8Bit());
    }
    QApplication app(argc, argv);
    QTEST_SET_MAIN_SOURCE_PATH
    if (!spec.isEmpty()) {
        ScreenTest t;
        return QTest::qExec(&t, argc, argv);
    }
    LayoutTest t;
    return QTest::qExec(&t, argc, argv);
}

#include "LayoutTest.moc"
