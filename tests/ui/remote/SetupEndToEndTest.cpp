// The app's whole set-up path against another system's sshd (tests/packaging/test_setup_e2e_chroot.sh
// makes that system: a Debian 13 chroot with its own sshd on a loopback port and pip's torch in
// ~/.venv): connect, the trainer reported missing, the set-up dialog surveys the host and preselects
// its plan (the prebuilt bundle for that torch, or a build on the host), the set-up runs to its end
// and the host's trainer is ready; then a tiny run started there is opened, plotted and finishes.
// Not a ctest test (the script runs it with STREETGAN_E2E_* set): alone it says what it needs.
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include "app/MainWindow.h"
#include "hosts/TrainerSetupDialog.h"
#include "remote/RemoteHost.h"
#include "remote/SshPrompter.h"
#include "runs/NewRunDialog.h"
#include "runs/RunSession.h"
#include "runs/RunsSidebar.h"
#include "support/ModelRow.h"
#include "support/UiTestSupport.h"

using namespace streetgan;
using namespace streetgan::ui;
using streetgan::test::ModelRow;

class SetupEndToEndTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    static QString env(const char* name) { return qEnvironmentVariable(name); }

private slots:
    void initTestCase() {
        if (env("STREETGAN_E2E_PORT").isEmpty())
            QFAIL("run by tests/packaging/test_setup_e2e_chroot.sh, which sets STREETGAN_E2E_PORT, _USER, _KEY, _EXPECT, _TORCH and _SETUP_S");
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("XDG_CACHE_HOME", tmp_.filePath("cache").toLocal8Bit());
    }

    void setUpThenTrainATinyRun() {
        const QString expect = env("STREETGAN_E2E_EXPECT");  // "bundle" or "source"
        const int setupMs = env("STREETGAN_E2E_SETUP_S").toInt() * 1000;
        MainWindow w(tmp_.filePath("workspace"));
        w.prompter()->hostKeyDialog = [](const HostKeyInfo&) { return HostKeyDecision::AcceptAndRemember; };
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        HostConfig c;
        c.host = "127.0.0.1";
        c.port = env("STREETGAN_E2E_PORT").toInt();
        c.user = env("STREETGAN_E2E_USER");
        c.keyFile = env("STREETGAN_E2E_KEY");
        c.knownHosts = tmp_.filePath("known_hosts");
        c.configFile = "none";
        c.root = "runs";  // under the host's home
        RemoteHost* host = w.connectHost(c);
        QVERIFY(host);
        QTRY_VERIFY2_WITH_TIMEOUT(host->trainerStatus().state != TrainerStatus::Unknown, qPrintable(host->lastError()), streetgan::test::kWaitMs);
        QCOMPARE(host->trainerStatus().state, int(TrainerStatus::Missing));

        // The set-up, as the host's menu opens it: the survey chooses, nothing is set by hand.
        emit w.sidebar()->setUpTrainerRequested(host);
        auto* setup = w.findChild<TrainerSetupDialog*>();
        QVERIFY(setup);
        QSignalSpy surveyed(setup, &TrainerSetupDialog::surveyFinished);
        if (!setup->isSurveying()) setup->survey();
        QTRY_VERIFY_WITH_TIMEOUT(!surveyed.isEmpty(), streetgan::test::kWaitMs);
        const QString plan = setup->planText();
        qInfo().noquote() << "survey:" << plan;
        QVERIFY2(plan.contains("Debian GNU/Linux 13"), qPrintable(plan));
        QVERIFY2(plan.contains("torch " + env("STREETGAN_E2E_TORCH")), qPrintable(plan));
        const int method = expect == "bundle" ? TrainerSetupRequest::Bundle : TrainerSetupRequest::Source;
        QCOMPARE(int(setup->method()), method);
        QSignalSpy done(setup, &TrainerSetupDialog::setupFinished);
        QVERIFY2(setup->start(), qPrintable(setup->resultText()));
        QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), setupMs);
        qInfo().noquote() << "set-up:" << setup->resultText();
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(setup->logText().right(4000)));
        QTRY_VERIFY_WITH_TIMEOUT(host->trainerStatus().state == TrainerStatus::Ready, streetgan::test::kWaitMs);
        qInfo().noquote() << "trainer:" << host->trainerStatus().summary << "at" << host->config().trainer;

        // A tiny run there: opened, plotted, finished.
        QSignalSpy opened(&w, &MainWindow::runOpened);
        QStringList args = NewRunDialog::tinyRunArguments("runs/tiny");
        args[args.indexOf("--steps") + 1] = "40";
        args[args.indexOf("--batch") + 1] = "8";
        args[args.indexOf("--sample-every") + 1] = "20";
        host->startRun(args);
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), streetgan::test::kWaitMs);
        RunSession* s = w.activeSession();
        QVERIFY(s && s->isRemote());
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(s->series().state()), QString("finished"), setupMs);
        QCOMPARE(s->series().totalSteps(), 40);
        QVERIFY(w.sidebar()->isPlotted(s->runKey()));
        qInfo().noquote() << "tiny run: finished" << s->series().lastStep() << "/ 40, plotted";
        const QString shot = env("STREETGAN_E2E_SCREENSHOT");
        if (!shot.isEmpty()) w.grab().save(shot);
    }
};

QTEST_MAIN(SetupEndToEndTest)
#include "SetupEndToEndTest.moc"
