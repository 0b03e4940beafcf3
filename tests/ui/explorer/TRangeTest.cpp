// The explorer's t ranges against the real explore worker (`streetgan-trainer explore-worker`) on
// the embedded demo checkpoint: "Reference walk" builds the reference project's walk in one undoable
// step (two random keyframes, t 0 to 8, 16 frames, no loop); the preview shows its frames with
// their t, and they are the frames `streetgan-trainer render` writes for the saved session (and not
// those of the same keyframes from 0 to 1); the path's and a segment's t range are edited through
// their spin boxes, undo and redo restore the exact session and the widgets follow; a session file
// with a bad t_range is refused with a line naming the key.
#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <functional>

#include "common/JsonFields.h"
#include "common/JsonText.h"
#include "explorer/ExplorerPage.h"
#include "explorer/KeyframeList.h"
#include "explorer/KeyframeModel.h"
#include "explorer/PathPanel.h"
#include "explorer/SessionModel.h"
#include "support/UiTestSupport.h"
#include "ui/explorer/ExplorerWaits.h"

using namespace streetgan::ui;
using nlohmann::json;
using F = JsonFields;

namespace {

QByteArray compact(const json& o) { return JsonText::write(o, JsonText::Format::Compact); }

QImage rgb(const QImage& i) { return i.convertToFormat(QImage::Format_RGB888); }

}  // namespace

class TRangeTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    ExplorerPage* page_ = nullptr;

    QImage frameAfter(const std::function<void()>& action, int index) { return streetgan::test::frameAfter(page_, action, index); }

    bool openDemo() { return streetgan::test::openDemo(page_); }

    QString frameLabel() const { return page_->findChild<QLabel*>("frameLabel")->text(); }

    /// `streetgan-trainer render --session session --out dir` (a PNG sequence); its frames.
    QList<QImage> render(const json& session, const QString& name) {
        const QString path = tmp_.filePath(name + ".json"), out = tmp_.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly)) return {};
        f.write(JsonText::write(session));
        f.close();
        QProcess p;
        p.start(STREETGAN_TRAINER, {"render", "--session", path, "--out", out, "--device", "auto"});  // the worker's device
        if (!p.waitForFinished(120000) || p.exitCode() != 0) {
            qWarning("render: %s", p.readAllStandardError().constData());
            return {};
        }
        QList<QImage> frames;
        for (const QString& png : QDir(out).entryList({"*.png"}, QDir::Files, QDir::Name)) frames.append(rgb(QImage(out + "/" + png)));
        return frames;
    }

private slots:
    void initTestCase() { page_ = streetgan::test::openExplorerPage(tmp_); }

    void cleanupTestCase() { delete page_; }

    void referenceWalkIsOneClickAndOneStep() {
        QVERIFY(openDemo());
        const QByteArray demo = compact(page_->session());
        QPushButton* button = page_->pathPanel()->referenceWalkButton();
        QVERIFY(button->isEnabled());
        QTest::mouseClick(button, Qt::LeftButton);
        const json& s = page_->session();
        QCOMPARE(s.at("keyframes").size(), size_t(2));
        const qint64 a = F::integer(s.at("keyframes")[0], "seed", -1), b = F::integer(s.at("keyframes")[1], "seed", -1);
        QVERIFY(a >= 0 && b >= 0 && a != b);
        QCOMPARE(compact(s.at("t_range")), QByteArray("[0,8]"));
        QCOMPARE(F::integer(s, "frames_per_segment"), qint64(15));
        QCOMPARE(F::flag(s, "loop", true), false);
        QCOMPARE(F::text(s, "interpolation"), QString("slerp"));
        QCOMPARE(F::text(s, "easing"), QString("linear"));
        QCOMPARE(F::number(s, "truncation"), 1.0);
        QCOMPARE(F::text(s, "upscale"), QString("smooth"));  // the demo's output settings stay
        QCOMPARE(page_->frameCount(), 16);
        QCOMPARE(page_->scrubber()->maximum(), 15);
        QCOMPARE(page_->undoStack()->count(), 1);
        // The widgets show the walk.
        QCOMPARE(page_->pathPanel()->tStartBox()->value(), 0.0);
        QCOMPARE(page_->pathPanel()->tEndBox()->value(), 8.0);
        QCOMPARE(page_->pathPanel()->framesPerSegmentBox()->value(), 15);
        QVERIFY(!page_->pathPanel()->loopBox()->isChecked());
        // Two clicks, two walks (random seeds); undo brings back the previous one exactly.
        const QByteArray first = compact(page_->session());
        QTest::mouseClick(button, Qt::LeftButton);
        QVERIFY(compact(page_->session()) != first);
        page_->undoStack()->undo();
        QCOMPARE(compact(page_->session()), first);
        page_->undoStack()->undo();
        QCOMPARE(compact(page_->session()), demo);
        QCOMPARE(page_->pathPanel()->tEndBox()->value(), 1.0);
        QCOMPARE(page_->frameCount(), 48);
    }

    void previewShowsTheWalkPastItsKeyframes() {
        QVERIFY(openDemo());
        page_->setSize(64);
        page_->buildReferenceWalk(2, 20);
        QCOMPARE(page_->frameCount(), 16);
        QList<QImage> shown;
        for (int i : {0, 1, 7, 15}) {
            const QImage img = frameAfter([&] { page_->setCurrentFrame(i); }, i);
            QVERIFY2(!img.isNull(), qPrintable(page_->errorLine()));
            shown.append(rgb(img));
        }
        QCOMPARE(shown.first().size(), QSize(64, 64));
        // The label says where the frame is: past keyframe 2 at t = 8.
        QVERIFY2(frameLabel().contains("frame 16 / 16") && frameLabel().contains("t 8.000"), qPrintable(frameLabel()));
        page_->grab().save(qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR", "/tmp") + "/explorer-reference-walk.png");
        page_->setCurrentFrame(1);
        QVERIFY2(frameLabel().contains("1→2") && frameLabel().contains("t 0.533"), qPrintable(frameLabel()));

        // The preview's frames are render's frames of the saved session...
        QVERIFY(page_->saveSession(tmp_.filePath("reference-walk.json")));
        const json saved = page_->session();
        const QList<QImage> rendered = render(saved, "walk");
        QCOMPARE(rendered.size(), 16);
        QCOMPARE(shown[0], rendered[0]);
        QCOMPARE(shown[1], rendered[1]);
        QCOMPARE(shown[2], rendered[7]);
        QCOMPARE(shown[3], rendered[15]);
        // ... and not those of the same keyframes from t = 0 to 1 (same start, another walk).
        json plain = saved;
        plain.erase("t_range");
        const QList<QImage> unit = render(plain, "unit");
        QCOMPARE(unit.size(), 16);
        QCOMPARE(unit[0], shown[0]);
        QVERIFY(unit[15] != shown[3]);
        QVERIFY(unit[7] != shown[2]);
        // The keyframe thumbnails are the keyframes themselves (t = 0 of their segment).
        QTRY_VERIFY_WITH_TIMEOUT(!page_->sessionModel()->keyframes()->index(1).data(KeyframeModel::ThumbnailRole).value<QImage>().isNull(),
                                 streetgan::test::kWaitMs);
    }

    void pathAndSegmentRangesAreUndoableEdits() {
        QVERIFY(openDemo());
        QUndoStack* undo = page_->undoStack();
        PathPanel* path = page_->pathPanel();
        KeyframeList* list = page_->keyframeList();
        QList<QByteArray> states{compact(page_->session())};
        path->tStartBox()->setValue(-0.5);
        QCOMPARE(compact(page_->session().at("t_range")), QByteArray("[-0.5,1]"));
        states << compact(page_->session());
        path->tEndBox()->setValue(2.25);
        QCOMPARE(compact(page_->session().at("t_range")), QByteArray("[-0.5,2.25]"));
        states << compact(page_->session());
        page_->setCurrentFrame(0);
        QVERIFY2(frameLabel().contains("t -0.500"), qPrintable(frameLabel()));
        // A segment without its own range shows the path's; editing one end gives it its own.
        list->select(1);
        QCOMPARE(list->segmentTStartBox()->value(), -0.5);
        QCOMPARE(list->segmentTEndBox()->value(), 2.25);
        QVERIFY(!list->segmentTResetButton()->isEnabled());
        list->segmentTEndBox()->setValue(3.0);
        QCOMPARE(compact(page_->session().at("keyframes")[1].at("t_range")), QByteArray("[-0.5,3]"));
        QVERIFY(!page_->session().at("keyframes")[0].contains("t_range"));
        QVERIFY2(list->rowText(1).contains("t -0.5 → 3"), qPrintable(list->rowText(1)));
        QCOMPARE(list->model()->index(1).data(KeyframeModel::TRangeRole).toPointF(), QPointF(-0.5, 3.0));
        QVERIFY(list->segmentTResetButton()->isEnabled());
        states << compact(page_->session());
        page_->setCurrentFrame(12 + 6);  // segment 1 at u = 1/2
        QVERIFY2(frameLabel().contains("2→3") && frameLabel().contains("t 1.250"), qPrintable(frameLabel()));
        QTest::mouseClick(list->segmentTResetButton(), Qt::LeftButton);
        QVERIFY(!page_->session().at("keyframes")[1].contains("t_range"));
        states << compact(page_->session());
        QCOMPARE(undo->count(), states.size() - 1);
        for (int i = states.size() - 2; i >= 0; --i) {
            undo->undo();
            QCOMPARE(compact(page_->session()), states[i]);
        }
        QVERIFY(undo->isClean());
        QVERIFY(!page_->session().contains("t_range"));  // a session without a range has no key
        QCOMPARE(path->tStartBox()->value(), 0.0);
        for (int i = 1; i < states.size(); ++i) {
            undo->redo();
            QCOMPARE(compact(page_->session()), states[i]);
        }
        QCOMPARE(path->tEndBox()->value(), 2.25);
    }

    void badRangeInAFileNamesTheKey() {
        QVERIFY(openDemo());
        const QString path = tmp_.filePath("bad.json");
        json s = page_->session();
        s["t_range"] = json::array({0, "8"});
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(JsonText::write(s));
        f.close();
        QSignalSpy failed(page_, &ExplorerPage::errorOccurred);
        page_->openSession(path);
        QVERIFY(failed.wait(streetgan::test::kWaitMs));
        QVERIFY2(failed.first().at(0).toString().contains("'t_range'"), qPrintable(failed.first().at(0).toString()));
        QVERIFY(!page_->session().contains("t_range"));  // the open session stays
    }
};

QTEST_MAIN(TRangeTest)
#include "TRangeTest.moc"
