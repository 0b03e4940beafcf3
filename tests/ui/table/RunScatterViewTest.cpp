// RunScatterView over a QStandardItemModel carrying the Runs table's roles, offscreen: a setting
// against an outcome mapped linearly and on a log scale (refused, with the reason, for values
// <= 0), runs lacking a value counted and not drawn, a categorical x, the model's changes
// followed, a click on a point emitting its run's key, highlighted runs drawn larger (in the
// pixels), the hover tooltip naming the run; grabs in light and dark saved as PNGs to look at.
#include <QAction>
#include <QMenu>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <random>

#include "app/ThemeManager.h"
#include "table/RunScatterView.h"
#include "ui/table/TableViewsTestModel.h"

using namespace streetgan::ui;
using namespace streetgan::test;

namespace {

enum Column { Name, Lr, Preset, Fid, Delta };

void fill(QStandardItemModel& m) {
    m.clear();
    m.setHorizontalHeaderLabels({"run", "lr", "preset", "FID", "delta"});
    addRun(m, "key-0", "run-a", {num(1e-4), cat("tiny-32"), num(80), num(0)});
    addRun(m, "key-1", "run-b", {num(1e-3), cat("base-64"), num(20), num(-1)});
    addRun(m, "key-2", "run-c", {num(5e-4), cat("tiny-128"), num(45), num(2)});
    addRun(m, "key-3", "run-d", {num(2e-4), cat("base-64"), none(), num(3)});
}

// Where a point sits between the points of the least (0) and the greatest (1) value, per axis.
double fraction(double v, double lo, double hi) { return (v - lo) / (hi - lo); }

}  // namespace

class RunScatterViewTest : public QObject {
    Q_OBJECT
    QStandardItemModel model_;
    std::unique_ptr<RunScatterView> view_;

private slots:
    void init() {
        fill(model_);
        view_ = std::make_unique<RunScatterView>();
        view_->resize(600, 420);
        view_->setModel(&model_);
        view_->setColumns(Lr, Fid);
        view_->show();
        QVERIFY(QTest::qWaitForWindowExposed(view_.get()));
    }
    void cleanup() { view_.reset(); }

    void linearMapping() {
        const QPointF a = view_->pointOf(0), b = view_->pointOf(1), c = view_->pointOf(2);
        // x by lr: run-a the least, run-b the greatest; y by FID: run-b the least (lowest on screen).
        QVERIFY(a.x() < c.x() && c.x() < b.x());
        QVERIFY(b.y() > c.y() && c.y() > a.y());
        QVERIFY(std::abs(fraction(c.x(), a.x(), b.x()) - fraction(5e-4, 1e-4, 1e-3)) < 1e-9);
        QVERIFY(std::abs(fraction(c.y(), b.y(), a.y()) - fraction(45, 20, 80)) < 1e-9);
        for (const QPointF& p : {a, b, c}) QVERIFY(view_->plotRect().contains(p));
        QCOMPARE(view_->xAxis().title(), QString("lr"));
        QCOMPARE(view_->yAxis().title(), QString("FID"));
        // run-d has no FID: no point, and counted.
        QVERIFY(std::isnan(view_->pointOf(3).x()));
        QCOMPARE(view_->missingCount(), 1);
    }

    void logMapping() {
        QVERIFY(view_->setLog(Qt::Horizontal, true));
        QVERIFY(view_->isLog(Qt::Horizontal));
        const QPointF a = view_->pointOf(0), b = view_->pointOf(1), c = view_->pointOf(2);
        QVERIFY(std::abs(fraction(c.x(), a.x(), b.x()) - std::log10(5.0)) < 1e-9);
        QVERIFY(std::abs(fraction(c.y(), b.y(), a.y()) - fraction(45, 20, 80)) < 1e-9);  // y still linear
        QVERIFY(view_->setLog(Qt::Horizontal, false));
        QVERIFY(std::abs(fraction(view_->pointOf(2).x(), a.x(), b.x()) - fraction(5e-4, 1e-4, 1e-3)) < 1e-9);
    }

    void logRefused() {
        view_->setColumns(Lr, Delta);
        const QString why = view_->logRefusal(Qt::Vertical);
        QVERIFY2(why.contains("> 0") && why.contains("delta"), qPrintable(why));
        QVERIFY(!view_->setLog(Qt::Vertical, true));
        QVERIFY(!view_->isLog(Qt::Vertical));
        std::unique_ptr<QMenu> menu(view_->createMenu(nullptr));
        const QList<QAction*> actions = menu->actions();
        // x: log allowed; y: disabled, with the reason on the line under it.
        QVERIFY(actions.size() == 3 && actions[0]->isEnabled() && !actions[1]->isEnabled());
        QVERIFY(actions[1]->text().contains("'delta'"));
        QCOMPARE(actions[1]->toolTip(), why);
        QVERIFY(actions[2]->text().contains("needs every value > 0"));
        actions[0]->trigger();
        QVERIFY(view_->isLog(Qt::Horizontal));
    }

    void categoricalX() {
        view_->setColumns(Preset, Fid);
        QCOMPARE(view_->xAxis().kind(), ColumnAxis::Kind::Categorical);
        // base-64 (run-b), tiny-32 (run-a), tiny-128 (run-c), evenly spaced.
        const double b = view_->pointOf(1).x(), a = view_->pointOf(0).x(), c = view_->pointOf(2).x();
        QVERIFY(b < a && a < c);
        QVERIFY(std::abs((a - b) - (c - a)) < 1e-9);
        QVERIFY(view_->logRefusal(Qt::Horizontal).contains("not numeric"));
    }

    void followsTheModel() {
        const QPointF before = view_->pointOf(2);
        setNumber(model_, 2, Fid, 10);  // run-c now the least FID: the lowest point
        QVERIFY(view_->pointOf(2).y() > before.y());
        QVERIFY(view_->pointOf(2).y() > view_->pointOf(1).y());
        setNumber(model_, 3, Fid, 50);  // run-d gets its FID: drawn
        QCOMPARE(view_->missingCount(), 0);
        QVERIFY(!std::isnan(view_->pointOf(3).x()));
        addRun(model_, "key-4", "run-e", {num(2e-3), cat("x"), num(30), num(1)});
        QCOMPARE(view_->xAxis().max(), 2e-3);
        QVERIFY(view_->pointOf(4).x() > view_->pointOf(1).x());
        model_.removeRows(0, 4);
        QCOMPARE(view_->xAxis().rows(), 1);
        QVERIFY(view_->rowToolTip(0).startsWith("run-e"));
        model_.clear();
        QVERIFY(std::isnan(view_->pointOf(0).x()));
        QCOMPARE(view_->xAxis().kind(), ColumnAxis::Kind::Empty);
    }

    void clickEmitsTheKey() {
        QSignalSpy clicked(view_.get(), &RunScatterView::rowClicked);
        QTest::mouseClick(view_.get(), Qt::LeftButton, {}, view_->pointOf(2).toPoint());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked[0][0].toString(), QString("key-2"));
        QTest::mouseClick(view_.get(), Qt::LeftButton, {}, view_->pointOf(1).toPoint() + QPoint(2, -1));
        QCOMPARE(clicked.count(), 2);
        QCOMPARE(clicked[1][0].toString(), QString("key-1"));
        // Away from every point: nothing.
        QTest::mouseClick(view_.get(), Qt::LeftButton, {}, QPoint(3, 3));
        QCOMPARE(clicked.count(), 2);
    }

    void highlightedDrawnLarger() {
        const QPoint p = view_->pointOf(2).toPoint();
        const QPoint ring = p + QPoint(6, 0);  // outside a plain point (radius 4), inside a highlighted one (7)
        const QColor base = view_->palette().color(QPalette::Base);
        QCOMPARE(view_->grab().toImage().pixelColor(ring).rgb(), base.rgb());
        view_->setHighlighted({"key-2"});
        QCOMPARE(view_->radiusOf(2), 7.0);
        QCOMPARE(view_->radiusOf(1), 4.0);
        QVERIFY(view_->grab().toImage().pixelColor(ring).rgb() != base.rgb());
    }

    void hoverNamesTheRun() {
        QCOMPARE(view_->rowAt(view_->pointOf(0).toPoint() + QPoint(3, 3)), 0);
        QCOMPARE(view_->rowAt(QPoint(3, 3)), -1);
        const QString tip = view_->rowToolTip(0);
        QVERIFY2(tip.startsWith("run-a") && tip.contains("lr: 0.0001") && tip.contains("FID: 80"), qPrintable(tip));
    }

    // A thousand runs, x on a log scale, coloured by preset, two selected: PNGs to look at.
    void screenshots() {
        QStandardItemModel big;
        big.setHorizontalHeaderLabels({"run", "lr", "preset", "FID", "delta"});
        std::mt19937 rng(5);
        std::normal_distribution<double> noise(0, 6);
        const char* presets[] = {"tiny-32", "base-64", "wide-128"};
        for (int r = 0; r < 1000; ++r) {
            const double lr = std::pow(10.0, -5 + 3.0 * r / 1000);
            const double fid = 30 + 8 * std::pow(std::log10(lr) + 3.5, 2) + 10 * (r % 3) + noise(rng);
            addRun(big, QString("key-%1").arg(r), QString("run-%1").arg(r), {num(lr), cat(presets[r % 3]), r % 50 == 0 ? none() : num(fid), num(1)});
        }
        RunScatterView v;
        v.resize(720, 440);
        v.setModel(&big);
        v.setColumns(Lr, Fid);
        v.setColourColumn(Preset);
        QVERIFY(v.setLog(Qt::Horizontal, true));
        v.setHighlighted({"key-300", "key-301"});
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QCOMPARE(v.missingCount(), 20);
        QVERIFY(v.grab().save("/tmp/run-scatter-light.png"));
        v.setPalette(ThemeManager::darkPalette());
        QVERIFY(v.grab().save("/tmp/run-scatter-dark.png"));
    }
};

QTEST_MAIN(RunScatterViewTest)
#include "RunScatterViewTest.moc"
