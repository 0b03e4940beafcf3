// A TensorBoard run of the reference project (PyTorch's SummaryWriter: the tensorboard_runs
// fixture) opened in the app: its losses and D outputs in the dashboard's plots, its other tags in
// the Scalars tab grouped by prefix, its fixed-noise grids as samples read out of the event
// records, the state "tensorboard" (no run controls), and a restart's file appended while the
// dashboard follows. Its checkpoints (the reference's, beside events/): the newest one's img_list
// grids are the Samples tab's second timeline, and the checkpoint browser lists them and opens
// one in the explorer.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include "base/run/Events.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "checkpoints/CheckpointBrowserPage.h"
#include "checkpoints/CheckpointTableModel.h"
#include "dashboard/DashboardPage.h"
#include "dashboard/SamplesPage.h"
#include "dashboard/ScalarsPanel.h"
#include "explorer/ExplorerPage.h"
#include "runs/RunSession.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;

namespace {

const QString kRun = QStringLiteral(STREETGAN_TEST_TB_RUNS "/reference/dcgan-msls/events");

QStringList eventFiles(const QString& dir) {
    streetgan::LocalEventFiles files;
    QStringList out;
    for (const auto& e : streetgan::TensorBoardRun::eventFiles(files.list(dir.toStdString()))) out << dir + "/" + QString::fromStdString(e.name);
    return out;
}

// A copy of the reference run (events/ and checkpoints/) under `root`; the events folder.
QString copyReferenceRun(const QString& root) {
    for (const QString sub : {"events", "checkpoints"}) {
        const QString from = QStringLiteral(STREETGAN_TEST_TB_RUNS "/reference/dcgan-msls/") + sub, to = root + "/dcgan-msls/" + sub;
        QDir().mkpath(to);
        for (const QString& f : QDir(from).entryList(QDir::Files)) QFile::copy(from + "/" + f, to + "/" + f);
    }
    return root + "/dcgan-msls/events";
}

nlohmann::json expectedCheckpoints() {
    QFile f(QStringLiteral(STREETGAN_TEST_TB_RUNS "/expected.json"));
    f.open(QIODevice::ReadOnly);
    return nlohmann::json::parse(f.readAll().toStdString())["reference/dcgan-msls/events"]["checkpoints"];
}

// The grid as the fixture's torch made it 8-bit: size, sum of the RGB values, a few pixels.
void compareGrid(const QImage& image, const nlohmann::json& want) {
    QCOMPARE(image.width(), want["width"].get<int>());
    QCOMPARE(image.height(), want["height"].get<int>());
    qint64 sum = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QRgb p = image.pixel(x, y);
            sum += qRed(p) + qGreen(p) + qBlue(p);
        }
    QCOMPARE(sum, want["sum"].get<qint64>());
    for (const auto& px : want["pixels"]) {
        const QRgb p = image.pixel(px[0].get<int>(), px[1].get<int>());
        QCOMPARE(qRed(p), px[2].get<int>());
        QCOMPARE(qGreen(p), px[3].get<int>());
        QCOMPARE(qBlue(p), px[4].get<int>());
    }
}

}  // namespace

class TensorBoardRunTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("XDG_CACHE_HOME", tmp_.filePath("cache").toLocal8Bit());
        qputenv("XDG_DATA_HOME", tmp_.filePath("data").toLocal8Bit());
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
    }

    void plotsTheReferenceRunItsOtherTagsAndItsSamples() {
        DashboardPage page;
        page.resize(1400, 900);
        RunSession session(kRun, STREETGAN_TRAINER);
        page.addSession(&session);
        session.start();
        QTRY_COMPARE_WITH_TIMEOUT(session.series().rows(), size_t(60), streetgan::test::kWaitMs);
        PlotPanel* loss = page.panel(tr("Loss"));
        QVERIFY(loss);
        QCOMPARE(loss->pointCount(&session.series(), Metric::LossG), 60);
        QCOMPARE(loss->pointCount(&session.series(), Metric::LossD), 60);
        QCOMPARE(page.panelOf(Metric::DGz2)->pointCount(&session.series(), Metric::DGz2), 60);
        // img_per_s derived from steps and wall times (no tag carries it).
        QVERIFY(page.panelOf(Metric::ImgPerS)->pointCount(&session.series(), Metric::ImgPerS) >= 59);
        // (the state comes with the follower's "live" line, after the backlog's events)
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(session.series().state()), QStringLiteral("tensorboard"), streetgan::test::kWaitMs);

        // The other tags: a plot each in the Scalars tab, in sections lr and timing.
        QTRY_VERIFY_WITH_TIMEOUT(page.scalars()->panel("lr/G") && page.scalars()->panel("timing/data"), streetgan::test::kWaitMs);
        QCOMPARE(ScalarsPanel::groupOf("lr/G"), QStringLiteral("lr"));
        QCOMPARE(ScalarsPanel::groupOf("plain"), QStringLiteral("other"));
        const auto& tags = session.tagSeries();
        QVERIFY(tags.count("lr/G"));
        QTRY_COMPARE_WITH_TIMEOUT(page.scalars()->panel("lr/G")->pointCount(tags.at("lr/G").get(), Metric::LossD), 60, streetgan::test::kWaitMs);
        QCOMPARE(page.scalars()->panels().size(), 2);
        // The dashboard's controls drive them, and export writes them.
        page.setSmoothing(0.6);
        QVERIFY(!std::isnan(page.scalars()->panel("lr/G")->smoothedAt(tags.at("lr/G").get(), Metric::LossD, 59 * 128)));
        QVERIFY(QDir().mkpath(tmp_.filePath("export")));
        const QStringList files = page.exportPlots(tmp_.filePath("export"), "png");
        QVERIFY2(files.contains(tmp_.filePath("export/scalar_lr_G.png")), qPrintable(files.join(", ")));

        // The fixed-noise grids: samples whose images are read out of the event records.
        QCOMPARE(session.series().samples().size(), size_t(6));
        QSignalSpy ready(&session, &RunSession::imageReady);
        QSignalSpy failed(&session, &RunSession::imageFailed);
        session.requestImage(QString::fromStdString(session.series().samples().back().path));
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() + failed.count() > 0, streetgan::test::kWaitMs);
        QCOMPARE(failed.count(), 0);
        const QImage image = ready.front().at(3).value<QImage>();
        QCOMPARE(image.size(), QSize(32, 32));
        QVERIFY(QFile::exists(ready.front().at(2).toString()));
    }

    void followsARestartsFileAppendedWhileOpen() {
        const QString dir = tmp_.filePath("live/events");
        QDir().mkpath(dir);
        const QStringList source = eventFiles(kRun);
        QCOMPARE(source.size(), 2);
        QVERIFY(QFile::copy(source[0], dir + "/" + QFileInfo(source[0]).fileName()));
        RunSession session(dir, STREETGAN_TRAINER);
        session.start();
        QTRY_COMPARE_WITH_TIMEOUT(session.series().rows(), size_t(40), streetgan::test::kWaitMs);
        // The restart: a second file, written in pieces while the run is followed.
        QVERIFY(streetgan::test::writeInPieces(source[1], dir + "/" + QFileInfo(source[1]).fileName(), 700));
        QTRY_COMPARE_WITH_TIMEOUT(session.series().rows(), size_t(60), streetgan::test::kWaitMs);
        QCOMPARE(session.series().x(XAxisMode::Step, 59), 59.0 * 128);
        QCOMPARE(session.series().eventLines(), int64_t(66));  // 60 steps and 6 samples, each once
    }

    // The reference keeps its fixed-noise grids in each checkpoint's img_list, not in the event
    // file: the newest checkpoint's grids become the Samples tab's other timeline, 8-bit as torch
    // makes them, and a newer checkpoint replaces them.
    void theNewestCheckpointsImgListIsASampleTimeline() {
        const QString run = copyReferenceRun(tmp_.filePath("grids"));
        RunSession session(run, STREETGAN_TRAINER);
        SamplesPage samples;
        samples.show();  // a hidden page loads no grid (issue 48)
        samples.setSession(&session);
        QSignalSpy failed(&session, &RunSession::checkpointGridsFailed);
        session.start();
        QTRY_VERIFY_WITH_TIMEOUT(!session.checkpointGrids().empty() || !failed.isEmpty(), streetgan::test::kWaitMs);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(session.gridsCheckpoint(), QStringLiteral("../checkpoints/checkpoint_1.pt"));
        const nlohmann::json want = expectedCheckpoints()["checkpoint_1.pt"]["img_list"];
        QCOMPARE(session.checkpointGrids().size(), want.size());
        // Logged images and grids both: the source box chooses; logged images first.
        QTRY_COMPARE_WITH_TIMEOUT(session.series().samples().size(), size_t(6), streetgan::test::kWaitMs);
        QVERIFY(!samples.showingCheckpointGrids());
        QVERIFY(samples.offersSourceChoice());
        samples.showCheckpointGrids(true);
        QVERIFY(samples.showingCheckpointGrids());
        QCOMPARE(samples.count(), int(want.size()));
        for (int k = 0; k < samples.count(); ++k) {
            QSignalSpy shown(&samples, &SamplesPage::imageShown);
            samples.showIndex(k);
            QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && shown.last().at(0).toInt() == k, streetgan::test::kWaitMs);
            QSignalSpy ready(&session, &RunSession::imageReady);
            session.requestImage(QString::fromStdString(session.checkpointGrids()[size_t(k)].path));
            QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, streetgan::test::kWaitMs);
            compareGrid(ready.at(0).at(3).value<QImage>(), want[size_t(k)]);
        }
        // A newer checkpoint (the reference saved another epoch): its grids replace them.
        const QString cks = QFileInfo(run + "/../checkpoints").absoluteFilePath();
        QVERIFY(QFile::copy(cks + "/checkpoint_0.pt", cks + "/checkpoint_2.pt"));
        QSignalSpy changed(&session, &RunSession::checkpointGridsChanged);
        session.loadCheckpointGrids();
        QTRY_COMPARE_WITH_TIMEOUT(session.gridsCheckpoint(), QStringLiteral("../checkpoints/checkpoint_2.pt"), streetgan::test::kWaitMs);
        QCOMPARE(session.checkpointGrids().size(), size_t(1));
        QTRY_COMPARE_WITH_TIMEOUT(samples.count(), 1, streetgan::test::kWaitMs);
        // A newest checkpoint without grids (one of ours): the trainer's one-line refusal, said
        // again on the next look (from memory: the checkpoint is not read again), grids kept.
        QVERIFY(QFile::copy(STREETGAN_DEMO_DIR "/tiny-32-synthetic.pt", cks + "/checkpoint_3.pt"));
        for (int look = 0; look < 2; ++look) {
            QSignalSpy refused(&session, &RunSession::checkpointGridsFailed);
            session.loadCheckpointGrids();
            QTRY_VERIFY_WITH_TIMEOUT(!refused.isEmpty(), streetgan::test::kWaitMs);
            QVERIFY2(refused.at(0).at(0).toString().contains("holds no img_list grids"), qPrintable(refused.at(0).at(0).toString()));
        }
        QCOMPARE(session.gridsCheckpoint(), QStringLiteral("../checkpoints/checkpoint_2.pt"));
    }

    // The checkpoint browser lists the run's checkpoints (beside events/), renders them, and
    // opens one in the explorer, which draws from it.
    void itsCheckpointsOpenInTheExplorer() {
        const QString run = copyReferenceRun(tmp_.filePath("explore"));
        RunSession session(run, STREETGAN_TRAINER);
        CheckpointBrowserPage page(nullptr, STREETGAN_TRAINER, tmp_.filePath("parzen.json"));
        page.resize(1100, 850);
        page.show();
        QSignalSpy loaded(&page, &CheckpointBrowserPage::catalogLoaded);
        page.setSession(&session);
        session.start();
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() && page.model()->rowCount() == 2, streetgan::test::kWaitMs);
        QCOMPARE(page.model()->row(1).info.name(), QStringLiteral("checkpoint_1.pt"));
        QTRY_VERIFY_WITH_TIMEOUT(!page.model()->row(1).thumbnail.isNull() || !page.model()->row(1).error.isEmpty(), streetgan::test::kWaitMs);
        QVERIFY2(page.model()->row(1).error.isEmpty(), qPrintable(page.model()->row(1).error));
        QSignalSpy open(&page, &CheckpointBrowserPage::openInExplorer);
        page.openRowInExplorer(1);
        QCOMPARE(open.count(), 1);
        const QString checkpoint = open.at(0).at(0).toString();
        QCOMPARE(QFileInfo(checkpoint).canonicalFilePath(), QFileInfo(run + "/../checkpoints/checkpoint_1.pt").canonicalFilePath());

        ExplorerPage explorer;
        explorer.resize(1280, 780);
        explorer.show();
        QSignalSpy opened(&explorer, &ExplorerPage::sessionLoaded);
        QSignalSpy errors(&explorer, &ExplorerPage::errorOccurred);
        QSignalSpy frames(&explorer, &ExplorerPage::frameShown);
        explorer.openCheckpoint(checkpoint);
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty() || !errors.isEmpty(), streetgan::test::kWaitMs);
        QVERIFY2(errors.isEmpty(), errors.isEmpty() ? "" : qPrintable(errors.at(0).at(0).toString()));
        QTRY_VERIFY_WITH_TIMEOUT(!frames.isEmpty() && !explorer.previewImage().isNull(), streetgan::test::kWaitMs);
        QVERIFY(explorer.previewImage().width() >= 32);
    }
};

QTEST_MAIN(TensorBoardRunTest)
#include "TensorBoardRunTest.moc"
