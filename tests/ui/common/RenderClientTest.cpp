// RenderClient against the real `streetgan-trainer explore-worker` (TrainerLocator finds it through
// $STREETGAN_TRAINER): the frames the app shows are byte for byte the PNG sequence `render` writes
// for the demo walk; latest() supersedes a waiting request; an export is cancelled without leaving
// a file; a worker killed mid-request fails every outstanding request and the next one restarts it.
#include <signal.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "common/JsonFields.h"
#include "common/JsonText.h"
#include "common/RenderClient.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;
using nlohmann::json;
using F = JsonFields;

namespace {

const QString kDemo = QStringLiteral(STREETGAN_DEMO_DIR);
const QString kCk = kDemo + "/tiny-32-synthetic.pt";

json demoSession() {
    QFile f(kDemo + "/tiny-32-walk.json");
    if (!f.open(QIODevice::ReadOnly)) return json::object();
    json s = JsonText::parse(f.readAll()).value_or(json::object());
    s["checkpoint"] = kCk;
    return s;
}

QByteArray text(const json& header) { return JsonText::write(header); }

// The final reply of `id` (spy on finished); an empty header after `ms`.
QPair<json, QByteArray> waitFor(QSignalSpy& spy, qint64 id, int ms = 60000) {
    QElapsedTimer t;
    t.start();
    for (;;) {
        for (const auto& args : std::as_const(spy))
            if (args.at(0).toLongLong() == id) return {args.at(1).value<json>(), args.at(2).toByteArray()};
        if (t.elapsed() > ms) return {};
        spy.wait(200);
    }
}

}  // namespace

class RenderClientTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
        qputenv("XDG_CACHE_HOME", tmp_.filePath("cache").toLocal8Bit());
    }

    void renderEqualsTheAppsFrames() {
        const QString dir = tmp_.filePath("render-frames");
        QProcess render;
        render.start(STREETGAN_TRAINER, {"render", "--session", kDemo + "/tiny-32-walk.json", "--out", dir, "--device", "cpu"});
        QVERIFY(render.waitForFinished(120000));
        QCOMPARE(render.exitCode(), 0);

        RenderClient client("cpu");
        QSignalSpy spy(&client, &RenderClient::finished);
        const qint64 id = client.send({{"op", "frames"}, {"checkpoint", kCk}, {"session", demoSession()}});
        const auto [header, payload] = waitFor(spy, id);
        QVERIFY2(F::flag(header, "ok"), text(header).constData());
        const QList<QImage> frames = RenderClient::images(header, payload);
        QCOMPARE(frames.size(), 48);
        QCOMPARE(QDir(dir).entryList(QDir::Files).size(), 48);
        for (int i = 0; i < frames.size(); ++i) {
            const QImage png = QImage(dir + QString("/frame_%1.png").arg(i, 4, 10, QChar('0'))).convertToFormat(QImage::Format_RGB888);
            QCOMPARE(frames[i].size(), QSize(128, 128));
            QVERIFY2(frames[i] == png, qPrintable(QString("frame %1 differs").arg(i)));
        }
        QCOMPARE(client.outstanding(), 0);
    }

    void latestSupersedesTheWaitingRequest() {
        RenderClient client("cpu");
        QSignalSpy spy(&client, &RenderClient::finished);
        const json s = demoSession();
        auto frame = [&](int i) { return json{{"op", "frames"}, {"checkpoint", kCk}, {"session", s}, {"from", i}, {"count", 1}}; };
        const qint64 a = client.latest("scrub", frame(0));
        const qint64 b = client.latest("scrub", frame(1));
        const qint64 c = client.latest("scrub", frame(2));
        QCOMPARE(client.outstanding(), 2);  // a in flight, c waiting; b finished at once
        QCOMPARE(spy.size(), 1);
        QCOMPARE(spy.at(0).at(0).toLongLong(), b);
        QVERIFY(F::flag(spy.at(0).at(1).value<json>(), "superseded"));
        QVERIFY(!F::flag(spy.at(0).at(1).value<json>(), "ok"));
        const auto ra = waitFor(spy, a);
        const auto rc = waitFor(spy, c);
        QVERIFY(F::flag(ra.first, "ok"));
        QVERIFY(F::flag(rc.first, "ok"));
        QCOMPARE(RenderClient::images(rc.first, rc.second).size(), 1);
        QVERIFY(ra.second != rc.second);
        QCOMPARE(client.outstanding(), 0);
    }

    void cancelAnExport() {
        RenderClient client("cpu");
        QSignalSpy done(&client, &RenderClient::finished);
        QSignalSpy progress(&client, &RenderClient::progress);
        json s = demoSession();
        s["frames_per_segment"] = 250;
        s["size"] = 256;
        const QString out = tmp_.filePath("cancelled/long.gif");
        QDir().mkpath(tmp_.filePath("cancelled"));
        const qint64 id = client.exportSession(kCk, s, out);
        QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty(), streetgan::test::kWaitMs);
        client.cancel(id);
        const auto [header, payload] = waitFor(done, id);
        QVERIFY(!F::flag(header, "ok"));
        QVERIFY2(F::flag(header, "cancelled"), text(header).constData());
        QCOMPARE(QDir(tmp_.filePath("cancelled")).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden).size(), 0);
        QCOMPARE(done.size(), 1);  // the cancel request's own reply is not a `finished`
    }

    void killedWorkerFailsOutstandingRequestsAndRestarts() {
        RenderClient client("cpu");
        QSignalSpy done(&client, &RenderClient::finished);
        QSignalSpy failed(&client, &RenderClient::workerFailed);
        QSignalSpy progress(&client, &RenderClient::progress);
        json s = demoSession();
        s["frames_per_segment"] = 250;
        s["size"] = 256;
        const qint64 a = client.send({{"op", "frames"}, {"checkpoint", kCk}, {"session", s}});
        const qint64 b = client.send({{"op", "session"}, {"session", s}});
        const qint64 c = client.latest("scrub", {{"op", "open"}, {"checkpoint", kCk}});
        const qint64 d = client.latest("scrub", {{"op", "open"}, {"checkpoint", kCk}});
        QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty(), streetgan::test::kWaitMs);
        auto* worker = client.findChild<QProcess*>();
        QVERIFY(worker && worker->processId() > 0);
        QCOMPARE(::kill(static_cast<pid_t>(worker->processId()), SIGKILL), 0);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, streetgan::test::kWaitMs);
        for (qint64 id : {a, b, c, d}) {
            const auto r = waitFor(done, id, 5000);
            QVERIFY2(!r.first.empty(), qPrintable(QString("request %1 never finished").arg(id)));
            QVERIFY(!F::flag(r.first, "ok"));
            QVERIFY(!F::text(r.first, "error").isEmpty());
        }
        QCOMPARE(done.size(), 4);
        QCOMPARE(client.outstanding(), 0);
        QVERIFY(failed.at(0).at(0).toString().contains("explore worker"));

        const qint64 e = client.open(kCk);
        const auto r = waitFor(done, e);
        QVERIFY2(F::flag(r.first, "ok"), text(r.first).constData());
        QCOMPARE(F::integer32(r.first, "img_size"), 32);
        QVERIFY(client.isRunning());
    }

    void missingBinaryFailsWithoutBlocking() {
        qputenv("STREETGAN_TRAINER", tmp_.filePath("no-such-trainer").toLocal8Bit());
        RenderClient client("cpu");
        QSignalSpy done(&client, &RenderClient::finished);
        QSignalSpy failed(&client, &RenderClient::workerFailed);
        const qint64 id = client.open(kCk);
        QCOMPARE(done.size(), 0);  // never inside send(): the caller gets its id first
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, streetgan::test::kWaitMs);
        QCOMPARE(F::flag(waitFor(done, id, 1000).first, "ok", true), false);
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
    }
};

QTEST_MAIN(RenderClientTest)
#include "RenderClientTest.moc"
