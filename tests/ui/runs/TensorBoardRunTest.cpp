// A TensorBoard run of the reference project (PyTorch's SummaryWriter: the tensorboard_runs
// fixture) opened in the app: its losses and D outputs in the dashboard's plots, its other tags in
// the Scalars tab grouped by prefix, its fixed-noise grids as samples read out of the event
// records, the state "tensorboard" (no run controls), and a restart's file appended while the
// dashboard follows.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "base/run/Events.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "dashboard/DashboardPage.h"
#include "dashboard/ScalarsPanel.h"
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

}  // namespace

class TensorBoardRunTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() { streetgan::test::isolateSettings(tmp_.filePath("settings")); }

    void plotsTheReferenceRunItsOtherTagsAndItsSamples() {
        DashboardPage page;
        page.resize(1400, 900);
        RunSession session(kRun, STREETGAN_TRAINER);
        page.addSession(&session);
        session.start();
        QTRY_COMPARE_WITH_TIMEOUT(session.series().rows(), size_t(60), 60000);
        PlotPanel* loss = page.panel(tr("Loss"));
        QVERIFY(loss);
        QCOMPARE(loss->pointCount(&session.series(), Metric::LossG), 60);
        QCOMPARE(loss->pointCount(&session.series(), Metric::LossD), 60);
        QCOMPARE(page.panels()[1]->pointCount(&session.series(), Metric::DGz2), 60);
        // img_per_s derived from steps and wall times (no tag carries it).
        QVERIFY(page.panels()[2]->pointCount(&session.series(), Metric::ImgPerS) >= 59);
        QCOMPARE(QString::fromStdString(session.series().state()), QStringLiteral("tensorboard"));

        // The other tags: a plot each in the Scalars tab, in sections lr and timing.
        QTRY_VERIFY_WITH_TIMEOUT(page.scalars()->panel("lr/G") && page.scalars()->panel("timing/data"), 30000);
        QCOMPARE(ScalarsPanel::groupOf("lr/G"), QStringLiteral("lr"));
        QCOMPARE(ScalarsPanel::groupOf("plain"), QStringLiteral("other"));
        const auto& tags = session.tagSeries();
        QVERIFY(tags.count("lr/G"));
        QTRY_COMPARE_WITH_TIMEOUT(page.scalars()->panel("lr/G")->pointCount(tags.at("lr/G").get(), Metric::LossD), 60, 30000);
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
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() + failed.count() > 0, 30000);
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
        QTRY_COMPARE_WITH_TIMEOUT(session.series().rows(), size_t(40), 60000);
        // The restart: a second file, written in pieces while the run is followed.
        QFile in(source[1]);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray bytes = in.readAll();
        QFile out(dir + "/" + QFileInfo(source[1]).fileName());
        QVERIFY(out.open(QIODevice::WriteOnly));
        for (int at = 0; at < bytes.size(); at += 700) {
            out.write(bytes.mid(at, 700));
            out.flush();
        }
        out.close();
        QTRY_COMPARE_WITH_TIMEOUT(session.series().rows(), size_t(60), 60000);
        QCOMPARE(session.series().x(XAxisMode::Step, 59), 59.0 * 128);
        QCOMPARE(session.series().eventLines(), int64_t(66));  // 60 steps and 6 samples, each once
    }
};

QTEST_MAIN(TensorBoardRunTest)
#include "TensorBoardRunTest.moc"
