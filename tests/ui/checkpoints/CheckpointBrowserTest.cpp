// The checkpoint browser on a real run: `streetgan-trainer train` (tiny preset, synthetic data, 12
// steps, a checkpoint every epoch of 4 steps) writes the run; the page lists its checkpoint files
// with the steps, epochs, sizes and losses of its events; the real explore worker renders the
// thumbnails, the evolution (one frame per checkpoint, a GIF that decodes, cancel and an
// unwritable path leave nothing) and the side-by-side view; real eval children compute Parzen
// (and a failing one reports); a reference Python checkpoint (torch.save by /usr/bin/python3)
// dropped on the page renders; corrupt and foreign checkpoints give one-line errors.
#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QImageReader>
#include <QMimeData>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "base/daemon/RunLock.h"
#include "checkpoints/CheckpointBrowserPage.h"
#include "checkpoints/CheckpointTableModel.h"
#include "checkpoints/EvolutionPanel.h"
#include "checkpoints/ParzenRunner.h"
#include "checkpoints/SideBySidePanel.h"
#include "common/JsonFields.h"
#include "common/JsonText.h"
#include "runs/RunSession.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;
using PS = CheckpointTableModel::ParzenState;

namespace {

const QString kPython = QStringLiteral("/usr/bin/python3");
// tests/python (reference_interop.py), from the source tree's resources/demo (an absolute path;
// __FILE__ is relative to the build folder, not to where the test runs).
const QString kPythonDir = QDir::cleanPath(QStringLiteral(STREETGAN_DEMO_DIR) + "/../../tests/python");

/// Distinct colours in an image (a blank or flat image has one or two).
int colours(const QImage& img) {
    QSet<QRgb> c;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) c.insert(img.pixel(x, y));
    return static_cast<int>(c.size());
}

void drop(QWidget* target, const QStringList& files) {
    QMimeData mime;
    QList<QUrl> urls;
    for (const QString& f : files) urls << QUrl::fromLocalFile(f);
    mime.setUrls(urls);
    const QPoint at = target->rect().center();
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent ev(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &ev);
}

QStringList entries(const QString& dir) { return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot); }

}  // namespace

class CheckpointBrowserTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString run_;
    std::unique_ptr<RunSession> session_;
    std::unique_ptr<CheckpointBrowserPage> page_;
    std::unique_ptr<QAbstractItemModelTester> tester_;  ///< Qt's checks of the model contract, on every change

    CheckpointTableModel* model() { return page_->model(); }

private slots:
    void initTestCase() {
        streetgan::test::isolateSettings(tmp_.filePath("settings"));
        qputenv("XDG_CACHE_HOME", tmp_.filePath("cache").toLocal8Bit());
        qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
        run_ = tmp_.filePath("run");
        const QString trained = streetgan::test::trainTinyRun(STREETGAN_TRAINER, run_, 12, 4);
        QVERIFY2(trained.isEmpty(), qPrintable(trained));

        session_ = std::make_unique<RunSession>(run_, STREETGAN_TRAINER);
        page_ = std::make_unique<CheckpointBrowserPage>(nullptr, STREETGAN_TRAINER, tmp_.filePath("parzen.json"));
        tester_ = std::make_unique<QAbstractItemModelTester>(page_->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page_->resize(1100, 850);
        page_->show();
        QSignalSpy loaded(page_.get(), &CheckpointBrowserPage::catalogLoaded);
        page_->setSession(session_.get());
        session_->start();
        QVERIFY(loaded.wait(streetgan::test::kWaitMs));
    }

    void cleanupTestCase() {
        tester_.reset();
        page_.reset();
        session_.reset();
    }

    void rowsMatchFilesAndEvents() {
        QCOMPARE(model()->rowCount(), 3);
        // The losses at save time: the last metrics event at or before each checkpoint's step.
        QFile ev(run_ + "/events.jsonl");
        QVERIFY(ev.open(QIODevice::ReadOnly));
        QHash<qint64, nlohmann::json> metricsAt;
        for (const QByteArray& line : ev.readAll().split('\n')) {
            const nlohmann::json o = JsonText::parse(line).value_or(nlohmann::json());
            if (JsonFields::text(o, "kind") == "metrics") metricsAt.insert(JsonFields::integer(o, "step"), o);
        }
        for (int r = 0; r < 3; ++r) {
            const CheckpointInfo& c = model()->row(r).info;
            QCOMPARE(c.epoch, r);
            QCOMPARE(c.step, 4 * (r + 1));
            QCOMPARE(c.path, QDir(run_).absoluteFilePath(QString("checkpoints/checkpoint_%1.pt").arg(r)));
            QCOMPARE(c.size, QFileInfo(c.path).size());
            QVERIFY(c.size > 1000);
            QVERIFY(metricsAt.contains(c.step));
            QCOMPARE(c.lossD, JsonFields::number(metricsAt[c.step], "loss_d"));
            QCOMPARE(c.lossG, JsonFields::number(metricsAt[c.step], "loss_g"));
            QVERIFY(std::abs(c.savedAt().toSecsSinceEpoch() - QFileInfo(c.path).lastModified().toSecsSinceEpoch()) <= 2);
            QCOMPARE(model()->data(model()->index(r, CheckpointTableModel::Step)).toLongLong(), c.step);
        }
    }

    void thumbnailsArrive() {
        QTRY_VERIFY_WITH_TIMEOUT(!model()->row(0).thumbnail.isNull() && !model()->row(1).thumbnail.isNull() && !model()->row(2).thumbnail.isNull(),
                                 streetgan::test::kWaitMs);
        for (int r = 0; r < 3; ++r) {
            const QImage t = model()->row(r).thumbnail;
            QCOMPARE(model()->row(r).renderedSize, QSize(8 * 32 + 9 * 2, 8 * 32 + 9 * 2));  // 64 fixed-noise images, make_grid(nrow 8, padding 2)
            QCOMPARE(t.size(), QSize(CheckpointTableModel::kThumbnailEdge, CheckpointTableModel::kThumbnailEdge));  // kept at the size shown
            QVERIFY2(colours(t) > 200, qPrintable(QString::number(colours(t))));
            QVERIFY(model()->data(model()->index(r, CheckpointTableModel::Thumbnail), Qt::DecorationRole).value<QPixmap>().width() > 0);
        }
        QVERIFY(model()->row(0).thumbnail != model()->row(2).thumbnail);
    }

    void parzenOnDemand() {
        page_->parzen()->setExtraArguments({"--samples", "200", "--validation", "50", "--test", "50"});
        QSignalSpy done(page_->parzen(), &ParzenRunner::finished);
        page_->computeParzen({0, 2});
        QCOMPARE(model()->row(2).parzen, PS::Queued);  // one at a time: the second waits
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, streetgan::test::kWaitMs);
        for (int r : {0, 2}) {
            QCOMPARE(model()->row(r).parzen, PS::Done);
            QVERIFY(std::isfinite(model()->row(r).parzenValue));
            QVERIFY(model()->data(model()->index(r, CheckpointTableModel::Parzen)).toString().contains("±"));
        }
        QCOMPARE(model()->row(1).parzen, PS::None);
        // Cached on disk: a new runner (an app restart) knows the value without running anything.
        ParzenRunner again(STREETGAN_TRAINER, page_->parzen()->cacheFile());
        again.setExtraArguments({"--samples", "200", "--validation", "50", "--test", "50"});
        QVERIFY(again.cached(model()->row(0).localPath).has_value());
        QCOMPARE(again.cached(model()->row(0).localPath)->logLikelihood, model()->row(0).parzenValue);
        QVERIFY(!again.cached(model()->row(1).localPath).has_value());

        // Cancel: a queued and a running eval end with no value and no child left.
        page_->parzen()->setExtraArguments({"--samples", "100000"});
        page_->computeParzen({1});
        QTRY_COMPARE_WITH_TIMEOUT(model()->row(1).parzen, PS::Running, streetgan::test::kWaitMs);
        page_->cancelParzen();
        QCOMPARE(model()->row(1).parzen, PS::None);
        QVERIFY(!page_->parzen()->busy());

        // A failing eval reports its one-line error instead of hanging.
        page_->parzen()->setExtraArguments({"--data", tmp_.filePath("no-such-folder")});
        QSignalSpy failed(page_->parzen(), &ParzenRunner::failed);
        page_->computeParzen({1});
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, streetgan::test::kWaitMs);
        QCOMPARE(model()->row(1).parzen, PS::Failed);
        const QString error = model()->row(1).parzenError;
        QVERIFY(!error.isEmpty() && !error.contains('\n'));
        QVERIFY2(error.contains("no-such-folder"), qPrintable(error));
        QVERIFY(page_->statusText().contains(error));
        page_->parzen()->setExtraArguments({"--samples", "200", "--validation", "50", "--test", "50"});
    }

    void evolutionFramesAndGif() {
        EvolutionPanel* evo = page_->evolution();
        evo->setSource(true, 0, 16);
        QSignalSpy ready(evo, &EvolutionPanel::framesReady);
        evo->render();
        QVERIFY(ready.wait(streetgan::test::kWaitMs));
        QCOMPARE(evo->frameCount(), 3);
        QCOMPARE(evo->frame(0).size(), QSize(4 * 32 + 5 * 2, 4 * 32 + 5 * 2));
        QVERIFY(evo->frame(0) != evo->frame(2));
        // The first row of the fixed-noise thumbnail is the same z: the evolution's first frame
        // holds the same images (the grids differ only by make_grid's batch-wide normalisation).
        evo->showFrame(2);
        QCOMPARE(evo->currentFrame(), 2);

        const QString gif = tmp_.filePath("out/evolution.gif");
        QDir().mkpath(tmp_.filePath("out"));
        QSignalSpy exported(evo, &EvolutionPanel::exportFinished);
        evo->exportGif(gif);
        QVERIFY(evo->exporting());
        QVERIFY(exported.wait(streetgan::test::kWaitMs));
        QVERIFY2(exported.at(0).at(0).toBool(), qPrintable(exported.at(0).at(1).toString()));
        QImageReader reader(gif);
        QVERIFY(reader.canRead());
        QCOMPARE(reader.imageCount(), 3);
        QCOMPARE(reader.size(), evo->frame(0).size());
        QCOMPARE(entries(tmp_.filePath("out")), QStringList{"evolution.gif"});
    }

    void evolutionExportCancelAndBadPath() {
        EvolutionPanel* evo = page_->evolution();
        // Many frames (the three checkpoints again and again) so that cancel lands mid-export.
        QList<CheckpointChoice> many;
        for (int i = 0; i < 300; ++i) many << CheckpointChoice{QString::number(i), model()->row(i % 3).localPath};
        evo->setCheckpoints(many);
        const QString dir = tmp_.filePath("cancel");
        QDir().mkpath(dir);
        QSignalSpy exported(evo, &EvolutionPanel::exportFinished);
        evo->exportGif(dir + "/cancelled.gif");
        QVERIFY(evo->exporting());  // cancelled mid-export, whenever the worker got to it
        evo->cancelExport();
        QVERIFY(exported.wait(streetgan::test::kWaitMs));
        QCOMPARE(exported.at(0).at(0).toBool(), false);
        QCOMPARE(exported.at(0).at(1).toString(), QString("cancelled"));
        QCOMPARE(entries(dir), QStringList());  // nothing half-written

        // An export path that cannot be written: a clear one-line error, nothing left.
        QFile blocker(tmp_.filePath("blocker"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        exported.clear();
        evo->setCheckpoints({many[0], many[1], many[2]});
        evo->exportGif(tmp_.filePath("blocker/sub/evolution.gif"));
        QVERIFY(exported.wait(streetgan::test::kWaitMs));
        QCOMPARE(exported.at(0).at(0).toBool(), false);
        const QString error = exported.at(0).at(1).toString();
        QVERIFY2(!error.isEmpty() && !error.contains('\n') && error.contains("blocker"), qPrintable(error));
        QVERIFY(!evo->exporting());
        QVERIFY(page_->statusText().contains(error));
    }

    void sideBySideSameZ() {
        SideBySidePanel* sbs = page_->sideBySide();
        QSignalSpy rendered(sbs, &SideBySidePanel::rendered);
        sbs->setSeed(7);
        sbs->setLeft(0);
        sbs->setRight(0);
        QTRY_VERIFY_WITH_TIMEOUT(sbs->leftCheckpoint() == sbs->rightCheckpoint() && !sbs->leftImage().isNull() && !sbs->rightImage().isNull(),
                                 streetgan::test::kWaitMs);
        QCOMPARE(sbs->leftImage(), sbs->rightImage());
        QVERIFY(colours(sbs->leftImage()) > 100);
        sbs->setRight(2);
        QTRY_VERIFY_WITH_TIMEOUT(!sbs->rightImage().isNull(), streetgan::test::kWaitMs);
        QCOMPARE(sbs->rightCheckpoint(), model()->row(2).localPath);
        QVERIFY(sbs->leftImage() != sbs->rightImage());
        QCOMPARE(sbs->leftImage().size(), sbs->rightImage().size());

        // A followed run's new checkpoint is added at the end of both pickers; the sides keep
        // their checkpoints and pictures (not rendered again: issue 48), and the new one is offered.
        const QImage left = sbs->leftImage(), right = sbs->rightImage();
        const QString leftPath = sbs->leftCheckpoint(), rightPath = sbs->rightCheckpoint();
        QList<CheckpointChoice> grown;
        for (int i = 0; i < 3; ++i) grown << CheckpointChoice{QString("c%1").arg(i), model()->row(i).localPath};
        sbs->setCheckpoints(grown);  // the same paths, other labels: not a growth, filled again
        QTRY_VERIFY_WITH_TIMEOUT(!sbs->leftImage().isNull() && !sbs->rightImage().isNull(), streetgan::test::kWaitMs);
        QCOMPARE(sbs->leftCheckpoint(), leftPath);
        QCOMPARE(sbs->rightCheckpoint(), rightPath);
        grown << CheckpointChoice{"new", model()->row(1).localPath};
        sbs->setCheckpoints(grown);
        QCOMPARE(sbs->leftCheckpoint(), leftPath);
        QCOMPARE(sbs->rightCheckpoint(), rightPath);
        QCOMPARE(sbs->leftImage(), left);  // kept, not cleared for a new render
        QCOMPARE(sbs->rightImage(), right);
        sbs->setRight(3);
        QCOMPARE(sbs->rightCheckpoint(), model()->row(1).localPath);
        QTRY_VERIFY_WITH_TIMEOUT(!sbs->rightImage().isNull(), streetgan::test::kWaitMs);
        QList<CheckpointChoice> page;  // the page's own list again, for the tests after this one
        for (int i = 0; i < 3; ++i)
            page << CheckpointChoice{QString("epoch %1 · step %2").arg(model()->row(i).info.epoch).arg(model()->row(i).info.step), model()->row(i).localPath};
        sbs->setCheckpoints(page);
    }

    void referenceCheckpointByDrop() {
        const QString dir = tmp_.filePath("ref");
        QDir().mkpath(dir);
        QProcess py;
        py.start(kPython, {kPythonDir + "/reference_interop.py", "make", dir});
        QVERIFY(py.waitForFinished(120000));
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        QSignalSpy thumbs(page_.get(), &CheckpointBrowserPage::thumbnailReady);
        drop(page_.get(), {dir + "/reference.pt"});
        const int r = model()->rowOf(dir + "/reference.pt");
        QVERIFY(r >= 3);
        QVERIFY(model()->row(r).info.reference);
        QTRY_VERIFY_WITH_TIMEOUT(!model()->row(r).thumbnail.isNull(), streetgan::test::kWaitMs);
        QCOMPARE(model()->row(r).renderedSize, QSize(274, 274));
        QVERIFY(colours(model()->row(r).thumbnail) > 200);
        QTRY_COMPARE_WITH_TIMEOUT(model()->row(r).info.epoch, 2, streetgan::test::kWaitMs);  // the reference's "epoch" key, from the worker's open
        QVERIFY(model()->data(model()->index(r, CheckpointTableModel::Name)).toString().contains("reference"));
        // It is offered side by side with the run's checkpoints, and opens in the explorer.
        page_->sideBySide()->setRight(r);
        QTRY_VERIFY_WITH_TIMEOUT(page_->sideBySide()->rightCheckpoint() == dir + "/reference.pt" && !page_->sideBySide()->rightImage().isNull(),
                                 streetgan::test::kWaitMs);
        QSignalSpy open(page_.get(), &CheckpointBrowserPage::openInExplorer);
        page_->openRowInExplorer(r);
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.at(0).at(0).toString(), dir + "/reference.pt");
        // Dropping it again adds no second row.
        drop(page_.get(), {dir + "/reference.pt"});
        QCOMPARE(model()->rowOf(dir + "/reference.pt"), r);
    }

    void badCheckpointsGiveOneLineErrors() {
        // A corrupt file and a checkpoint of an architecture the project does not have.
        const QString corrupt = tmp_.filePath("corrupt.pt");
        QFile f(corrupt);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("PK\x03\x04 this is not a checkpoint");
        f.close();
        const QString foreign = tmp_.filePath("foreign.pth");
        QProcess py;
        py.start(kPython, {"-c", QString("import torch; torch.save({'G_state_dict': {'main.0.weight': torch.zeros(7, 5, 3, 3)}, "
                                         "'D_state_dict': {}, 'noise': torch.zeros(4, 7, 1, 1)}, '%1')")
                                     .arg(foreign)});
        QVERIFY(py.waitForFinished(60000));
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        drop(page_.get(), {corrupt, foreign, tmp_.filePath("notes.txt")});  // the .txt is not taken
        QCOMPARE(model()->rowCount(), 6);
        for (const QString& path : {corrupt, foreign}) {
            const int r = model()->rowOf(path);
            QVERIFY(r >= 0);
            QTRY_VERIFY_WITH_TIMEOUT(!model()->row(r).error.isEmpty(), streetgan::test::kWaitMs);
            const QString e = model()->row(r).error;
            QVERIFY2(!e.contains('\n') && e.contains(QFileInfo(path).fileName()), qPrintable(e));
            QVERIFY(model()->row(r).thumbnail.isNull());
            QVERIFY(model()->data(model()->index(r, CheckpointTableModel::Name)).toString().contains(e));
        }
        // Neither is offered to the views, and the page goes on working.
        QList<QString> offered;
        for (int i = 0; i < model()->rowCount(); ++i) {
            page_->sideBySide()->setLeft(i);
            offered << page_->sideBySide()->leftCheckpoint();
        }
        QVERIFY(!offered.contains(corrupt) && !offered.contains(foreign));
        QSignalSpy open(page_.get(), &CheckpointBrowserPage::openInExplorer);
        page_->openRowInExplorer(model()->rowOf(corrupt));
        QCOMPARE(open.count(), 0);
        page_->sideBySide()->setLeft(1);
        page_->sideBySide()->setRight(1);
        QTRY_VERIFY_WITH_TIMEOUT(!page_->sideBySide()->rightImage().isNull() && page_->sideBySide()->rightImage() == page_->sideBySide()->leftImage(),
                                 streetgan::test::kWaitMs);
    }

    void refreshAfterResumeAddsTheNewCheckpoint() {
        const QImage before = model()->row(0).thumbnail;
        QProcess train;
        train.start(STREETGAN_TRAINER, {"train", "--run-dir", run_, "--resume", "--steps", "16", "--device", "cpu", "--threads", "1", "--loader-threads", "1"});
        QVERIFY(train.waitForFinished(60000));
        QCOMPARE(train.exitCode(), 0);
        QSignalSpy loaded(page_.get(), &CheckpointBrowserPage::catalogLoaded);
        page_->refresh();
        QVERIFY(loaded.wait(streetgan::test::kWaitMs));
        QCOMPARE(model()->rowCount(), 7);  // 4 of the run, then the 3 added files
        QCOMPARE(model()->row(3).info.step, 16);
        QCOMPARE(model()->row(3).info.epoch, 3);
        QVERIFY(std::isfinite(model()->row(3).info.lossD));
        QVERIFY(model()->row(4).info.reference);
        QCOMPARE(model()->row(0).thumbnail, before);  // kept: the file did not change
        QCOMPARE(model()->row(0).parzen, PS::Done);
        QTRY_VERIFY_WITH_TIMEOUT(!model()->row(3).thumbnail.isNull(), streetgan::test::kWaitMs);
    }

    // Issue 48: thumbnails are held for the rows on screen (and a margin), at most a budget of them;
    // scrolling away drops the far ones, scrolling back renders them again.
    void thumbnailsFollowTheScrolling() {
        QTRY_VERIFY_WITH_TIMEOUT(!model()->row(0).thumbnail.isNull(), streetgan::test::kWaitMs);
        QTableView* table = page_->table();
        table->setFixedHeight(2 * (CheckpointTableModel::kThumbnailEdge + 6) + table->horizontalHeader()->height() + 4);  // ~2 rows of 7
        QCoreApplication::processEvents();
        page_->setThumbnailWindow(0, 1);
        table->scrollToBottom();
        QTRY_VERIFY_WITH_TIMEOUT(table->rowAt(0) >= 3, streetgan::test::kWaitMs);
        QVERIFY(model()->row(0).thumbnail.isNull());  // far from the screen: dropped
        const auto shown = [table] { return table->rowAt(table->viewport()->height() - 1) - table->rowAt(0) + 1; };
        QVERIFY2(model()->thumbnails() <= std::max(1, shown()), qPrintable(QString::number(model()->thumbnails())));
        table->scrollToTop();
        QTRY_VERIFY_WITH_TIMEOUT(!model()->row(0).thumbnail.isNull(), streetgan::test::kWaitMs);  // rendered again
        QVERIFY2(model()->thumbnails() <= std::max(1, shown()), qPrintable(QString::number(model()->thumbnails())));
        QVERIFY(model()->row(4).thumbnail.isNull());  // the reference row, now far below
        // Back to the defaults: every row's thumbnail again (the screenshot below shows them).
        table->setMinimumHeight(0);
        table->setMaximumHeight(QWIDGETSIZE_MAX);
        page_->setThumbnailWindow(CheckpointBrowserPage::kThumbnailMargin, CheckpointBrowserPage::kThumbnailsKept);
        for (int r = 0; r < model()->rowCount(); ++r)
            if (model()->row(r).error.isEmpty()) QTRY_VERIFY_WITH_TIMEOUT(!model()->row(r).thumbnail.isNull(), streetgan::test::kWaitMs);
    }

    void screenshot() {
        page_->table()->selectRow(1);
        page_->evolution()->setCheckpoints({});
        QSignalSpy loaded(page_.get(), &CheckpointBrowserPage::catalogLoaded);
        page_->refresh();
        QSignalSpy ready(page_->evolution(), &EvolutionPanel::framesReady);
        QTRY_VERIFY_WITH_TIMEOUT(page_->evolution()->frameCount() == 0, streetgan::test::kWaitMs);
        QVERIFY(!loaded.isEmpty() || loaded.wait(streetgan::test::kWaitMs));  // the refresh re-offered the run's checkpoints
        page_->evolution()->render();
        QVERIFY(ready.wait(streetgan::test::kWaitMs));
        page_->evolution()->showFrame(1);
        const QImage shot = page_->grab().toImage();
        QVERIFY(shot.save("/tmp/checkpoints.png"));
        QVERIFY(colours(shot) > 500);
    }

    // Issue 48: a followed run's new checkpoint costs what is new: its row is inserted after the
    // run's (no reset) and the pickers offer it. The run is live again: this process takes its lock
    // as a trainer holds it, and writes a checkpoint as the trainer does (file, then event).
    void aFollowedRunsNewCheckpointIsInserted() {
        streetgan::RunLock lock(run_.toStdString());
        RunSession live(run_, STREETGAN_TRAINER);
        QSignalSpy loaded(page_.get(), &CheckpointBrowserPage::catalogLoaded);
        page_->setSession(&live);
        live.start();
        QVERIFY(loaded.wait(streetgan::test::kWaitMs));
        const int n = static_cast<int>(QDir(run_ + "/checkpoints").entryList({"checkpoint_*.pt"}, QDir::Files).size());
        QTRY_VERIFY_WITH_TIMEOUT(!live.loading() && model()->runRows() == n, streetgan::test::kWaitMs);
        const CheckpointInfo last = model()->row(n - 1).info;
        QSignalSpy resets(model(), &QAbstractItemModel::modelReset), inserts(model(), &QAbstractItemModel::rowsInserted);
        const QString name = QString("checkpoint_%1.pt").arg(last.epoch + 1);
        QVERIFY(QFile::copy(last.path, run_ + "/checkpoints/" + name));
        QFile events(run_ + "/events.jsonl");
        QVERIFY(events.open(QIODevice::Append));
        events.write(QString("{\"kind\":\"checkpoint\",\"step\":%1,\"epoch\":%2,\"path\":\"checkpoints/%3\",\"t\":%4}\n")
                         .arg(last.step + 4)
                         .arg(last.epoch + 1)
                         .arg(name)
                         .arg(QDateTime::currentSecsSinceEpoch())
                         .toUtf8());
        events.close();
        QTRY_COMPARE_WITH_TIMEOUT(model()->runRows(), n + 1, streetgan::test::kWaitMs);
        QCOMPARE(model()->row(n).info.step, last.step + 4);
        QCOMPARE(model()->row(n).info.path, QDir(run_).absoluteFilePath("checkpoints/" + name));
        QVERIFY(model()->rowCount() == n + 1 || model()->row(n + 1).info.reference);  // references stay after the run's rows
        QCOMPARE(resets.count(), 0);
        QCOMPARE(inserts.count(), 1);
        QCOMPARE(inserts.at(0).at(1).toInt(), n);
        page_->sideBySide()->setRight(n);  // the run's checkpoints first in the pickers, then the references
        QCOMPARE(page_->sideBySide()->rightCheckpoint(), model()->row(n).localPath);
        QTRY_VERIFY_WITH_TIMEOUT(!model()->row(n).thumbnail.isNull(), streetgan::test::kWaitMs);

        // The trainer keeps its last few: the next checkpoint's save prunes that one. Its row goes
        // with the next read (a folder of a few files is listed whole), still without a reset.
        const QString pruned = model()->row(n).info.path;
        const QString next = QString("checkpoint_%1.pt").arg(last.epoch + 2);
        QVERIFY(QFile::copy(last.path, run_ + "/checkpoints/" + next));
        QVERIFY(QFile::remove(pruned));
        QVERIFY(events.open(QIODevice::Append));
        events.write(QString("{\"kind\":\"checkpoint\",\"step\":%1,\"epoch\":%2,\"path\":\"checkpoints/%3\",\"t\":%4}\n")
                         .arg(last.step + 8)
                         .arg(last.epoch + 2)
                         .arg(next)
                         .arg(QDateTime::currentSecsSinceEpoch())
                         .toUtf8());
        events.close();
        QTRY_COMPARE_WITH_TIMEOUT(model()->row(n).info.step, last.step + 8, streetgan::test::kWaitMs);
        QCOMPARE(model()->runRows(), n + 1);
        QCOMPARE(model()->rowOf(pruned), -1);
        QCOMPARE(resets.count(), 0);
        page_->setSession(nullptr);
    }
};

QTEST_MAIN(CheckpointBrowserTest)
#include "CheckpointBrowserTest.moc"
