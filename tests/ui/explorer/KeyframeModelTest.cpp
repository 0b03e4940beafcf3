// KeyframeModel under QAbstractItemModelTester (Qt's own checks of the model contract, failing the
// test on any violation): keyframe lists inserted, removed, moved, reset and edited in place emit
// the smallest change as rows inserted / removed / moved / dataChanged (a reset only when none
// fits), persistent indexes follow moved rows, the roles (text, seed, vector, easing, thumbnail)
// read back, thumbnails stay with their keyframe, and moveRows() (what a list
// view's drag and drop calls) asks for the move and reports whether it happened. No worker needed.
#include <QAbstractItemModelTester>
#include <QFile>
#include <QIcon>
#include <QPersistentModelIndex>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <utility>

#include "common/JsonText.h"
#include "explorer/KeyframeDelegate.h"
#include "explorer/KeyframeModel.h"
#include "explorer/SessionModel.h"

using namespace streetgan;
using namespace streetgan::ui;

namespace {

SessionKeyframe seed(uint64_t s, std::optional<Easing::Kind> easing = std::nullopt) {
    SessionKeyframe k;
    k.seed = s;
    k.easing = easing;
    return k;
}

SessionKeyframe vec(std::vector<double> z) {
    SessionKeyframe k;
    k.z = std::move(z);
    return k;
}

std::vector<SessionKeyframe> seeds(std::initializer_list<uint64_t> s) {
    std::vector<SessionKeyframe> out;
    for (uint64_t v : s) out.push_back(seed(v));
    return out;
}

QList<qint64> shown(const KeyframeModel& m) {
    QList<qint64> out;
    for (int r = 0; r < m.rowCount(); ++r) out.append(m.index(r).data(KeyframeModel::SeedRole).toLongLong());
    return out;
}

QImage solid(QRgb c) {
    QImage img(8, 8, QImage::Format_RGB888);
    img.fill(c);
    return img;
}

}  // namespace

class KeyframeModelTest : public QObject {
    Q_OBJECT

    QStringList log_;

    /// Logs every change signal of `m` into log_: "insert 1 2", "remove 0 0", "move 3 3 1"
    /// (first, last, destination), "reset", "data 2 4" (dataChanged rows).
    void record(KeyframeModel& m) {
        connect(&m, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex&, int a, int b) { log_ << QString("insert %1 %2").arg(a).arg(b); });
        connect(&m, &QAbstractItemModel::rowsRemoved, this, [this](const QModelIndex&, int a, int b) { log_ << QString("remove %1 %2").arg(a).arg(b); });
        connect(&m, &QAbstractItemModel::rowsMoved, this,
                [this](const QModelIndex&, int a, int b, const QModelIndex&, int d) { log_ << QString("move %1 %2 %3").arg(a).arg(b).arg(d); });
        connect(&m, &QAbstractItemModel::modelReset, this, [this] { log_ << "reset"; });
        connect(&m, &QAbstractItemModel::dataChanged, this,
                [this](const QModelIndex& a, const QModelIndex& b) { log_ << QString("data %1 %2").arg(a.row()).arg(b.row()); });
    }
    /// The signals since the last take().
    QStringList take() { return std::exchange(log_, {}); }

private slots:
    void insertsRemovesMovesResetsAndEdits() {
        KeyframeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        record(m);
        QCOMPARE(m.rowCount(), 0);

        m.setKeyframes(seeds({2, 20, 28}));
        QCOMPARE(take(), QStringList{"insert 0 2"});
        QCOMPARE(shown(m), (QList<qint64>{2, 20, 28}));

        m.setKeyframes(seeds({2, 20, 28}));  // the same list: nothing
        QCOMPARE(take(), QStringList());

        // Inserts: at the end, in the middle (later rows renumbered), two at once at the front.
        m.setKeyframes(seeds({2, 20, 28, 46}));
        QCOMPARE(take(), QStringList{"insert 3 3"});
        m.setKeyframes(seeds({2, 5, 20, 28, 46}));
        QCOMPARE(take(), QStringList{"insert 1 1"});
        m.setKeyframes(seeds({7, 8, 2, 5, 20, 28, 46}));
        QCOMPARE(take(), QStringList{"insert 0 1"});
        // A duplicate of the last row.
        m.setKeyframes(seeds({7, 8, 2, 5, 20, 28, 46, 46}));
        QCOMPARE(take(), QStringList{"insert 7 7"});
        QCOMPARE(shown(m), (QList<qint64>{7, 8, 2, 5, 20, 28, 46, 46}));

        // Removes: one, then two.
        m.setKeyframes(seeds({8, 2, 5, 20, 28, 46, 46}));
        QCOMPARE(take(), QStringList{"remove 0 0"});
        m.setKeyframes(seeds({8, 2, 28, 46, 46}));
        QCOMPARE(take(), QStringList{"remove 2 3"});

        // Moves, with a persistent index on the moved row.
        QPersistentModelIndex two(m.index(1));
        m.setKeyframes(seeds({8, 28, 46, 2, 46}));  // row 1 down to row 3
        QCOMPARE(take(), QStringList{"move 1 1 4"});
        QCOMPARE(two.row(), 3);
        QCOMPARE(two.data(KeyframeModel::SeedRole).toLongLong(), qint64(2));
        m.setKeyframes(seeds({2, 8, 28, 46, 46}));  // row 3 up to row 0
        QCOMPARE(take(), QStringList{"move 3 3 0"});
        QCOMPARE(two.row(), 0);
        m.setKeyframes(seeds({8, 2, 28, 46, 46}));  // neighbours swap
        QCOMPARE(take(), QStringList{"move 0 0 2"});
        QCOMPARE(two.row(), 1);

        // Edits in place: a seed changes, an easing is set, a seed keyframe becomes a vector.
        m.setKeyframes(seeds({8, 2, 29, 46, 46}));
        QCOMPARE(take(), QStringList{"data 2 2"});
        auto ks = seeds({8, 2, 29, 46, 46});
        ks[1].easing = Easing::Kind::EaseIn;
        m.setKeyframes(ks);
        QCOMPARE(take(), QStringList{"data 1 1"});
        QCOMPARE(m.index(1).data(KeyframeModel::EasingRole).toString(), QString("ease-in"));
        QCOMPARE(m.index(1).data().toString(), QString("seed 2  [ease-in]"));
        QCOMPARE(KeyframeDelegate::text(m.index(1)), QString("2. seed 2  [ease-in]"));  // what the list shows
        ks[3] = vec({0.5, -1.25, 2.0});
        m.setKeyframes(ks);
        QCOMPARE(take(), QStringList{"data 3 3"});
        QCOMPARE(m.index(3).data().toString(), QString("z (3 values)"));
        QVERIFY(!m.index(3).data(KeyframeModel::SeedRole).isValid());
        QCOMPARE(m.index(3).data(KeyframeModel::VectorRole).value<QList<double>>(), (QList<double>{0.5, -1.25, 2.0}));
        QCOMPARE(m.index(0).data(KeyframeModel::EasingRole).toString(), QString());

        // Two rows changed at both ends of the list and a different length: a reset.
        m.setKeyframes(seeds({1, 2, 29, 46, 3, 4}));
        QCOMPARE(take(), QStringList{"reset"});
        QCOMPARE(shown(m), (QList<qint64>{1, 2, 29, 46, 3, 4}));
        m.setKeyframes({});
        QCOMPARE(take(), QStringList{"remove 0 5"});
        QCOMPARE(m.rowCount(), 0);
    }

    void thumbnailsFollowTheirKeyframe() {
        KeyframeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setKeyframes(seeds({2, 20, 28}));
        QVERIFY(!m.index(0).data(Qt::DecorationRole).isValid());
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.setThumbnails({solid(qRgb(255, 0, 0)), solid(qRgb(0, 255, 0))});  // fewer images than rows
        QCOMPARE(changed.size(), 1);
        QVERIFY(changed.first().at(2).value<QList<int>>().contains(Qt::DecorationRole));
        QCOMPARE(m.index(0).data(KeyframeModel::ThumbnailRole).value<QImage>().pixel(0, 0), qRgb(255, 0, 0));
        QVERIFY(!m.index(0).data(Qt::DecorationRole).value<QIcon>().isNull());
        QVERIFY(m.index(2).data(KeyframeModel::ThumbnailRole).value<QImage>().isNull());
        QVERIFY(!m.index(2).data(Qt::DecorationRole).isValid());
        // Moved and duplicated, a keyframe keeps its image.
        m.setKeyframes(seeds({20, 2, 28, 2}));
        QCOMPARE(m.index(1).data(KeyframeModel::ThumbnailRole).value<QImage>().pixel(0, 0), qRgb(255, 0, 0));
        QCOMPARE(m.index(3).data(KeyframeModel::ThumbnailRole).value<QImage>().pixel(0, 0), qRgb(255, 0, 0));
        QCOMPARE(m.index(0).data(KeyframeModel::ThumbnailRole).value<QImage>().pixel(0, 0), qRgb(0, 255, 0));
    }

    void moveRowsAsksForTheMove() {
        KeyframeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setKeyframes(seeds({2, 20, 28, 46}));
        QVERIFY(m.flags(m.index(0)).testFlag(Qt::ItemIsDragEnabled));
        QVERIFY(!m.flags(m.index(0)).testFlag(Qt::ItemIsDropEnabled));  // drops go between rows
        QVERIFY(m.flags(QModelIndex()).testFlag(Qt::ItemIsDropEnabled));
        QCOMPARE(m.supportedDropActions(), Qt::MoveAction);
        // Nobody applies it: nothing moves.
        QVERIFY(!m.moveRow(QModelIndex(), 0, QModelIndex(), 3));
        QCOMPARE(shown(m), (QList<qint64>{2, 20, 28, 46}));
        // The session's owner applies it (as ExplorerPage does through SessionModel).
        QList<QPair<int, int>> asked;
        connect(&m, &KeyframeModel::moveRequested, this, [&](int from, int to) {
            asked.append({from, to});
            std::vector<SessionKeyframe> ks = m.keyframes();
            const SessionKeyframe k = ks[static_cast<size_t>(from)];
            ks.erase(ks.begin() + from);
            ks.insert(ks.begin() + to, k);
            m.setKeyframes(ks);
        });
        QSignalSpy moved(&m, &QAbstractItemModel::rowsMoved);
        QVERIFY(m.moveRow(QModelIndex(), 0, QModelIndex(), 3));  // before row 3: ends at row 2
        QCOMPARE(asked, (QList<QPair<int, int>>{{0, 2}}));
        QCOMPARE(shown(m), (QList<qint64>{20, 28, 2, 46}));
        QCOMPARE(moved.size(), 1);
        QVERIFY(m.moveRow(QModelIndex(), 3, QModelIndex(), 0));
        QCOMPARE(shown(m), (QList<qint64>{46, 20, 28, 2}));
        QVERIFY(m.moveRow(QModelIndex(), 1, QModelIndex(), 4));  // after the last row
        QCOMPARE(shown(m), (QList<qint64>{46, 28, 2, 20}));
        // Onto itself, out of range, several rows, a child: refused without asking.
        asked.clear();
        QVERIFY(!m.moveRow(QModelIndex(), 1, QModelIndex(), 1));
        QVERIFY(!m.moveRow(QModelIndex(), 1, QModelIndex(), 2));
        QVERIFY(!m.moveRow(QModelIndex(), 4, QModelIndex(), 0));
        QVERIFY(!m.moveRows(QModelIndex(), 0, 2, QModelIndex(), 4));
        QVERIFY(!m.moveRow(m.index(0), 0, QModelIndex(), 2));
        QVERIFY(asked.isEmpty());
        QCOMPARE(shown(m), (QList<qint64>{46, 28, 2, 20}));
    }

    void sessionModelDrivesTheKeyframeModel() {
        SessionModel session;
        KeyframeModel& m = *session.keyframes();
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        LatentSession walk;
        walk.keyframes = seeds({2, 20, 28, 46});
        walk.framesPerSegment = 12;
        walk.extra["note"] = "kept";
        session.reset(walk);
        QVERIFY(!session.hasUnsavedChanges());
        QCOMPARE(session.frameCount(), 48);  // WalkRule: loop K*F
        record(m);
        const QByteArray start = JsonText::write(session.json());

        session.insertSeedKeyframe(1, 5);
        QCOMPARE(take(), QStringList{"insert 1 1"});
        QVERIFY(session.moveKeyframe(1, 3));
        QCOMPARE(take(), QStringList{"move 1 1 4"});
        QVERIFY(session.duplicateKeyframe(0));
        QCOMPARE(take(), QStringList{"insert 1 1"});
        QVERIFY(session.removeKeyframe(4));
        QCOMPARE(take(), QStringList{"remove 4 4"});
        QVERIFY(session.setSegmentEasing(2, "ease-out"));
        QCOMPARE(take(), QStringList{"data 2 2"});
        session.setLoop(false);
        QCOMPARE(take(), QStringList());  // not a keyframe edit
        QCOMPARE(shown(m), (QList<qint64>{2, 2, 20, 28, 46}));
        QCOMPARE(session.frameCount(), 4 * 12 + 1);  // WalkRule: no loop (K-1)*F+1
        QCOMPARE(session.undoStack()->count(), 6);

        // Undo plays the same edits backwards through the model; redo forwards again.
        session.undoStack()->undo();  // loop
        session.undoStack()->undo();  // easing
        QCOMPARE(take(), QStringList{"data 2 2"});
        session.undoStack()->undo();  // remove
        QCOMPARE(take(), QStringList{"insert 4 4"});
        session.undoStack()->undo();  // duplicate
        session.undoStack()->undo();  // move
        session.undoStack()->undo();  // insert
        QCOMPARE(take(), (QStringList{"remove 1 1", "move 3 3 1", "remove 1 1"}));
        QCOMPARE(JsonText::write(session.json()), start);
        QVERIFY(!session.hasUnsavedChanges());
        session.undoStack()->redo();
        QCOMPARE(take(), QStringList{"insert 1 1"});
        QCOMPARE(shown(m), (QList<qint64>{2, 5, 20, 28, 46}));
        QVERIFY(!session.removeKeyframe(7));
        QVERIFY(!session.setSegmentEasing(0, "bouncy"));

        // A slider drag is one step; its edits merge.
        session.startDrag();
        for (double psi : {0.9, 0.7, 0.5}) session.setTruncation(psi, true);
        QCOMPARE(session.undoStack()->count(), 2);
        QCOMPARE(session.session().truncation, 0.5);
        session.addRawDimension(7);
        QCOMPARE(session.rawDims(64), QList<int>{7});
        QCOMPARE(session.rawDims(4), QList<int>());  // not a dimension of a smaller generator

        // Saved: Qt's indented JSON of the session, the unknown keys kept; read and saved again,
        // the same bytes.
        QTemporaryDir tmp;
        session.save(tmp.filePath("a.json"));
        QVERIFY(!session.hasUnsavedChanges());
        QFile a(tmp.filePath("a.json"));
        QVERIFY(a.open(QIODevice::ReadOnly));
        const QByteArray saved = a.readAll();
        QCOMPARE(saved, JsonText::write(session.json()));
        QVERIFY(saved.startsWith("{\n    \"checkpoint\": \"\",\n"));
        QVERIFY(saved.contains("\"explorer_raw_dims\": [\n        7\n    ],"));
        QVERIFY(saved.contains("\"note\": \"kept\""));
        QVERIFY(saved.contains("\"truncation\": 0.5,\n"));
        QVERIFY(saved.contains("\"gif_dithering\": 0,"));  // a double written as Qt wrote it
        SessionModel reopened;
        reopened.reset(LatentSession::read(tmp.filePath("a.json").toStdString()));
        reopened.save(tmp.filePath("b.json"));
        QFile b(tmp.filePath("b.json"));
        QVERIFY(b.open(QIODevice::ReadOnly));
        QCOMPARE(b.readAll(), saved);
    }
};

QTEST_MAIN(KeyframeModelTest)
#include "KeyframeModelTest.moc"
