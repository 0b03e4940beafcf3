// ParallelCoordinatesView over a QStandardItemModel carrying the Runs table's roles, offscreen:
// axis ranges and ticks, the log scale (decades; refused with the reason, in the axis menu too,
// when a value is <= 0 or the column is categorical), flip, categorical axes (evenly spaced, in
// natural order), missing values on the "n/a" tick, brushing by synthesized mouse drags (the
// interval emitted, runs outside drawn faint, several axes ANDed, a click and a double-click
// clearing), the model's changes followed (rows added and removed, values changed, reset),
// highlighted runs drawn bold on top (in the pixels), the hover tooltip naming the run; a grab of
// a 1,000-run, 12-axis view in light and dark saved as PNGs to look at.
#include <QAction>
#include <QElapsedTimer>
#include <QMenu>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <random>

#include "app/ThemeManager.h"
#include "table/ColourScale.h"
#include "table/ParallelCoordinatesView.h"
#include "ui/table/TableViewsTestModel.h"

using namespace streetgan::ui;
using namespace streetgan::test;

namespace {

enum Column { Name, Lr, Preset, Fid, Beta1, Delta };

// Four runs: lr (1e-4 ... 1e-3), preset (categorical), FID, beta1 (one missing), delta (0 and < 0).
void fill(QStandardItemModel& m) {
    m.clear();
    m.setHorizontalHeaderLabels({"run", "lr", "preset", "FID", "beta1", "delta"});
    addRun(m, "key-0", "run-a", {num(1e-4), cat("tiny-32"), num(80), num(0.5), num(0)});
    addRun(m, "key-1", "run-b", {num(1e-3), cat("base-64"), num(20), none(), num(-1)});
    addRun(m, "key-2", "run-c", {num(5e-4), cat("tiny-128"), num(45), num(0.0), num(2)});
    addRun(m, "key-3", "run-d", {num(2e-4), cat("base-64"), num(60), num(0.9), num(3)});
}

// The y of `value` on axis `column` as the view draws it.
double yOf(const ParallelCoordinatesView& v, int column, double value) {
    const QRectF r = v.plotRect();
    return r.bottom() - v.axis(column)->position(value) * r.height();
}

// Pixels of `image` exactly `c` (opaque): a bold line's core, never a translucent one.
int countColour(const QImage& image, const QColor& c) {
    int n = 0;
    const QImage img = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) n += img.pixelColor(x, y) == c;
    return n;
}

}  // namespace

class ParallelCoordinatesViewTest : public QObject {
    Q_OBJECT
    QStandardItemModel model_;
    std::unique_ptr<ParallelCoordinatesView> view_;

private slots:
    void init() {
        fill(model_);
        view_ = std::make_unique<ParallelCoordinatesView>();
        view_->resize(800, 400);
        view_->setModel(&model_);
        view_->setAxes({Lr, Preset, Beta1, Fid});
        view_->show();
        QVERIFY(QTest::qWaitForWindowExposed(view_.get()));
    }
    void cleanup() { view_.reset(); }

    void axisRangesAndTicks() {
        const ColumnAxis* lr = view_->axis(Lr);
        QVERIFY(lr);
        QCOMPARE(lr->title(), QString("lr"));
        QCOMPARE(lr->kind(), ColumnAxis::Kind::Numeric);
        QCOMPARE(lr->min(), 1e-4);
        QCOMPARE(lr->max(), 1e-3);
        // The least value at the axis' bottom, the greatest at its top, the axes left to right.
        const QRectF r = view_->plotRect();
        QCOMPARE(view_->polyline(0)[0].y(), r.bottom());
        QCOMPARE(view_->polyline(1)[0].y(), r.top());
        QCOMPARE(view_->polyline(0).size(), 4);
        QVERIFY(view_->axisX(Lr) < view_->axisX(Preset) && view_->axisX(Beta1) < view_->axisX(Fid));
        QCOMPARE(view_->axisX(Lr), r.left());
        QCOMPARE(view_->axisX(Fid), r.right());
        // Ticks on round numbers inside the range: FID 20 ... 80 in steps of 10 or 20.
        const auto ticks = view_->axis(Fid)->ticks(5);
        QVERIFY(ticks.size() >= 3);
        for (const auto& t : ticks) {
            QVERIFY2(t.position >= -1e-9 && t.position <= 1 + 1e-9, qPrintable(t.label));
            QCOMPARE(std::fmod(t.label.toDouble(), 10.0), 0.0);
        }
        QCOMPARE(ticks.front().label, QString("20"));
        QCOMPARE(ticks.back().label, QString("80"));
    }

    void logScaleInDecades() {
        QVERIFY(view_->axisLogRefusal(Lr).isEmpty());
        QVERIFY(view_->setAxisLog(Lr, true));
        QVERIFY(view_->axisLog(Lr));
        const ColumnAxis* lr = view_->axis(Lr);
        QCOMPARE(lr->position(1e-4), 0.0);
        QCOMPARE(lr->position(1e-3), 1.0);
        // 2e-4 sits at log10(2) of the decade, not at 1/9 of it as on a linear scale.
        QVERIFY(std::abs(lr->position(2e-4) - std::log10(2.0)) < 1e-9);
        QVERIFY(std::abs(view_->polyline(3)[0].y() - yOf(*view_, Lr, 2e-4)) < 1e-9);
        QStringList labels;
        for (const auto& t : lr->ticks(6)) labels << t.label;
        // One decade: 2 and 5 times its powers of ten too.
        QCOMPARE(labels, QStringList({"0.0001", "0.0002", "0.0005", "0.001"}));
        view_->setAxes({Lr, Fid});
        addRun(model_, "key-4", "run-e", {num(1e-7), cat("x"), num(1), num(1), num(1)});
        labels.clear();
        for (const auto& t : view_->axis(Lr)->ticks(6)) labels << t.label;
        QCOMPARE(labels, QStringList({"1e-07", "1e-06", "1e-05", "0.0001", "0.001"}));
        for (const auto& t : view_->axis(Lr)->ticks(3)) labels << t.label;
        QCOMPARE(labels.mid(5), QStringList({"1e-07", "1e-05", "0.001"}));  // every second decade
        QVERIFY(view_->setAxisLog(Lr, false));
        QVERIFY(!view_->axisLog(Lr));
    }

    void logScaleRefused() {
        view_->setAxes({Lr, Delta, Preset});
        const QString why = view_->axisLogRefusal(Delta);
        QVERIFY2(why.contains("> 0") && why.contains("delta") && why.contains("2 run(s)"), qPrintable(why));
        QVERIFY(!view_->setAxisLog(Delta, true));
        QVERIFY(!view_->axisLog(Delta));
        QVERIFY(view_->axisLogRefusal(Preset).contains("not numeric"));
        QVERIFY(!view_->setAxisLog(Preset, true));
        // The axis menu offers no log scale there and says why.
        std::unique_ptr<QMenu> menu(view_->createAxisMenu(Delta, nullptr));
        QAction* log = menu->actions().value(0);
        QVERIFY(log && log->text() == "Log scale");
        QVERIFY(!log->isEnabled());
        QCOMPARE(log->toolTip(), why);
        QVERIFY(menu->actions().value(1)->text().contains("needs every value > 0"));
        // A value turning <= 0 under a log scale turns it off.
        view_->setAxes({Lr});
        QVERIFY(view_->setAxisLog(Lr, true));
        setNumber(model_, 0, Lr, 0);
        QVERIFY(!view_->axisLog(Lr));
    }

    void flip() {
        const QRectF r = view_->plotRect();
        view_->setAxisFlipped(Fid, true);
        QVERIFY(view_->axisFlipped(Fid));
        const int i = 3;  // FID is the fourth axis: its least value (20, run-b) now on top, its greatest at the bottom
        QCOMPARE(view_->polyline(1)[i].y(), r.top());
        QCOMPARE(view_->polyline(0)[i].y(), r.bottom());
        QCOMPARE(view_->polyline(0)[0].y(), r.bottom());  // the other axes unflipped
        QCOMPARE(view_->axis(Fid)->valueAt(1.0), 20.0);
        view_->setAxisFlipped(Fid, false);
        QCOMPARE(view_->polyline(1)[i].y(), r.bottom());
    }

    void categoricalAxis() {
        const ColumnAxis* preset = view_->axis(Preset);
        QCOMPARE(preset->kind(), ColumnAxis::Kind::Categorical);
        // Natural order: the number inside compares as a number (32 < 128).
        QCOMPARE(preset->categories(), QStringList({"base-64", "tiny-32", "tiny-128"}));
        // Evenly spaced, half a step in from the ends.
        QCOMPARE(preset->rowPosition(1), 1.0 / 6);
        QCOMPARE(preset->rowPosition(0), 3.0 / 6);
        QCOMPARE(preset->rowPosition(2), 5.0 / 6);
        QCOMPARE(preset->rowPosition(3), preset->rowPosition(1));
        QCOMPARE(view_->polyline(2)[1].y(), yOf(*view_, Preset, 2));
        QStringList labels;
        for (const auto& t : preset->ticks(5)) labels << t.label;
        QCOMPARE(labels, preset->categories());
        // A brush over it holds category indices; the names inside it, for the table's filter.
        view_->setBrush(Preset, 0.6, 2.2);
        QCOMPARE(view_->brushedCategories(Preset), QStringList({"tiny-32", "tiny-128"}));
        QVERIFY(!view_->rowInBrush(1) && view_->rowInBrush(0) && view_->rowInBrush(2));
        view_->setBrush(Fid, 0, 100);
        QVERIFY(view_->brushedCategories(Fid).isEmpty());
    }

    void missingValueOnTheNaTick() {
        // run-b has no beta1: its line goes to the "n/a" tick below the axes; beta1 0.0 is a value.
        QCOMPARE(view_->polyline(1)[2].y(), view_->missingY());
        QVERIFY(view_->missingY() > view_->plotRect().bottom());
        QCOMPARE(view_->polyline(2)[2].y(), view_->plotRect().bottom());
        QVERIFY(view_->rowToolTip(1).contains("beta1: n/a"));
    }

    void brushByDragging() {
        QSignalSpy changed(view_.get(), &ParallelCoordinatesView::brushChanged);
        QSignalSpy cleared(view_.get(), &ParallelCoordinatesView::brushCleared);
        const QRectF r = view_->plotRect();
        const int x = static_cast<int>(std::lround(view_->axisX(Fid)));
        // Drag FID's axis from just above its top (80: the brush stops at the axis' end) down to its middle (50).
        const QPoint from(x, static_cast<int>(r.top()) - 4), to(x, static_cast<int>(std::lround(r.center().y())));
        QTest::mousePress(view_.get(), Qt::LeftButton, {}, from);
        QTest::mouseMove(view_.get(), QPoint(x, from.y() + 20));
        QTest::mouseMove(view_.get(), to);
        QTest::mouseRelease(view_.get(), Qt::LeftButton, {}, to);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed[0][0].toInt(), int(Fid));
        const double lo = changed[0][1].toDouble(), hi = changed[0][2].toDouble();
        const double pixel = 60.0 / r.height();  // FID per pixel
        QVERIFY2(std::abs(lo - 50) <= pixel && hi == 80, qPrintable(QString("%1 %2").arg(lo).arg(hi)));
        QVERIFY(view_->hasBrush(Fid));
        // Inside: FID 80 and 60; outside, drawn faint: 20 and 45.
        QVERIFY(view_->rowInBrush(0) && view_->rowInBrush(3));
        QVERIFY(!view_->rowInBrush(1) && !view_->rowInBrush(2));
        QCOMPARE(view_->rowStyle(1), ParallelCoordinatesView::RowStyle::Faint);
        QCOMPARE(view_->rowStyle(0), ParallelCoordinatesView::RowStyle::Normal);
        // A second axis: runs must be inside both (lr 1e-4 ... 1.5e-4 keeps run-a only).
        view_->setBrush(Lr, 0, 1.5e-4);
        QCOMPARE(changed.count(), 2);
        QVERIFY(view_->rowInBrush(0) && !view_->rowInBrush(3));
        // A click on the FID axis clears its brush; a double-click clears lr's.
        QTest::mouseClick(view_.get(), Qt::LeftButton, {}, QPoint(x, static_cast<int>(r.center().y())));
        QCOMPARE(cleared.count(), 1);
        QCOMPARE(cleared[0][0].toInt(), int(Fid));
        QVERIFY(!view_->hasBrush(Fid));
        QVERIFY(view_->rowInBrush(3) == false && view_->rowInBrush(0));
        const QPoint onLr(static_cast<int>(std::lround(view_->axisX(Lr))), static_cast<int>(r.center().y()));
        QTest::mouseDClick(view_.get(), Qt::LeftButton, {}, onLr);
        QVERIFY(!view_->hasBrush(Lr));
        QCOMPARE(cleared.count(), 2);
        for (int row = 0; row < 4; ++row) QVERIFY(view_->rowInBrush(row));
        // A brush on a missing value: run-b (beta1 n/a) is outside any beta1 brush.
        view_->setBrush(Beta1, -10, 10);
        QVERIFY(!view_->rowInBrush(1) && view_->rowInBrush(2));
        // An axis taken away takes its brush.
        view_->setAxes({Lr, Fid});
        QCOMPARE(cleared.count(), 3);
        QVERIFY(view_->rowInBrush(1));
    }

    void followsTheModel() {
        QCOMPARE(view_->axis(Fid)->max(), 80.0);
        addRun(model_, "key-4", "run-e", {num(3e-4), cat("huge-256"), num(95), num(0.1), num(1)});
        QCOMPARE(view_->polyline(4).size(), 4);
        QCOMPARE(view_->axis(Fid)->max(), 95.0);
        QCOMPARE(view_->axis(Preset)->categories().size(), 4);
        QCOMPARE(view_->polyline(4)[3].y(), view_->plotRect().top());
        setNumber(model_, 4, Fid, 50);  // dataChanged: run-a's 80 is the top again
        QCOMPARE(view_->axis(Fid)->max(), 80.0);
        QCOMPARE(view_->polyline(0)[3].y(), view_->plotRect().top());
        model_.removeRows(0, 2);
        QCOMPARE(view_->polyline(2).size(), 4);
        QVERIFY(view_->polyline(3).isEmpty());
        QCOMPARE(view_->axis(Fid)->min(), 45.0);
        QVERIFY(view_->rowToolTip(0).startsWith("run-c"));
        model_.clear();  // a reset
        QVERIFY(view_->polyline(0).isEmpty());
        QCOMPARE(view_->axis(Fid)->kind(), ColumnAxis::Kind::Empty);
        fill(model_);
        QCOMPARE(view_->axis(Fid)->max(), 80.0);
        QCOMPARE(view_->polyline(3).size(), 4);
    }

    void highlightedDrawnBoldOnTop() {
        // No colour column: every line in the palette's highlight colour, translucent unless bold.
        const QColor c = view_->palette().color(QPalette::Highlight);
        const int before = countColour(view_->grab().toImage(), c);
        view_->setHighlighted({"key-2"});
        QCOMPARE(view_->rowStyle(2), ParallelCoordinatesView::RowStyle::Highlighted);
        QCOMPARE(view_->rowStyle(0), ParallelCoordinatesView::RowStyle::Normal);
        const QImage after = view_->grab().toImage();
        QVERIFY2(countColour(after, c) > before + 200, qPrintable(QString("%1 -> %2").arg(before).arg(countColour(after, c))));
        // On top: the middle of run-c's first segment is its colour, whatever crosses it.
        const QPolygonF line = view_->polyline(2);
        const QPointF mid = (line[0] + line[1]) / 2;
        const QColor at = after.pixelColor(mid.toPoint());
        QVERIFY2(std::abs(at.red() - c.red()) + std::abs(at.green() - c.green()) + std::abs(at.blue() - c.blue()) < 12, qPrintable(at.name()));
        // Highlighted even outside the brush.
        view_->setBrush(Fid, 70, 90);
        QCOMPARE(view_->rowStyle(2), ParallelCoordinatesView::RowStyle::Highlighted);
        QCOMPARE(view_->rowStyle(3), ParallelCoordinatesView::RowStyle::Faint);
    }

    void hoverNamesTheNearestRun() {
        const QPolygonF line = view_->polyline(3);
        const QPoint mid = ((line[2] + line[3]) / 2).toPoint();
        QCOMPARE(view_->rowAt(mid), 3);
        QCOMPARE(view_->rowAt(mid + QPoint(0, 2)), 3);
        const QString tip = view_->rowToolTip(3);
        QVERIFY2(tip.startsWith("run-d") && tip.contains("FID: 60") && tip.contains("preset: base-64"), qPrintable(tip));
        QCOMPARE(view_->rowAt(QPoint(2, 2)), -1);  // far from every line
        QCOMPARE(view_->axisAt(QPoint(static_cast<int>(view_->axisX(Preset)), 10)), int(Preset));
    }

    // A thousand runs over twelve axes (the scale the view is made for), coloured by the outcome,
    // with a brush and a selection, grabbed in the light and the dark palette: PNGs to look at.
    void largeViewScreenshots() {
        QStandardItemModel big;
        QStringList headers{"run", "preset"};
        for (int k = 1; k <= 10; ++k) headers << QString("setting %1").arg(k);
        headers << "FID";
        big.setHorizontalHeaderLabels(headers);
        std::mt19937 rng(3);
        std::uniform_real_distribution<double> u(0, 1);
        const char* presets[] = {"tiny-32", "base-64", "wide-128"};
        for (int r = 0; r < 1000; ++r) {
            QVector<Cell> cells{cat(presets[r % 3])};
            for (int k = 1; k <= 10; ++k) cells << (k == 4 && r % 17 == 0 ? none() : num(k == 1 ? std::pow(10.0, -5 + 3 * u(rng)) : k * u(rng)));
            cells << num(10 + 90 * u(rng) + 20 * std::sin(r));
            addRun(big, QString("key-%1").arg(r), QString("run-%1").arg(r), cells);
        }
        ParallelCoordinatesView v;
        v.resize(1200, 480);
        v.setModel(&big);
        QVector<int> axes;
        for (int c = 1; c <= 12; ++c) axes << c;
        v.setAxes(axes);
        v.setColourColumn(12);
        QVERIFY(v.setAxisLog(2, true));
        v.setAxisFlipped(12, true);
        v.setBrush(12, 20, 50);
        v.setHighlighted({"key-5", "key-77"});
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QCOMPARE(v.polyline(999).size(), 12);
        // How long a change costs (layout and drawing) and a repaint from the cache: printed, not
        // checked (the suite runs on busy machines).
        QElapsedTimer clock;
        clock.start();
        QVector<qint64> changedMs;
        for (int k = 0; k < 3; ++k) {
            v.setHighlighted({"key-5", "key-77", QString("key-%1").arg(k)});
            v.grab();
            changedMs << clock.restart();
        }
        v.grab();
        qInfo("1,000 runs x 12 axes: %lld, %lld, %lld ms to redraw after a change, %lld ms to repaint from the cache", changedMs[0], changedMs[1], changedMs[2],
              clock.elapsed());
        QVERIFY(v.grab().save("/tmp/parallel-coordinates-light.png"));
        v.setPalette(ThemeManager::darkPalette());
        QVERIFY(v.grab().save("/tmp/parallel-coordinates-dark.png"));
        // The legend's bar runs from the map's low colour to its high one.
        QCOMPARE(ColourScale::sequential(0), QColor(68, 1, 84));
        QCOMPARE(ColourScale::sequential(1), QColor(253, 231, 37));
    }
};

QTEST_MAIN(ParallelCoordinatesViewTest)
#include "ParallelCoordinatesViewTest.moc"
