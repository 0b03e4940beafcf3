// The Runs table's models on records built here (no runs on disk): RunsTableModel, RunsTableProxy,
// RunsGroupModel and SettingsTreeModel under QAbstractItemModelTester (Qt's checks of the model
// contract, failing the test on a violation) while rows are added, updated in place and removed;
// columns per setting and scalar, the per-column statistic, the differences-only decision, filters
// of each kind (range, list, regular expression, number, the filter box's terms and its errors),
// the multi-column sort and its header marks, grouping with mean/min/max/std, CSV export (numbers
// whole, quoting), the settings tree and the two-run diff, and a problem row kept with its tooltip.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#include "support/UiTestSupport.h"
#include "table/ColumnFilter.h"
#include "table/RunsCsv.h"
#include "table/RunsGroupModel.h"
#include "table/RunsTableModel.h"
#include "table/RunsTableProxy.h"
#include "table/RunsTableRoles.h"
#include "table/SettingsTreeModel.h"

using namespace streetgan;
using namespace streetgan::ui;

namespace {

ScalarStats stats(double last, double min, double max) {
    ScalarStats s;
    s.last = last;
    s.min = min;
    s.max = max;
    s.count = 3;
    return s;
}

RunRecord record(const std::string& name, double lr, int seed, const std::string& preset, double swdLast) {
    RunRecord r;
    r.info.name = name;
    r.info.path = "/runs/" + name;
    r.info.state = "finished";
    r.info.step = 1000;
    r.info.totalSteps = 1000;
    r.kind = "ours";
    r.settings = {{"lr", lr}, {"seed", seed}, {"preset", preset}, {"betas", {0.5, 0.999}}, {"batch", 64}};
    r.wallSeconds = 3600;
    r.images = 64000;
    r.imagesPerSecond = 17.75;
    r.scalars["swd"] = stats(swdLast, swdLast - 0.1, swdLast + 0.2);
    r.scalars["loss_d"] = stats(0.5, 0.2, 1.5);
    r.best.checkpoint = "checkpoints/best.pt";
    r.best.metric = "swd";
    r.best.value = swdLast - 0.1;
    r.best.step = 800;
    r.best.scalars["swd"] = swdLast - 0.1;
    return r;
}

QStringList runsShown(const QAbstractItemModel& m) {
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r) out << m.index(r, RunsTableModel::Run).data().toString();
    return out;
}

}  // namespace

class RunsTableModelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        test::isolateSettings(dir_.path());
    }

    void rowsAndColumns() {
        RunsTableModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.upsert({}, {record("a", 1e-4, 1, "tiny-32", 0.5), record("b", 2e-4, 2, "tiny-32", 0.4)});
        QCOMPARE(m.rowCount(), 2);
        const int lr = m.columnOf("setting:lr"), swd = m.columnOf("scalar:swd");
        QVERIFY(lr >= RunsTableModel::FixedCount);
        QVERIFY(swd > lr);  // settings, then outcomes
        QCOMPARE(m.index(0, lr).data().toString(), QString("0.0001"));
        QCOMPARE(m.index(1, lr).data(RunsTableRoles::NumberRole).toDouble(), 2e-4);
        QCOMPARE(m.index(0, m.columnOf("setting:betas")).data().toString(), QString("[0.5,0.999]"));
        QCOMPARE(m.index(0, RunsTableModel::Steps).data().toString(), QString("1000 / 1000"));
        QCOMPARE(m.index(0, RunsTableModel::WallTime).data().toString(), QString("1 h 00 min"));
        QCOMPARE(m.index(0, RunsTableModel::Host).data().toString(), QString("this computer"));
        QCOMPARE(m.index(0, RunsTableModel::Run).data(RunsTableRoles::KeyRole).toString(), QString("/runs/a"));
        QVERIFY(m.index(0, RunsTableModel::Cost).data().toString().isEmpty());  // a local run is not billed
        QCOMPARE(m.bestCheckpointPath(0), QString("/runs/a/checkpoints/best.pt"));

        // The statistic of an outcome column, per column.
        QCOMPARE(m.index(0, swd).data(RunsTableRoles::NumberRole).toDouble(), 0.5);
        m.setStatistic(swd, RunsTableModel::Statistic::Min);
        QCOMPARE(m.index(0, swd).data(RunsTableRoles::NumberRole).toDouble(), 0.4);
        QCOMPARE(m.headerData(swd, Qt::Horizontal).toString(), QString("swd (min)"));
        m.setStatistic(swd, RunsTableModel::Statistic::Max);
        QCOMPARE(m.index(1, swd).data(RunsTableRoles::NumberRole).toDouble(), 0.6);
        m.setStatistic(swd, RunsTableModel::Statistic::AtBest);
        QCOMPARE(m.index(1, swd).data(RunsTableRoles::NumberRole).toDouble(), 0.4 - 0.1);
        QVERIFY(!m.index(0, m.columnOf("scalar:loss_d")).data().toString().isEmpty());

        // Updated in place: same key, same row, new values; a new setting adds a column.
        RunRecord a2 = record("a", 3e-4, 1, "tiny-32", 0.3);
        a2.settings["ema"] = 0.999;
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        m.upsert({}, {a2});
        QCOMPARE(inserted.count(), 0);
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.index(0, m.columnOf("setting:lr")).data(RunsTableRoles::NumberRole).toDouble(), 3e-4);
        QVERIFY(m.columnOf("setting:ema") > 0);
        QVERIFY(m.index(1, m.columnOf("setting:ema")).data().toString().isEmpty());

        // A remote host's runs: their own rows (key HOST:PATH) and a cost from the host's price.
        m.replaceSource("me@gpu:22", {record("a", 1e-4, 1, "tiny-32", 0.5)});
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.key(2), QString("me@gpu:22:/runs/a"));
        m.setHostPrice("me@gpu:22", 2.5);
        QCOMPARE(m.index(2, RunsTableModel::Cost).data().toString(), QString("$2.50"));
        QCOMPARE(m.index(2, RunsTableModel::Cost).data(RunsTableRoles::NumberRole).toDouble(), 2.5);
        // The host's next listing without the run removes its row, and only its.
        m.replaceSource("me@gpu:22", {});
        QCOMPARE(m.rowCount(), 2);
        m.removeSource({});
        QCOMPARE(m.rowCount(), 0);
    }

    void problemRowIsKeptWithItsTooltip() {
        RunsTableModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        RunRecord bad;
        bad.info.name = "broken";
        bad.info.path = "/runs/broken";
        bad.problems = {"run.json: not JSON (syntax error at byte 3)", "events.jsonl: 2 torn lines skipped"};
        m.upsert({}, {record("fine", 1e-4, 1, "tiny-32", 0.5), bad});
        QCOMPARE(m.rowCount(), 2);
        const QString tip = m.index(1, RunsTableModel::State).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains("run.json: not JSON") && tip.contains("torn lines"), qPrintable(tip));
        QVERIFY(m.index(1, RunsTableModel::Run).data(RunsTableRoles::ProblemsRole).toString().contains("run.json"));
        QVERIFY(!m.index(1, RunsTableModel::Run).data(Qt::DecorationRole).isNull());
        QVERIFY(m.index(0, RunsTableModel::Run).data(Qt::DecorationRole).isNull());
        QCOMPARE(m.index(1, RunsTableModel::Run).data().toString(), QString("broken"));
    }

    void relistingRepaintsOnlyWhatChanged() {
        RunsTableModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<RunRecord> runs{record("a", 1e-4, 1, "tiny-32", 0.5), record("b", 2e-4, 1, "tiny-32", 0.4), record("c", 3e-4, 1, "tiny-32", 0.3)};
        m.replaceSource({}, runs);
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.replaceSource({}, runs);  // the same listing again: nothing to repaint
        QCOMPARE(changed.count(), 0);
        // A queued Slurm run whose reason changed (no event written): its row only; the reason and
        // job in the state's tooltip, the cell the bare state (what filters match).
        runs[1].info.state = "queued";
        runs[1].info.slurmJob = "4242";
        runs[1].info.reason = "Priority";
        m.replaceSource({}, runs);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.last().at(0).toModelIndex().row(), 1);
        QCOMPARE(changed.last().at(1).toModelIndex().row(), 1);
        QCOMPARE(m.index(1, RunsTableModel::State).data().toString(), QString("queued"));
        QVERIFY(m.index(1, RunsTableModel::State).data(Qt::ToolTipRole).toString().contains("Slurm job 4242: Priority"));
        runs[1].info.reason = "Resources";
        m.replaceSource({}, runs);
        QCOMPARE(changed.count(), 2);
        // Gone runs leave, neighbours a block at a time, the rest keep their keys.
        m.replaceSource({}, {runs[1]});
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(m.rowOf(m.key(0)), 0);
        QCOMPARE(m.index(0, RunsTableModel::Run).data().toString(), QString("b"));
    }

    void differencesOnly() {
        RunsTableModel m;
        m.upsert({}, {record("a", 1e-4, 1, "tiny-32", 0.5), record("b", 1e-4, 2, "tiny-32", 0.4), record("c", 2e-4, 1, "small-64", 0.4)});
        RunRecord d = record("d", 1e-4, 3, "tiny-32", 0.4);
        d.settings.erase("batch");  // missing differs from any value
        m.upsert({}, {d});
        auto names = [&](const QList<int>& cols) {
            QStringList out;
            for (int c : cols) out << m.column(c).name;
            out.sort();
            return out;
        };
        QCOMPARE(names(m.uniformSettingColumns({0, 1})), QStringList({"batch", "betas", "lr", "preset"}));
        QCOMPARE(names(m.uniformSettingColumns({0, 2})), QStringList({"batch", "betas", "seed"}));
        QCOMPARE(names(m.uniformSettingColumns({0, 1, 3})), QStringList({"betas", "lr", "preset"}));
        QCOMPARE(m.uniformSettingColumns({0}).size(), 5);
    }

    void columnFilters() {
        QString error;
        QCOMPARE(ColumnFilter::parse("0.0001..0.001", &error).kind(), ColumnFilter::Kind::Range);
        QVERIFY(ColumnFilter::parse("0.0001..0.001").matches("0.0002", 2e-4));
        QVERIFY(!ColumnFilter::parse("0.0001..0.001").matches("0.002", 2e-3));
        QVERIFY(ColumnFilter::parse("..0.001").matches("x", -5));
        QVERIFY(!ColumnFilter::parse("0.1..").matches("", std::nan("")));
        QVERIFY(ColumnFilter::parse("tiny-32, small-64").matches("small-64", std::nan("")));
        QVERIFY(ColumnFilter::parse("1e-4,2e-4").matches("0.0002", 2e-4));
        QVERIFY(!ColumnFilter::parse("1e-4,2e-4").matches("0.0003", 3e-4));
        QVERIFY(ColumnFilter::parse("/^tiny-\\d+$/").matches("tiny-32", std::nan("")));
        QVERIFY(!ColumnFilter::parse("/^tiny-\\d+$/").matches("a-tiny-32", std::nan("")));
        QVERIFY(ColumnFilter::parse("TINY").matches("tiny-32", std::nan("")));
        QVERIFY(ColumnFilter::parse("0.0002").matches("0.0002", 0.0002));
        QVERIFY(!ColumnFilter::parse("0.0002").matches("0.00025", 0.00025));
        QVERIFY(!ColumnFilter::parse("/(/", &error).isActive());
        QVERIFY2(error.contains("not a valid regular expression"), qPrintable(error));
        QVERIFY(!ColumnFilter::parse("a..b", &error).isActive());
        QVERIFY2(error.contains("not a range"), qPrintable(error));
        QVERIFY(!ColumnFilter::parse("  ", &error).isActive());
        QVERIFY(error.isEmpty());
    }

    void proxyFiltersAndSorts() {
        RunsTableModel m;
        RunsTableProxy p(&m);
        QAbstractItemModelTester tester(&p, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.upsert({}, {record("run-10", 1e-4, 2, "tiny-32", 0.5), record("run-9", 2e-4, 1, "tiny-32", 0.4), record("run-2", 1e-4, 1, "small-64", 0.3)});
        RunRecord noLr = record("run-1", 0, 3, "small-64", 0.2);
        noLr.settings.erase("lr");
        m.upsert({}, {noLr});
        const int lr = m.columnOf("setting:lr"), seed = m.columnOf("setting:seed"), preset = m.columnOf("setting:preset");

        // Multi-column sort: lr ascending (blank last), then seed descending.
        p.addSortKey(lr, false);
        p.addSortKey(seed, true);
        p.addSortKey(seed, true);  // flips it
        QCOMPARE(runsShown(p), QStringList({"run-10", "run-2", "run-9", "run-1"}));
        QCOMPARE(p.headerData(lr, Qt::Horizontal).toString(), QString("lr ▲1"));
        QCOMPARE(p.headerData(seed, Qt::Horizontal).toString(), QString("seed ▼2"));
        // Descending lr keeps the blank last.
        p.setSortKeys({{lr, Qt::DescendingOrder}, {seed, Qt::AscendingOrder}});
        QCOMPARE(runsShown(p), QStringList({"run-9", "run-2", "run-10", "run-1"}));
        // Text sorts naturally.
        p.addSortKey(RunsTableModel::Run, false);
        QCOMPARE(runsShown(p), QStringList({"run-1", "run-2", "run-9", "run-10"}));
        QCOMPARE(p.headerData(RunsTableModel::Run, Qt::Horizontal).toString(), QString("Run ▲"));
        p.setSortKeys({});

        // Filters of each kind.
        QVERIFY(p.setColumnFilter(lr, "0.00015..0.001").isEmpty());
        QCOMPARE(runsShown(p), QStringList({"run-9"}));
        QVERIFY(p.setColumnFilter(lr, "").isEmpty());
        QVERIFY(p.setColumnFilter(preset, "/^small/").isEmpty());
        QCOMPARE(runsShown(p), QStringList({"run-2", "run-1"}));
        QVERIFY(!p.setColumnFilter(preset, "/(/").isEmpty());  // refused; the old filter stays
        QCOMPARE(p.rowCount(), 2);
        p.clearFilters();
        QVERIFY(p.setFilterText("seed = 1,3").isEmpty());
        QCOMPARE(runsShown(p), QStringList({"run-9", "run-2", "run-1"}));
        QVERIFY(p.setFilterText("seed = 1,3; preset = tiny-32").isEmpty());
        QCOMPARE(runsShown(p), QStringList({"run-9"}));
        QVERIFY(p.setFilterText("run-1").isEmpty());  // plain text: the run's name or host
        QCOMPARE(runsShown(p), QStringList({"run-10", "run-1"}));
        const QString err = p.setFilterText("nosuch = 3; seed = 2");
        QVERIFY2(err.contains("No column “nosuch”"), qPrintable(err));
        QCOMPARE(runsShown(p), QStringList({"run-10"}));  // the good term still applies
        p.clearFilters();
        QCOMPARE(p.rowCount(), 4);
    }

    void grouping() {
        RunsTableModel m;
        RunsTableProxy p(&m);
        RunsGroupModel g(&p);
        QAbstractItemModelTester tester(&g, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.upsert({}, {record("a", 1e-4, 1, "tiny-32", 0.5), record("b", 1e-4, 2, "tiny-32", 0.7), record("c", 1e-4, 3, "tiny-32", 0.9),
                      record("d", 2e-4, 1, "tiny-32", 0.4)});
        g.setGroupColumn(m.columnOf("setting:lr"));
        QCOMPARE(g.rowCount(), 2);
        QCOMPARE(g.groupValue(0), QString("0.0001"));
        QCOMPARE(g.runCount(0), 3);
        int swd = -1;
        for (int c = 2; c < g.columnCount(); ++c)
            if (g.tableColumn(c) == m.columnOf("scalar:swd")) swd = c;
        QVERIFY(swd >= 2);
        const RunsGroupModel::Stats s = g.stats(0, swd);
        QCOMPARE(s.n, 3);
        QVERIFY(std::abs(s.mean - 0.7) < 1e-12);
        QVERIFY(std::abs(s.std - 0.2) < 1e-12);  // sample std of 0.5, 0.7, 0.9
        QCOMPARE(s.min, 0.5);
        QCOMPARE(s.max, 0.9);
        QCOMPARE(g.index(0, swd).data().toString(), QString("0.7 ± 0.2"));
        QVERIFY(g.index(0, swd).data(Qt::ToolTipRole).toString().contains("over 3 run"));
        QCOMPARE(g.stats(1, swd).std, 0.0);
        QCOMPARE(g.index(1, swd).data().toString(), QString("0.4"));
        // A text column: its value when the group agrees.
        for (int c = 2; c < g.columnCount(); ++c)
            if (g.tableColumn(c) == m.columnOf("setting:preset")) QCOMPARE(g.index(0, c).data().toString(), QString("tiny-32"));
        // The proxy's filters apply; changes rebuild (on the next event-loop pass).
        p.setColumnFilter(m.columnOf("setting:seed"), "1");
        QTRY_COMPARE_WITH_TIMEOUT(g.runCount(0), 1, test::kWaitMs);
        m.upsert({}, {record("e", 3e-4, 1, "tiny-32", 0.1)});
        QTRY_COMPARE_WITH_TIMEOUT(g.rowCount(), 3, test::kWaitMs);
        g.setGroupColumn(-1);
        QCOMPARE(g.rowCount(), 0);
    }

    void csv() {
        QCOMPARE(RunsCsv::field("plain"), QString("plain"));
        QCOMPARE(RunsCsv::field("a,b"), QString("\"a,b\""));
        QCOMPARE(RunsCsv::field("say \"hi\""), QString("\"say \"\"hi\"\"\""));
        QCOMPARE(RunsCsv::field("two\nlines"), QString("\"two\nlines\""));
        QCOMPARE(RunsCsv::field(" padded"), QString("\" padded\""));
        RunsTableModel m;
        RunsTableProxy p(&m);
        RunRecord a = record("a,1", 1.0 / 3, 1, "tiny \"32\"", 0.123456789);
        m.upsert({}, {a});
        const QString text =
            RunsCsv::toCsv(p, {RunsTableModel::Run, RunsTableModel::Steps, m.columnOf("setting:lr"), m.columnOf("setting:preset"), m.columnOf("scalar:swd")});
        const QStringList lines = text.split("\r\n");
        QCOMPARE(lines.value(0), QString("Run,Steps,lr,preset,swd (last)"));
        QCOMPARE(lines.value(1), QString("\"a,1\",1000 / 1000,0.3333333333333333,\"tiny \"\"32\"\"\",0.123456789"));
        QTemporaryDir out;
        QVERIFY(RunsCsv::write(out.filePath("runs.csv"), p, {RunsTableModel::Run}).isEmpty());
        QFile f(out.filePath("runs.csv"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()), QString("Run\r\n\"a,1\"\r\n"));
        const QString err = RunsCsv::write(out.filePath("no/such/folder/runs.csv"), p, {0});
        QVERIFY2(err.contains("no/such/folder/runs.csv"), qPrintable(err));
    }

    void settingsTreeAndDiff() {
        SettingsTreeModel t;
        QAbstractItemModelTester tester(&t, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const nlohmann::json a = {{"lr", 1e-4}, {"betas", {0.5, 0.999}}, {"aug", {{"flip", true}, {"crop", 0.9}}}, {"preset", "tiny-32"}};
        nlohmann::json b = a;
        b["aug"]["crop"] = 0.8;
        b.erase("preset");
        b["ema"] = 0.999;
        t.setRuns({a}, {"run a"});
        QCOMPARE(t.columnCount(), 2);
        QCOMPARE(t.rowCount(), 4);
        const QModelIndex betas = t.find("betas");
        QVERIFY(betas.isValid());
        QCOMPARE(t.rowCount(betas), 2);
        QCOMPARE(t.index(1, 1, betas).data().toString(), QString("0.999"));
        QCOMPARE(t.path(t.index(1, 0, betas)), QString("betas/1"));
        QCOMPARE(t.find("aug/flip").siblingAtColumn(1).data().toString(), QString("true"));
        QVERIFY(!t.differs(t.find("lr")));

        t.setRuns({a, b}, {"run a", "run b"});
        QCOMPARE(t.columnCount(), 3);
        QCOMPARE(t.headerData(2, Qt::Horizontal).toString(), QString("run b"));
        QVERIFY(!t.differs(t.find("lr")));
        QVERIFY(!t.differs(t.find("betas")));
        QVERIFY(t.differs(t.find("aug/crop")));
        QVERIFY(t.differs(t.find("aug")));  // a parent of a difference
        QVERIFY(!t.differs(t.find("aug/flip")));
        QVERIFY(t.differs(t.find("preset")));
        QCOMPARE(t.find("preset").siblingAtColumn(2).data().toString(), QString("(absent)"));
        QVERIFY(t.differs(t.find("ema")));
        QVERIFY(!t.find("aug/crop").data(Qt::BackgroundRole).isNull());
        QVERIFY(t.find("lr").data(Qt::BackgroundRole).isNull());
        t.setRuns({}, {});
        QCOMPARE(t.rowCount(), 0);
    }

private:
    QTemporaryDir dir_;
};

QTEST_MAIN(RunsTableModelTest)
#include "RunsTableModelTest.moc"
