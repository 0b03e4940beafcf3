// CheckpointCatalog on recorded events.jsonl lines and files (no processes): rows are the
// checkpoint files; steps, epochs and times come from the latest checkpoint event of each file;
// losses from the last metrics event at or before its step; a torn last line waits for the next
// read; files without events and temp files of a save in progress.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "checkpoints/CheckpointCatalog.h"
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
