// The explorer's self-explaining controls (issue 17): slider value labels, the sliders' keyboard
// bindings (every entry of LatentSliders::keyBindings driven through QTest), the achieved frame
// rate readout while the demo walk plays, the export dialog's summary of what it will write, and
// the page's compact layout at 760 px (with screenshots at ~760 and ~1400 px). Against the real
// explore worker on the embedded demo checkpoint, like ExplorerTest.
#include <QCheckBox>
#include <QLabel>
#include <QPointer>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "common/JsonFields.h"
#include "explorer/ExplorerPage.h"
#include "explorer/ExportDialog.h"
#include "explorer/KeyframeList.h"
#include "explorer/LatentSliders.h"
#include "explorer/WalkPreview.h"
#include "ui/explorer/ExplorerWaits.h"

using namespace streetgan::ui;
using nlohmann::json;
using F = JsonFields;

namespace {

QString shotPath(const QString& name) { return qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR", "/tmp") + "/" + name; }

/// The session's amount of PCA direction `index` (0 when it has no edit).
double directionAmount(const ExplorerPage& page, int index) {
    for (const json& d : page.session().at("directions"))
        if (F::integer32(d, "index") == index) return F::number(d, "amount");
    return 0;
}

bool isMarked(const QSlider* s) { return s->parentWidget()->property("selectedSlider").toBool(); }

}  // namespace

class ExplorerControlsTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    ExplorerPage* page_ = nullptr;

private slots:
    void initTestCase() {
        page_ = streetgan::test::openExplorerPage(tmp_);
        QVERIFY(streetgan::test::openDemo(page_));
    }

    void cleanupTestCase() { delete page_; }

    void sliderLabelsShowTheValue() {
        QVERIFY(streetgan::test::openDemo(page_));
        LatentSliders* s = page_->sliders();
        QCOMPARE(s->valueText(s->truncationSlider()), QString("0.90"));  // the demo's psi
        QSlider* d0 = s->directionSlider(0);
        QVERIFY(d0);
        QCOMPARE(s->valueText(d0), QString("+0.00"));
        d0->setValue(125);
        QCOMPARE(s->valueText(d0), QString("+1.25"));
        QCOMPARE(s->findChild<QLabel*>("direction0Value")->text(), QString("+1.25"));
        QCOMPARE(directionAmount(*page_, 0), 1.25);
        d0->setValue(-50);
        QCOMPARE(s->valueText(d0), QString::fromUtf8("\u22120.50"));
        // Set back from the session (undo): the label follows too.
        page_->undoStack()->undo();
        QCOMPARE(d0->value(), 125);
        QCOMPARE(s->valueText(d0), QString("+1.25"));
        s->truncationSlider()->setValue(40);
        QCOMPARE(s->valueText(s->truncationSlider()), QString("0.40"));
        // Raw z sliders: "…" until the seed keyframe's vector is known, then its value.
        page_->selectKeyframe(0);
        page_->addRawDimension(4);
        QSlider* z4 = s->rawSlider(4);
        QVERIFY(z4);
        QTRY_VERIFY_WITH_TIMEOUT(s->valueText(z4) != QString("…"), streetgan::test::kWaitMs);
        z4->setValue(-225);
        QCOMPARE(s->valueText(z4), QString::fromUtf8("\u22122.25"));
    }

    void keysNudgeTheSelectedSlider() {
        QVERIFY(streetgan::test::openDemo(page_));
        LatentSliders* s = page_->sliders();
        QSlider* trunc = s->truncationSlider();
        QSlider* d0 = s->directionSlider(0);
        QSlider* d1 = s->directionSlider(1);
        QVERIFY(d0 && d1);
        QCOMPARE(s->selectedSlider(), trunc);  // selected at first, and marked
        QVERIFY(isMarked(trunc));
        // A key on a slider selects it and acts on it: Right is one small step (0.05).
        QTest::keyClick(d0, Qt::Key_Right);
        QCOMPARE(s->selectedSlider(), d0);
        QVERIFY(isMarked(d0));
        QVERIFY(!isMarked(trunc));
        QCOMPARE(d0->value(), LatentSliders::kSmallStep);
        QCOMPARE(directionAmount(*page_, 0), 0.05);
        QCOMPARE(s->valueText(d0), QString("+0.05"));
        QTest::keyClick(d0, Qt::Key_Right, Qt::ShiftModifier);
        QCOMPARE(d0->value(), LatentSliders::kSmallStep + LatentSliders::kBigStep);
        QCOMPARE(directionAmount(*page_, 0), 0.55);
        // PageDown moves the selection (and the mark) to the next slider; keys then act on it.
        QTest::keyClick(d0, Qt::Key_PageDown);
        QCOMPARE(s->selectedSlider(), d1);
        QVERIFY(isMarked(d1));
        QVERIFY(!isMarked(d0));
        QCOMPARE(d0->value(), 55);         // untouched by PageDown
        QTest::keyClick(s, Qt::Key_Left);  // the panel itself passes keys to the selected slider
        QCOMPARE(d1->value(), -LatentSliders::kSmallStep);
        QCOMPARE(directionAmount(*page_, 1), -0.05);

        // Every binding of the table, driven through QTest: its effect on the selected slider.
        enum class Effect { Add, Neutral, Previous, Next };
        struct Expected {
            Effect effect;
            int delta;
        };
        const QHash<int, Expected> expected{
            {QKeyCombination(Qt::Key_Left).toCombined(), {Effect::Add, -LatentSliders::kSmallStep}},
            {QKeyCombination(Qt::Key_Down).toCombined(), {Effect::Add, -LatentSliders::kSmallStep}},
            {QKeyCombination(Qt::Key_Right).toCombined(), {Effect::Add, LatentSliders::kSmallStep}},
            {QKeyCombination(Qt::Key_Up).toCombined(), {Effect::Add, LatentSliders::kSmallStep}},
            {(Qt::SHIFT | Qt::Key_Left).toCombined(), {Effect::Add, -LatentSliders::kBigStep}},
            {(Qt::SHIFT | Qt::Key_Down).toCombined(), {Effect::Add, -LatentSliders::kBigStep}},
            {(Qt::SHIFT | Qt::Key_Right).toCombined(), {Effect::Add, LatentSliders::kBigStep}},
            {(Qt::SHIFT | Qt::Key_Up).toCombined(), {Effect::Add, LatentSliders::kBigStep}},
            {QKeyCombination(Qt::Key_Home).toCombined(), {Effect::Neutral, 0}},
            {QKeyCombination(Qt::Key_PageUp).toCombined(), {Effect::Previous, 0}},
            {QKeyCombination(Qt::Key_PageDown).toCombined(), {Effect::Next, 0}},
        };
        const QList<LatentSliders::KeyBinding> bindings = LatentSliders::keyBindings();
        QVERIFY(!bindings.isEmpty());
        int driven = 0;
        for (const LatentSliders::KeyBinding& b : bindings) {
            QVERIFY(!b.keys.isEmpty());
            QVERIFY(!b.description.isEmpty());
            QVERIFY(!b.combinations.isEmpty());
            for (const QKeyCombination& c : b.combinations) {
                QVERIFY2(expected.contains(c.toCombined()), qPrintable("a binding this test does not know: " + b.keys));
                const Expected e = expected.value(c.toCombined());
                // Both a direction and psi (its neutral value is 1, not 0), from the middle of their ranges.
                for (QSlider* target : {d1, trunc}) {
                    s->selectSlider(target);
                    target->setValue(target == trunc ? 60 : 120);
                    const int before = target->value();
                    const int at = static_cast<int>(s->orderedSliders().indexOf(target));
                    QTest::keyClick(target, c.key(), c.keyboardModifiers());
                    const QString what = b.keys + " on " + target->objectName();
                    switch (e.effect) {
                        case Effect::Add:
                            QVERIFY2(target->value() == before + e.delta, qPrintable(what));
                            break;
                        case Effect::Neutral:
                            QVERIFY2(target->value() == s->neutralValue(target), qPrintable(what));
                            break;
                        case Effect::Previous:
                        case Effect::Next: {
                            const int want = std::max(0, at + (e.effect == Effect::Next ? 1 : -1));
                            QVERIFY2(s->selectedSlider() == s->orderedSliders().at(want), qPrintable(what));
                            QVERIFY2(target->value() == before, qPrintable(what));
                            QVERIFY(isMarked(s->selectedSlider()));
                            break;
                        }
                    }
                    ++driven;
                }
            }
        }
        QCOMPARE(driven, 2 * static_cast<int>(expected.size()));
        QCOMPARE(s->neutralValue(trunc), LatentSliders::kSteps);  // Home on psi: 1.0
        s->selectSlider(trunc);
        trunc->setValue(30);
        QTest::keyClick(trunc, Qt::Key_Home);
        QCOMPARE(F::number(page_->session(), "truncation"), 1.0);
        // A key press is one undo step.
        const int steps = page_->undoStack()->count();
        QTest::keyClick(trunc, Qt::Key_Left);
        QCOMPARE(page_->undoStack()->count(), steps + 1);
    }

    void achievedFrameRateWhilePlaying() {
        QVERIFY(streetgan::test::openDemo(page_));
        WalkPreview* p = page_->walkPreview();
        auto* readout = page_->findChild<QLabel*>("measuredFps");
        QVERIFY(readout);
        QCOMPARE(readout->text(), QString("—"));
        QCOMPARE(p->achievedFps(), 0.0);
        page_->setPlaying(true);
        QTRY_VERIFY_WITH_TIMEOUT(p->achievedFps() > 0, streetgan::test::kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(readout->text().endsWith(" fps"), streetgan::test::kWaitMs);
        bool ok = false;
        const double shown = readout->text().section(' ', 0, 0).toDouble(&ok);
        QVERIFY2(ok && shown > 0, qPrintable(readout->text()));
        page_->sliders()->directionSlider(0)->setValue(125);  // a marked slider with a value, for the picture
        page_->sliders()->selectSlider(page_->sliders()->directionSlider(0));
        page_->grab().save(shotPath("h5_explorer_playing.png"));
        qInfo("achieved %s at a %.1f fps target", qPrintable(readout->text()), 1000.0 / F::integer32(page_->session(), "frame_delay_ms"));
        page_->setPlaying(false);
        QCOMPARE(readout->text(), QString("—"));
        QCOMPARE(p->fpsText(), QString("—"));
        QCOMPARE(p->achievedFps(), 0.0);
        QVERIFY(page_->measuredFps() > 0);  // the last rate stays readable
    }

    void exportSummaryFollowsTheOptions() {
        QVERIFY(streetgan::test::openDemo(page_));
        QPointer<ExportDialog> d = page_->showExportDialog();
        QVERIFY(d);
        auto* label = d->findChild<QLabel*>("exportSummary");
        QVERIFY(label);
        d->setOutputPath(tmp_.filePath("walk.gif"));
        // walk.json: 4 keyframes x 12 frames, loop: 48 frames of 80 ms = 3.84 s, 128 px.
        QString t = label->text();
        QCOMPARE(t, d->summaryText());
        for (const char* part : {"GIF", "128 × 128 px", "48 frames", "3.84 s", "12.5 fps", "loops forever"})
            QVERIFY2(t.contains(QString::fromUtf8(part)), qPrintable(t));
        QCOMPARE(d->session().frameCount(), 48);  // the export's own rule
        d->grab().save(shotPath("h5_export.png"));
        // Live: every option changes the line at once.
        d->loopBox()->setChecked(false);  // (4 - 1) x 12 + 1
        t = label->text();
        QVERIFY2(t.contains("37 frames") && t.contains("2.96 s"), qPrintable(t));
        d->framesPerSegmentBox()->setValue(8);
        QVERIFY2(label->text().contains("25 frames") && label->text().contains("2.00 s"), qPrintable(label->text()));
        d->sizeBox()->setValue(64);
        QVERIFY2(label->text().contains("64 × 64 px"), qPrintable(label->text()));
        d->delayBox()->setValue(40);
        QVERIFY2(label->text().contains("1.00 s at 25.0 fps"), qPrintable(label->text()));
        d->loopCountBox()->setValue(3);
        QVERIFY2(label->text().contains("plays 3 times"), qPrintable(label->text()));
        // A GIF stores centiseconds: 45 ms is written as 50 ms.
        d->delayBox()->setValue(45);
        QVERIFY2(label->text().contains("1.25 s"), qPrintable(label->text()));
        QVERIFY(d->loopCountBox()->isEnabled());
        // WebP stores milliseconds (25 x 45 ms = 1.125 s, not 1.25 s) and loops like the GIF.
        d->setOutputPath(tmp_.filePath("walk.webp"));
        QVERIFY2(
            label->text().startsWith("WebP") && label->text().contains("plays 3 times") && label->text().contains(" 1.1") && !label->text().contains("1.25 s"),
            qPrintable(label->text()));
        QVERIFY(d->loopCountBox()->isEnabled());
        // The PNG grid: its layout's pixel size (the exporter's grid test: 48 frames, 12 per row).
        d->setOutputPath(tmp_.filePath("grid.png"));
        d->loopBox()->setChecked(true);
        d->framesPerSegmentBox()->setValue(12);
        d->nrowBox()->setValue(12);
        d->paddingBox()->setValue(3);
        t = label->text();
        QVERIFY2(t.contains("PNG grid") && t.contains("807 × 271 px") && t.contains("48 frames"), qPrintable(t));
        d->setOutputPath(tmp_.filePath("walk.mp4"));
        d->sizeBox()->setValue(65);
        QVERIFY2(label->text().contains("MP4") && label->text().contains("even size"), qPrintable(label->text()));
        QVERIFY(!d->loopCountBox()->isEnabled());  // a video file has no loop count
        d->setOutputPath(tmp_.filePath("frames") + "/");
        QVERIFY2(label->text().contains("48 files"), qPrintable(label->text()));
        // The walk options of an export become the session's (one undo step) when it starts.
        QSignalSpy done(d.data(), &ExportDialog::exportFinished);
        d->setOutputPath(tmp_.filePath("small.gif"));
        d->sizeBox()->setValue(16);
        d->framesPerSegmentBox()->setValue(2);
        d->loopBox()->setChecked(false);
        QVERIFY2(label->text().contains("7 frames"), qPrintable(label->text()));
        QVERIFY(d->startExport());
        QVERIFY(done.wait(streetgan::test::kWaitMs) || !done.isEmpty());
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        QVERIFY2(d->errorLine().contains("7 frames"), qPrintable(d->errorLine()));  // the worker wrote what the summary said
        QCOMPARE(F::integer32(page_->session(), "frames_per_segment"), 2);
        QCOMPARE(page_->session().at("loop").get<bool>(), false);
        QCOMPARE(page_->frameCount(), 7);
        d->close();
        QTRY_VERIFY(d.isNull());
    }

    void compactAt760AndThreeColumnsAt1400() {
        QVERIFY(streetgan::test::openDemo(page_));
        QVERIFY2(page_->minimumSizeHint().width() <= 760, qPrintable(QString::number(page_->minimumSizeHint().width())));
        page_->resize(760, 760);
        QTRY_VERIFY(page_->isCompact());
        QCOMPARE(page_->width(), 760);
        QVERIFY2(page_->minimumSizeHint().width() <= 760, qPrintable(QString::number(page_->minimumSizeHint().width())));
        qInfo("minimum width: %d px (compact)", page_->minimumSizeHint().width());
        auto* tabs = page_->findChild<QTabWidget*>("explorerSideTabs");
        QVERIFY(tabs && tabs->isVisible());
        QCOMPARE(tabs->count(), 2);
        // The preview keeps a usable square and the scrubber stays on screen.
        QTRY_VERIFY(page_->walkPreview()->width() >= 256);
        QVERIFY(!streetgan::test::frameAfter(
                     page_, [&] { page_->setCurrentFrame(6); }, 6)
                     .isNull());
        QTest::qWait(300);  // thumbnails
        page_->grab().save(shotPath("h5_explorer_760.png"));
        tabs->setCurrentIndex(1);
        QVERIFY(page_->sliders()->isVisible());
        page_->grab().save(shotPath("h5_explorer_760_sliders.png"));
        page_->resize(1400, 860);
        QTRY_VERIFY(!page_->isCompact());
        QVERIFY(!tabs->isVisible());
        QVERIFY(page_->sliders()->isVisible());
        QVERIFY(page_->keyframeList()->isVisible());
        QVERIFY(page_->minimumSizeHint().width() <= 760);
        QTest::qWait(300);
        page_->grab().save(shotPath("h5_explorer_1400.png"));
        // And back: the panels move into the tabs again.
        page_->resize(800, 760);
        QTRY_VERIFY(page_->isCompact());
        QCOMPARE(tabs->count(), 2);
        page_->resize(1280, 780);
    }
};

QTEST_MAIN(ExplorerControlsTest)
#include "ExplorerControlsTest.moc"
