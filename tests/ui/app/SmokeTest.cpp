// GUI smoke test: the real `streetgan` binary starts on a recorded run directory (offscreen
// platform: no display needed), grabs its window to a PNG and quits; the PNG must not be blank.
// Also the main window in-process: open a run, the active session, settings persisted.
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <QThread>
#include <atomic>
#include <chrono>
#include <thread>
#include "app/AppSettings.h"
#include "app/MainWindow.h"
#include "checkpoints/CheckpointBrowserPage.h"
#include "checkpoints/CheckpointTableModel.h"
#include "dashboard/DashboardPage.h"
#include "dashboard/PlotPanel.h"
#include "explorer/DemoCheckpoint.h"
#include "explorer/ExplorerPage.h"
#include "remote/SshPrompter.h"
#include "runs/RunSession.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;

namespace {

/// Distinct colours and the share of pixels that differ from the most common colour.
std::pair<int, double> imageVariety(const QImage& img) {
    QHash<QRgb, int> counts;
    for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2) ++counts[img.pixel(x, y)];
    int top = 0, total = 0;
    for (int c : counts) {
        top = std::max(top, c);
        total += c;
    }
    return {static_cast<int>(counts.size()), total ? 1.0 - double(top) / total : 0};
}

}  // namespace

class SmokeTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
    }

    void appBinaryScreenshot() {
        const QString run = tmp_.filePath("ws/recorded");
        streetgan::test::writeRun(run, 2000, 250);
        const QString png = tmp_.filePath("window.png");
        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        env.insert("XDG_CONFIG_HOME", tmp_.filePath("app-config"));
        env.insert("STREETGAN_TRAINER", STREETGAN_TRAINER);
        app.setProcessEnvironment(env);
        app.start(STREETGAN_APP, {"--workspace", tmp_.filePath("ws"), "--open-run", run, "--screenshot", png, "--delay", "2500"});
        QVERIFY(app.waitForFinished(60000));
        QCOMPARE(app.exitCode(), 0);
        const QImage img(png);
        QVERIFY(!img.isNull());
        QVERIFY(img.width() >= 800 && img.height() >= 500);
        const auto [colours, share] = imageVariety(img);
        QVERIFY2(colours > 50, qPrintable(QString("only %1 colours").arg(colours)));
        QVERIFY2(share > 0.05, qPrintable(QString("%1 of the pixels differ from the background").arg(share)));
        const QString keep = qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR");
        if (!keep.isEmpty()) QFile::copy(png, keep + "/streetgan-dashboard.png");
    }

    void mainWindowOpensRunAndRemembers() {
        const QString ws = tmp_.filePath("ws2");
        const QString run = ws + "/r1";
        streetgan::test::writeRun(run, 500, 100);
        {
            MainWindow w(ws);
            w.show();
            QSignalSpy opened(&w, &MainWindow::runOpened);
            RunSession* s = w.openLocalRun(run);
            QVERIFY(s);
            QCOMPARE(opened.count(), 1);
            QCOMPARE(w.activeSession(), s);
            QTRY_COMPARE_WITH_TIMEOUT(w.dashboard()->panels()[0]->pointCount(&s->series(), Metric::LossD), 500, streetgan::test::kWaitMs);
            QTRY_VERIFY2_WITH_TIMEOUT(w.connectionText().contains("ended"), qPrintable(w.connectionText()), streetgan::test::kWaitMs);
            QCOMPARE(w.openLocalRun(run), s);  // already open: activated, not opened twice
            w.close();
        }
        AppSettings settings;
        QCOMPARE(settings.workspace(), ws);
        QCOMPARE(settings.recentRuns().value(0), QFileInfo(run).absoluteFilePath());
        QVERIFY(!settings.windowGeometry().isEmpty());
    }

    // The main window's Checkpoints and Explorer tabs: the demo from the welcome page, a real run's
    // checkpoints in the browser, "open in explorer", and a checkpoint outside any run.
    void checkpointsAndExplorerTabs() {
        qputenv("XDG_DATA_HOME", tmp_.filePath("data").toLocal8Bit());
        qputenv("XDG_CACHE_HOME", tmp_.filePath("cache").toLocal8Bit());
        const QString ws = tmp_.filePath("ws3");
        const QString run = ws + "/real";
        const QString trained = streetgan::test::trainTinyRun(STREETGAN_TRAINER, run, 4, 2, 1, 16);
        QVERIFY2(trained.isEmpty(), qPrintable(trained));

        MainWindow w(ws);
        w.show();
        auto* tabs = w.findChild<QTabWidget*>("mainTabs");
        QVERIFY(tabs);
        auto* demo = w.findChild<QPushButton*>("exploreDemoButton");
        QVERIFY(demo && demo->isVisible());
        QTest::mouseClick(demo, Qt::LeftButton);
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(w.explorer()));
        QTRY_VERIFY_WITH_TIMEOUT(w.explorer()->isReady() && !w.explorer()->previewImage().isNull(), streetgan::test::kWaitMs);
        QVERIFY(w.explorer()->checkpoint().endsWith(DemoCheckpoint::kCheckpointFile));
        QCOMPARE(w.explorer()->frameCount(), 48);  // resources/demo/walk.json: 4 keyframes x 12, loop

        // Issue 41 item 7: the checkpoint page's news reaches the status bar only while it is shown.
        tabs->setCurrentWidget(w.dashboard());
        w.statusBar()->clearMessage();
        emit w.checkpoints()->statusMessage("0 checkpoint(s) on gpubox; double-click one to download it.");
        QCOMPARE(w.statusBar()->currentMessage(), QString());
        tabs->setCurrentWidget(w.checkpoints());
        emit w.checkpoints()->statusMessage("2 checkpoint(s) on gpubox; double-click one to download it.");
        QVERIFY2(w.statusBar()->currentMessage().startsWith("2 checkpoint(s) on gpubox"), qPrintable(w.statusBar()->currentMessage()));

        w.openLocalRun(run);
        QTRY_COMPARE_WITH_TIMEOUT(w.checkpoints()->model()->rowCount(), 2, streetgan::test::kWaitMs);  // checkpoints at steps 2 and 4
        const QString first = w.checkpoints()->model()->row(0).info.path;
        QVERIFY(first.startsWith(run + "/checkpoints/"));
        w.checkpoints()->openRowInExplorer(0);
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(w.explorer()));
        QTRY_COMPARE_WITH_TIMEOUT(w.explorer()->checkpoint(), first, streetgan::test::kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(w.explorer()->isReady(), streetgan::test::kWaitMs);

        // A checkpoint outside any run: a reference row in the browser, and the explorer on it.
        const QString outside = tmp_.filePath("elsewhere/model.pt");
        QDir().mkpath(QFileInfo(outside).absolutePath());
        QVERIFY(QFile::copy(first, outside));
        w.openCheckpoint(outside);
        QVERIFY(w.checkpoints()->model()->rowOf(outside) >= 0);
        QTRY_COMPARE_WITH_TIMEOUT(w.explorer()->checkpoint(), outside, streetgan::test::kWaitMs);
        w.close();
    }

    // SSH callbacks run on a worker thread: the question is asked on the GUI thread, the worker
    // waits for the answer; answers are remembered for the session; cancelAll() frees waiters.
    void sshPromptsRunOnTheGuiThread() {
        SshPrompter prompter(nullptr);
        bool onGuiThread = false;
        int asked = 0;
        prompter.hostKeyDialog = [&](const streetgan::HostKeyInfo& info) {
            onGuiThread = QThread::currentThread() == qApp->thread();
            ++asked;
            return info.fingerprintSha256 == "SHA256:abc" ? streetgan::HostKeyDecision::AcceptOnce : streetgan::HostKeyDecision::Refuse;
        };
        prompter.secretDialog = [&](const QString&, bool) -> std::optional<std::string> {
            ++asked;
            return std::string("hunter2");
        };
        const streetgan::SshOptions o = prompter.withPrompts({});
        streetgan::HostKeyInfo info;
        info.host = "gpu-box";
        info.fingerprintSha256 = "SHA256:abc";
        std::atomic<int> done{0};
        streetgan::HostKeyDecision decision = streetgan::HostKeyDecision::Refuse;
        std::optional<std::string> password, again;
        std::thread worker([&] {
            decision = o.onUnknownHostKey(info);
            password = o.password("root@gpu-box's password");
            again = o.password("root@gpu-box's password");
            done = 1;
        });
        QTRY_COMPARE_WITH_TIMEOUT(done.load(), 1, streetgan::test::kWaitMs);
        worker.join();
        QVERIFY(onGuiThread);
        QCOMPARE(decision, streetgan::HostKeyDecision::AcceptOnce);
        QCOMPARE(password.value_or(""), std::string("hunter2"));
        QCOMPARE(again.value_or(""), std::string("hunter2"));
        QCOMPARE(asked, 2);  // the second password prompt was answered from memory

        // closing: a waiting worker is released with "refuse" without the dialog
        prompter.hostKeyDialog = [&](const streetgan::HostKeyInfo&) {
            ++asked;
            return streetgan::HostKeyDecision::AcceptOnce;
        };
        info.fingerprintSha256 = "SHA256:other";
        std::thread waiting([&] { decision = o.onUnknownHostKey(info); });
        // Cancelled before or after the worker queued its question (cancelAll is sticky): either
        // way the worker is refused, and the question, posted before the worker returned, runs
        // now and sees the cancel without showing the dialog.
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        prompter.cancelAll();
        waiting.join();
        QCOMPARE(decision, streetgan::HostKeyDecision::Refuse);
        QCoreApplication::sendPostedEvents();
        QCOMPARE(asked, 2);
    }
};

QTEST_MAIN(SmokeTest)
#include "SmokeTest.moc"
