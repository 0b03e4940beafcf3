// CheckpointCatalog on recorded events.jsonl lines and files (no processes): rows are the
// checkpoint files; steps, epochs and times come from the latest checkpoint event of each file;
// losses from the last metrics event at or before its step; a torn last line waits for the next
// read; files without events and temp files of a save in progress; a remote run's checkpoints take
// their exact losses from a RunSeries downsampled past kMaxRows; the SWD of the metric event of a
// checkpoint's step, in its column of the table.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <vector>

#include "base/remote/SftpClient.h"
#include "checkpoints/CheckpointCatalog.h"
#include "checkpoints/CheckpointTableModel.h"
#include "events/RunSeries.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;

namespace {

void write(const QString& path, const QByteArray& bytes, QIODevice::OpenMode mode = QIODevice::WriteOnly) {
    QFile f(path);
    QVERIFY(f.open(mode));
    f.write(bytes);
}

QByteArray metrics(int step, int epoch, double lossD, double lossG) {
    return QStringLiteral("{\"kind\":\"metrics\",\"step\":%1,\"epoch\":%2,\"loss_d\":%3,\"loss_g\":%4,\"d_x\":0.5,\"t\":%5}\n")
        .arg(step)
        .arg(epoch)
        .arg(lossD)
        .arg(lossG)
        .arg(1.7e9 + step, 0, 'f', 3)
        .toUtf8();
}

QByteArray checkpoint(int step, int epoch) {
    return QStringLiteral("{\"kind\":\"checkpoint\",\"step\":%1,\"epoch\":%2,\"path\":\"checkpoints/checkpoint_%2.pt\",\"t\":%3}\n")
        .arg(step)
        .arg(epoch)
        .arg(1.7e9 + step + 0.5, 0, 'f', 3)
        .toUtf8();
}

// Metrics event i of the remote series: every value differs from its neighbours', so a bucket's
// min or max is the value of one event only.
double lossAt(int64_t i) { return 1.0 + 0.5 * std::sin(static_cast<double>(i) * 0.37); }

EventBatch metricsBatch(int64_t first, int64_t n) {
    EventBatch b;
    auto& m = b.metrics;
    for (int64_t i = first; i < first + n; ++i) {
        m.step.push_back(static_cast<double>(i));
        m.epoch.push_back(0);
        m.t.push_back(1.7e9 + static_cast<double>(i) / 8);
        for (int k = 0; k < kMetricCount; ++k) m.values[static_cast<size_t>(k)].push_back(std::nan(""));
        m[Metric::LossD].back() = lossAt(i);
        m[Metric::LossG].back() = 3 - lossAt(i);
        m[Metric::DX].back() = lossAt(i) / 2;
        m[Metric::DGz1].back() = lossAt(i) / 4;
    }
    if (first == 1) b.firstT = 1.7e9;
    return b;
}

}  // namespace

class CheckpointCatalogTest : public QObject {
    Q_OBJECT

private slots:
    void rowsFromEventsAndFiles() {
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        QDir().mkpath(dir + "/checkpoints");
        write(dir + "/checkpoints/checkpoint_0.pt", QByteArray(100, 'x'));
        write(dir + "/checkpoints/checkpoint_1.pt", QByteArray(200, 'x'));
        write(dir + "/checkpoints/checkpoint_7.pt", QByteArray(7, 'x'));         // no event
        write(dir + "/checkpoints/checkpoint_2.pt.tmp123", QByteArray(5, 'x'));  // a save in progress
        QByteArray ev = metrics(2, 0, 1.5, 0.5) + metrics(4, 0, 1.25, 0.75) + checkpoint(4, 0) + metrics(6, 1, 1.0, 1.0) + checkpoint(6, 1) +
                        metrics(8, 1, 0.5, 2.0) + checkpoint(8, 1) +            // same epoch: rewrites checkpoint_1.pt
                        checkpoint(10, 2);                                      // its file is gone
        write(dir + "/events.jsonl", ev + "{\"kind\":\"metrics\",\"step\":9");  // torn last line
        CheckpointCatalog c;
        const qint64 end = c.readEvents(dir + "/events.jsonl");
        QCOMPARE(end, qint64(ev.size()));
        c.scanLocal(dir);
        const auto rows = c.rows();
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows[0].epoch, 0);
        QCOMPARE(rows[0].step, 4);
        QCOMPARE(rows[0].size, 100);
        QCOMPARE(rows[0].lossD, 1.25);
        QCOMPARE(rows[0].lossG, 0.75);
        QCOMPARE(rows[0].savedAt().toMSecsSinceEpoch(), qint64((1.7e9 + 4.5) * 1000));
        QCOMPARE(rows[0].path, QDir(dir).absoluteFilePath("checkpoints/checkpoint_0.pt"));
        QCOMPARE(rows[1].step, 8);  // the latest event of the rewritten file
        QCOMPARE(rows[1].lossD, 0.5);
        QCOMPARE(rows[1].lossG, 2.0);
        QCOMPARE(rows[1].size, 200);
        QCOMPARE(rows[2].epoch, 7);  // from the name
        QCOMPARE(rows[2].step, -1);
        QVERIFY(std::isnan(rows[2].lossD));
        QVERIFY(rows[2].savedAt().isValid());  // the file's mtime

        // The torn line completes; reading continues from the offset.
        write(dir + "/events.jsonl", ",\"epoch\":3,\"loss_d\":9,\"loss_g\":9}\n" + checkpoint(12, 7), QIODevice::Append);
        c.readEvents(dir + "/events.jsonl", end);
        const auto later = c.rows();
        QCOMPARE(later[2].step, 12);
        QCOMPARE(later[2].lossD, 9.0);
        QCOMPARE(c.checkpointEvents(), 5);
    }

    void remoteLossesExactPastMaxRows() {
        // More than 3 x kMaxRows metrics events (steps 1..n) in batches of 1000: the rows are
        // buckets of min/max pairs, yet each checkpoint shows the losses of the last metrics event
        // at or before its step, as logged.
        const int64_t n = 3 * static_cast<int64_t>(RunSeries::kMaxRows) + 500;
        RunSeries s;
        EventBatch first;
        first.checkpoints.push_back({0, "checkpoints/checkpoint_0.pt"});  // before any metrics event
        s.append(std::move(first));
        // step -> checkpoint epoch; 21000 is the last event of its batch, its checkpoint comes in the next
        const std::vector<std::pair<int64_t, int>> at = {{10007, 1}, {21000, 2}, {54321, 3}, {n, 4}};
        size_t next = 0;
        for (int64_t i = 1; i <= n; i += 1000) {
            EventBatch b = metricsBatch(i, std::min<int64_t>(1000, n - i + 1));
            const double last = b.metrics.step.back();
            while (next < at.size() && at[next].first <= last && (at[next].first != 21000 || last > 21000)) {
                b.checkpoints.push_back({at[next].first, "checkpoints/checkpoint_" + std::to_string(at[next].second) + ".pt"});
                ++next;
            }
            s.append(std::move(b));
        }
        QCOMPARE(next, at.size());
        QVERIFY(s.bucketSize() >= 4);  // downsampled: a row search would find bucket extremes
        QVERIFY(s.rows() <= RunSeries::kMaxRows);
        // The last row at or before a checkpoint's step holds a bucket's extreme, not its losses
        // (what the catalog showed when it searched the rows).
        int rowSearchWrong = 0;
        for (const auto& ck : at) {
            const int64_t step = ck.first;
            size_t r = 0;
            while (r + 1 < s.rows() && s.x(XAxisMode::Step, r + 1) <= static_cast<double>(step)) ++r;
            rowSearchWrong += std::abs(s.value(Metric::LossD, r) - lossAt(step)) > 1e-3;
        }
        QVERIFY(rowSearchWrong >= 2);

        std::vector<streetgan::RemoteFileInfo> files;
        for (int e = 0; e <= 4; ++e) {
            streetgan::RemoteFileInfo f;
            f.name = "checkpoint_" + std::to_string(e) + ".pt";
            f.size = 1000 + static_cast<uint64_t>(e);
            f.mtime = 1700000000 + e;
            f.isRegular = true;
            files.push_back(f);
        }
        CheckpointCatalog c;
        c.setRemote("/remote/run", s, files);
        const auto rows = c.rows();
        QCOMPARE(rows.size(), 5);
        QCOMPARE(rows[0].step, 0);
        QVERIFY(std::isnan(rows[0].lossD));  // no metrics event before it
        QVERIFY(std::isnan(rows[0].time));
        for (int r = 1; r <= 4; ++r) {
            const int64_t step = at[static_cast<size_t>(r - 1)].first;
            QCOMPARE(rows[r].epoch, qint64(r));
            QCOMPARE(rows[r].step, step);
            QCOMPARE(rows[r].lossD, lossAt(step));
            QCOMPARE(rows[r].lossG, 3 - lossAt(step));
            QCOMPARE(rows[r].dX, lossAt(step) / 2);
            QCOMPARE(rows[r].dGz, lossAt(step) / 4);
            QCOMPARE(rows[r].time, 1.7e9 + static_cast<double>(step) / 8);
            QCOMPARE(rows[r].path, QString("/remote/run/checkpoints/checkpoint_%1.pt").arg(r));
            QVERIFY(rows[r].remote);
        }
        QCOMPARE(c.checkpointEvents(), 5);
        // Issue 41 item 8: the SWD the trainer logged at a checkpoint's step (a metric event, which
        // the attach stream brings as the metrics/swd scalar) shows for a remote run as for a local one.
        QVERIFY(std::isnan(rows[2].swd));
        EventBatch quality;
        quality.scalars.push_back(ScalarPoint{"metrics/swd", static_cast<double>(at[1].first), 1.7e9, 150.6});
        quality.scalars.push_back(ScalarPoint{"metrics/swd_16", static_cast<double>(at[2].first), 1.7e9, 9.0});  // another tag: not SWD
        s.append(std::move(quality));
        CheckpointCatalog withSwd;
        withSwd.setRemote("/remote/run", s, files);
        const auto scored = withSwd.rows();
        QCOMPARE(scored[2].swd, 150.6);
        QVERIFY(std::isnan(scored[3].swd));
    }

    // Another trainer's TensorBoard run (the reference's NAME/events/ beside NAME/checkpoints/):
    // its torch.save files are listed wherever it keeps them; a remote listing names them relative
    // to the run.
    void tensorBoardRunCheckpointsBesideItsEvents() {
        QTemporaryDir tmp;
        const QString run = tmp.filePath("dcgan/events");
        QVERIFY(QDir().mkpath(run) && QDir().mkpath(tmp.filePath("dcgan/checkpoints")));
        auto touch = [](const QString& path, int bytes) {
            QFile f(path);
            return f.open(QIODevice::WriteOnly) && f.write(QByteArray(bytes, 'x')) == bytes;
        };
        QVERIFY(touch(run + "/events.out.tfevents.1700000000.host.1.0", 10));
        QVERIFY(touch(tmp.filePath("dcgan/checkpoints/checkpoint_1.pt"), 100));
        QVERIFY(touch(tmp.filePath("dcgan/checkpoints/checkpoint_0.pt"), 90));
        QVERIFY(touch(run + "/best.pth", 50));
        QVERIFY(touch(run + "/notes.txt", 5));
        CheckpointCatalog c;
        c.scanLocal(run);
        const auto rows = c.rows();
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows[0].relativePath, QString("best.pth"));  // no epoch in its name: first
        QCOMPARE(rows[0].epoch, qint64(-1));
        QCOMPARE(rows[1].relativePath, QString("../checkpoints/checkpoint_0.pt"));
        QCOMPARE(rows[2].relativePath, QString("../checkpoints/checkpoint_1.pt"));
        QCOMPARE(rows[2].epoch, qint64(1));
        QCOMPARE(rows[2].size, qint64(100));
        QCOMPARE(QFileInfo(rows[2].path).canonicalFilePath(), QFileInfo(tmp.filePath("dcgan/checkpoints/checkpoint_1.pt")).canonicalFilePath());

        std::vector<streetgan::RemoteFileInfo> remote(2);
        remote[0].name = "../checkpoints/checkpoint_1.pt";
        remote[0].size = 100;
        remote[1].name = "./best.pth";
        remote[1].size = 50;
        RunSeries none;
        c.setRemote("/srv/runs/dcgan/events", none, remote);
        const auto remoteRows = c.rows();
        QCOMPARE(remoteRows.size(), 2);
        QCOMPARE(remoteRows[0].path, QString("/srv/runs/dcgan/events/best.pth"));
        QCOMPARE(remoteRows[1].path, QString("/srv/runs/dcgan/checkpoints/checkpoint_1.pt"));
        QCOMPARE(remoteRows[1].epoch, qint64(1));
        QVERIFY(remoteRows[1].remote);
    }
    void swdOfTheCheckpointStepInItsColumn() {
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        QDir().mkpath(dir + "/checkpoints");
        for (int e = 0; e < 3; ++e) write(dir + QStringLiteral("/checkpoints/checkpoint_%1.pt").arg(e), QByteArray(10, 'x'));
        // The background evaluation logs the metric event after later steps; an unavailable one
        // (null) and one of another step leave the column empty.
        const QByteArray ev = metrics(2, 0, 1.0, 1.0) + checkpoint(2, 0) + metrics(4, 1, 1.0, 1.0) + checkpoint(4, 1) +
                              "{\"kind\":\"metric\",\"step\":2,\"swd\":41.25,\"swd_levels\":{\"32\":40.5,\"16\":42.0},\"fid\":null}\n" + checkpoint(6, 2) +
                              "{\"kind\":\"metric\",\"step\":4,\"swd\":null,\"swd_unavailable\":\"cancelled\"}\n" +
                              "{\"kind\":\"metric\",\"step\":5,\"swd\":7.0}\n";
        write(dir + "/events.jsonl", ev);
        CheckpointCatalog c;
        c.readEvents(dir + "/events.jsonl");
        c.scanLocal(dir);
        const auto rows = c.rows();
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows[0].swd, 41.25);
        QVERIFY(std::isnan(rows[1].swd));
        QVERIFY(std::isnan(rows[2].swd));

        CheckpointTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(rows);
        QCOMPARE(model.headerData(CheckpointTableModel::Swd, Qt::Horizontal).toString(), QStringLiteral("SWD ×10³"));
        QCOMPARE(model.data(model.index(0, CheckpointTableModel::Swd)).toString(), QStringLiteral("41.25"));
        QCOMPARE(model.data(model.index(1, CheckpointTableModel::Swd)).toString(), QStringLiteral("—"));
    }

    void aNewCheckpointIsInsertedNotAReset() {
        // A followed run's refresh: the rows so far stay (their thumbnails too), the new one is
        // inserted after them and before a reference row; anything else resets the model.
        const auto info = [](int epoch) {
            CheckpointInfo c;
            c.path = QString("/run/checkpoints/checkpoint_%1.pt").arg(epoch);
            c.relativePath = QString("checkpoints/checkpoint_%1.pt").arg(epoch);
            c.epoch = epoch;
            c.step = 100 * static_cast<qint64>(epoch);
            c.size = 10;
            return c;
        };
        CheckpointTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset), inserts(&model, &QAbstractItemModel::rowsInserted);
        model.setRows({info(1), info(2)});
        CheckpointInfo ref = info(9);
        ref.path = "/elsewhere/reference.pt";
        ref.reference = true;
        model.addReference(ref);
        QImage thumb(8, 8, QImage::Format_RGB32);
        thumb.fill(Qt::red);
        model.setThumbnail(info(1).path, thumb);
        QCOMPARE(model.thumbnails(), 1);
        resets.clear();
        inserts.clear();
        model.setRows({info(1), info(2), info(3)});
        QCOMPARE(resets.count(), 0);
        QCOMPARE(inserts.count(), 1);
        QCOMPARE(inserts.at(0).at(1).toInt(), 2);
        QCOMPARE(inserts.at(0).at(2).toInt(), 2);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.row(2).info.path, info(3).path);
        QCOMPARE(model.rowOf(ref.path), 3);
        QVERIFY(model.row(3).info.reference);
        QCOMPARE(model.row(0).thumbnail, thumb);
        QCOMPARE(model.thumbnails(), 1);
        model.setRows({info(1), info(2), info(3)});  // nothing new: no insert, no reset
        QCOMPARE(resets.count(), 0);
        QCOMPARE(inserts.count(), 1);
        model.setRows({info(2), info(3)});  // a checkpoint pruned: a reset
        QCOMPARE(resets.count(), 1);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.rowOf(info(1).path), -1);
        QCOMPARE(model.rowOf(ref.path), 2);
    }

    void aFollowedRunsChangesAreWhatIsNew() {
        // Issue 48: a followed run's read hands back only the rows that are new or changed, and the
        // files gone; the new checkpoint's file alone is looked at (scanNew), the folder listed
        // whole only by scanLocal.
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        QDir().mkpath(dir + "/checkpoints");
        for (int e = 0; e < 3; ++e) write(dir + QStringLiteral("/checkpoints/checkpoint_%1.pt").arg(e), QByteArray(10 + e, 'x'));
        write(dir + "/events.jsonl", metrics(2, 0, 1, 1) + checkpoint(2, 0) + metrics(4, 1, 1, 1) + checkpoint(4, 1) + metrics(6, 2, 1, 1) + checkpoint(6, 2));
        CheckpointCatalog c;
        qint64 end = c.readEvents(dir + "/events.jsonl");
        c.scanLocal(dir);
        auto changes = c.takeChanges();
        QCOMPARE(changes.rows.size(), 3);  // the first read: every row, in rows()'s order
        for (int i = 0; i < 3; ++i) QCOMPARE(changes.rows[i].path, c.rows()[i].path);
        QVERIFY(changes.removed.isEmpty());
        QVERIFY(c.takeChanges().rows.isEmpty());  // taken

        // A new checkpoint; a file nobody announced appears meanwhile (seen by a whole listing only).
        write(dir + "/checkpoints/checkpoint_3.pt", QByteArray(13, 'x'));
        write(dir + "/checkpoints/checkpoint_9.pt", QByteArray(5, 'x'));
        write(dir + "/events.jsonl", metrics(8, 3, 0.25, 2) + checkpoint(8, 3), QIODevice::Append);
        end = c.readEvents(dir + "/events.jsonl", end);
        c.scanNew(dir);
        changes = c.takeChanges();
        QCOMPARE(changes.rows.size(), 1);
        QCOMPARE(changes.rows[0].epoch, 3);
        QCOMPARE(changes.rows[0].step, 8);
        QCOMPARE(changes.rows[0].lossD, 0.25);
        QCOMPARE(changes.rows[0].size, 13);
        QCOMPARE(c.rows().size(), 4);  // checkpoint_9.pt: not listed yet

        // The SWD of an earlier checkpoint's step comes later: that row changes.
        write(dir + "/events.jsonl", "{\"kind\":\"metric\",\"step\":4,\"swd\":12.5}\n", QIODevice::Append);
        end = c.readEvents(dir + "/events.jsonl", end);
        c.scanNew(dir);
        changes = c.takeChanges();
        QCOMPARE(changes.rows.size(), 1);
        QCOMPARE(changes.rows[0].epoch, 1);
        QCOMPARE(changes.rows[0].swd, 12.5);

        // A whole listing: the unannounced file is new, a pruned one is gone, a rewritten one changed.
        QVERIFY(QFile::remove(dir + "/checkpoints/checkpoint_0.pt"));
        write(dir + "/checkpoints/checkpoint_2.pt", QByteArray(50, 'y'));
        c.scanLocal(dir);
        changes = c.takeChanges();
        QCOMPARE(changes.removed, QStringList{QDir(dir).absoluteFilePath("checkpoints/checkpoint_0.pt")});
        QCOMPARE(changes.rows.size(), 2);
        QCOMPARE(changes.rows[0].epoch, 2);
        QCOMPARE(changes.rows[0].size, 50);
        QCOMPARE(changes.rows[1].epoch, 9);
        QCOMPARE(c.rows().size(), 4);
        c.scanLocal(dir);
        changes = c.takeChanges();
        QVERIFY(changes.rows.isEmpty() && changes.removed.isEmpty());  // nothing changed: nothing to do
    }

    void changesApplyInPlace() {
        // The model takes a followed run's changes without a reset: new rows at the end of the
        // run's rows in one insert (before a reference row), an update in place keeping the row's
        // thumbnail, a row gone removed, a row that sorts earlier inserted where it sorts.
        const auto info = [](int epoch, qint64 size = 10) {
            CheckpointInfo c;
            c.path = QString("/run/checkpoints/checkpoint_%1.pt").arg(epoch);
            c.relativePath = QString("checkpoints/checkpoint_%1.pt").arg(epoch);
            c.epoch = epoch;
            c.step = 100 * static_cast<qint64>(epoch);
            c.size = size;
            return c;
        };
        CheckpointTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset), inserts(&model, &QAbstractItemModel::rowsInserted),
            removes(&model, &QAbstractItemModel::rowsRemoved), changes(&model, &QAbstractItemModel::dataChanged);
        QCOMPARE(model.applyChanges({info(1), info(2), info(4)}, {}), 0);
        QCOMPARE(inserts.count(), 1);
        CheckpointInfo ref = info(9);
        ref.path = "/elsewhere/reference.pt";
        ref.reference = true;
        model.addReference(ref);
        QImage thumb(8, 8, QImage::Format_RGB32);
        thumb.fill(Qt::red);
        model.setThumbnail(info(1).path, thumb);
        inserts.clear();
        changes.clear();

        CheckpointInfo swd = info(1);
        swd.swd = 3.5;
        QCOMPARE(model.applyChanges({swd, info(5), info(6)}, {}), 3);  // appended from row 3
        QCOMPARE(inserts.count(), 1);
        QCOMPARE(inserts.at(0).at(1).toInt(), 3);
        QCOMPARE(inserts.at(0).at(2).toInt(), 4);
        QCOMPARE(changes.count(), 1);  // row 0 only
        QCOMPARE(changes.at(0).at(0).value<QModelIndex>().row(), 0);
        QCOMPARE(changes.at(0).at(1).value<QModelIndex>().row(), 0);
        QCOMPARE(model.row(0).thumbnail, thumb);
        QCOMPARE(model.row(0).info.swd, 3.5);
        QCOMPARE(model.rowOf(ref.path), 5);
        QCOMPARE(model.runRows(), 5);
        QCOMPARE(model.applyChanges({}, {}), 5);  // nothing: nothing appended

        QCOMPARE(model.applyChanges({info(3)}, {info(1).path}), -1);  // one gone, one in between
        QCOMPARE(removes.count(), 1);
        QCOMPARE(model.runRows(), 5);
        const QList<int> epochs = {2, 3, 4, 5, 6};
        for (int r = 0; r < epochs.size(); ++r) {
            QCOMPARE(model.row(r).info.epoch, epochs[r]);
            QCOMPARE(model.rowOf(model.row(r).info.path), r);
        }
        QCOMPARE(model.rowOf(ref.path), 5);
        QCOMPARE(model.thumbnails(), 0);  // the thumbnail went with its row

        model.setThumbnail(info(4).path, thumb);
        QCOMPARE(model.applyChanges({info(4, 99)}, {}), -1);  // its file was rewritten: its state goes
        QVERIFY(model.row(2).thumbnail.isNull());
        QCOMPARE(model.thumbnails(), 0);
        QCOMPARE(resets.count(), 0);
    }

    void malformedLinesAreIgnored() {
        CheckpointCatalog c;
        for (const char* line : {"", "not json", "[1,2]", "{\"kind\":5}", "{\"kind\":\"checkpoint\"}", "{\"kind\":\"checkpoint\",\"path\":3}", "{broken"})
            c.addEventLine(line);
        QCOMPARE(c.checkpointEvents(), 0);
        QVERIFY(c.rows().isEmpty());
        QCOMPARE(c.readEvents("/nonexistent/events.jsonl", 0), 0);  // a run without events yet
    }

    void epochFromName() {
        QCOMPARE(CheckpointCatalog::epochFromName("checkpoint_12.pt"), 12);
        QCOMPARE(CheckpointCatalog::epochFromName("checkpoint_.pt"), -1);
        QCOMPARE(CheckpointCatalog::epochFromName("checkpoint_1.pt.tmp"), -1);
        QCOMPARE(CheckpointCatalog::epochFromName("reference.pt"), -1);
    }
};

QTEST_MAIN(CheckpointCatalogTest)
#include "CheckpointCatalogTest.moc"
