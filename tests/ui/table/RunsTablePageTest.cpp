// The Runs table page on real runs: two tiny runs trained here by streetgan-trainer (one with
// another learning rate; each with the best checkpoint the trainer marks), a run whose run.json is not JSON (shown with
// its problem in the tooltip, never dropped), and a host's runs through the test sshd (`ls ROOT
// --table --json` over SSH, RemoteHost::listRecords). Checked: the rows and columns filled off the
// GUI thread, the models under QAbstractItemModelTester, selection -> settings panel (one run's
// tree, two runs' diff) and runsSelected, differences only, the filter box and its error line,
// grouping, pinning and hiding, the layout remembered and restored by column id, CSV export, the
// best checkpoint opened (local) or downloaded and opened (remote, through a test sshd of its own;
// Cancel; the host gone and back), and a host without our trainer whose TensorBoard runs (with
// hparams written by PyTorch and TensorBoard) are rows, read over SFTP. With
// STREETGAN_SCREENSHOT_DIR set, saves runs-table-remote-best.png and runs-table-remote-tensorboard.png.
#include <QAbstractItemModelTester>
#include <QDirIterator>
#include <QFile>
#include <QFont>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <memory>

#include "remote/HostListModel.h"
#include "remote/RemoteHost.h"
#include "support/SshdFixture.h"
#include "support/UiTestSupport.h"
#include "table/BestCheckpointDownload.h"
#include "table/ParallelCoordinatesView.h"
#include "table/RunsGroupModel.h"
#include "table/RunsTableModel.h"
#include "table/RunsTablePage.h"
#include "table/RunsTableProxy.h"
#include "table/RunsTableRoles.h"
#include "table/SettingsTreeModel.h"
#include "ui/remote/LoopbackHost.h"

using namespace streetgan;
using namespace streetgan::ui;
using streetgan::test::SshdFixture;

namespace {

QString train(const QString& runDir, const QStringList& extra) {
    QProcess p;
    p.start(STREETGAN_TRAINER, QStringList{"train"} + test::tinyRunOptions(runDir, 6, 3) + extra);
    if (!p.waitForFinished(test::kWaitMs)) return "the trainer did not finish";
    return p.exitCode() == 0 ? QString() : QString::fromLocal8Bit(p.readAllStandardError());
}

bool copyTree(const QString& from, const QString& to) {
    QDirIterator it(from, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString f = it.next();
        const QString target = to + "/" + QDir(from).relativeFilePath(f);
        if (!QDir().mkpath(QFileInfo(target).absolutePath()) || !QFile::copy(f, target)) return false;
    }
    return QFileInfo(to).isDir();
}

int rowNamed(const RunsTableModel& m, const QString& name) {
    for (int r = 0; r < m.rowCount(); ++r)
        if (m.text(r, RunsTableModel::Run) == name) return r;
    return -1;
}

}  // namespace

class RunsTablePageTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString root_;

    // A test sshd of its own (its folder `name`, its known_hosts line in a file of its own) and the
    // host that reaches it, its runs under `root`, its trainer `trainer`.
    std::unique_ptr<SshdFixture> startSshd(const QString& name, const QString& root, const QString& trainer, HostConfig& config) {
        QDir().mkpath(tmp_.filePath(name));
        auto sshd = std::make_unique<SshdFixture>(tmp_.filePath(name).toStdString(), tmp_.filePath("authorized_keys").toStdString());
        config = test::loopbackHost(sshd->port(), tmp_, trainer);
        config.knownHosts = tmp_.filePath(name + "-known_hosts");
        QFile known(config.knownHosts);
        if (known.open(QIODevice::WriteOnly)) known.write(QByteArray::fromStdString(sshd->knownHostsLine() + "\n"));
        config.root = root;
        return sshd;
    }

    static void saveShot(QWidget& w, const QString& name) {
        if (const QString keep = qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR"); !keep.isEmpty()) w.grab().save(keep + "/" + name);
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        test::isolateSettings(tmp_.filePath("settings"));
        root_ = tmp_.filePath("workspace");
        QString e = train(root_ + "/alpha", {});
        QVERIFY2(e.isEmpty(), qPrintable(e));
        e = train(root_ + "/beta", {"--lr", "0.0005"});
        QVERIFY2(e.isEmpty(), qPrintable(e));
        QDir().mkpath(root_ + "/broken");
        QFile bad(root_ + "/broken/run.json");
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"config\": {\"lr\": 0.001,");  // cut short
        SshdFixture::generateKey(tmp_.filePath("id_user").toStdString());
        QVERIFY(QFile::copy(tmp_.filePath("id_user.pub"), tmp_.filePath("authorized_keys")));
    }

    void fillsFromTheWorkspace() {
        RunsTablePage page;
        QAbstractItemModelTester t1(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(page.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(page.groups(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t4(page.settingsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.resize(1200, 800);
        page.show();
        page.setWorkspace(root_);
        RunsTableModel* m = page.model();
        QTRY_COMPARE_WITH_TIMEOUT(m->rowCount(), 3, test::kWaitMs);
        const int alpha = rowNamed(*m, "alpha"), beta = rowNamed(*m, "beta"), broken = rowNamed(*m, "broken");
        QVERIFY(alpha >= 0 && beta >= 0 && broken >= 0);
        const int lr = m->columnOf("setting:lr");
        QVERIFY(lr > 0);
        QCOMPARE(m->number(beta, lr), 0.0005);
        QCOMPARE(m->record(alpha).info.step, int64_t(6));
        QVERIFY(m->columnOf("scalar:loss_d") > 0);
        QVERIFY(std::isfinite(m->number(alpha, m->columnOf("scalar:loss_d"))));
        // The run that cannot be read is a row, its problem in every cell's tooltip.
        const QString tip = m->index(broken, RunsTableModel::State).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains("run.json"), qPrintable(tip));

        // One run selected: its settings tree; two: the diff, lr marked.
        QSignalSpy selected(&page, &RunsTablePage::runsSelected);
        page.selectKeys({m->key(alpha)});
        QCOMPARE(page.settingsModel()->columnCount(), 2);
        QVERIFY(page.settingsModel()->find("lr").isValid());
        QVERIFY(selected.wait(test::kWaitMs));
        QCOMPARE(selected.last().at(0).toStringList(), QStringList{m->key(alpha)});
        page.selectKeys({m->key(alpha), m->key(beta)});
        QCOMPARE(page.settingsModel()->columnCount(), 3);
        QVERIFY(page.settingsModel()->differs(page.settingsModel()->find("lr")));
        QVERIFY(!page.settingsModel()->differs(page.settingsModel()->find("preset")));

        // Differences only across the two selected: lr shown, preset hidden; off: both shown.
        const int preset = m->columnOf("setting:preset");
        page.setDifferencesOnly(true);
        QVERIFY(page.isColumnShown(lr));
        QVERIFY(!page.isColumnShown(preset));
        page.setDifferencesOnly(false);
        QVERIFY(page.isColumnShown(preset));

        // The filter box: a range on lr; a bad term says why under the toolbar. The filter hides
        // alpha, which was selected: the dashboard is told to plot beta alone.
        QTRY_COMPARE_WITH_TIMEOUT(selected.last().at(0).toStringList(), (QStringList{m->key(alpha), m->key(beta)}), test::kWaitMs);
        QVERIFY(page.setFilterText("lr = 0.0004..0.001").isEmpty());
        QCOMPARE(page.proxy()->rowCount(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(selected.last().at(0).toStringList(), QStringList{m->key(beta)}, test::kWaitMs);
        QVERIFY(!page.setFilterText("lr = 1..a").isEmpty());
        QVERIFY(page.findChild<QLabel*>("runsTableFilterError")->isVisibleTo(&page));
        page.setFilterText({});
        QCOMPARE(page.proxy()->rowCount(), 3);

        // Brushing the parallel coordinates filters the table: a range on a number axis, the
        // categories brushed on a text axis (the preset: the two trained runs, not the broken one).
        auto* parallel = page.findChild<ParallelCoordinatesView*>("runsParallel");
        QVERIFY(parallel);
        // Its axes: the settings that vary (lr; not the preset all runs share, nor the settings the
        // broken run lacks), then the outcome it is drawn against (the SWD), which colours the lines.
        const int swd = m->columnOf("scalar:swd");
        QVERIFY(swd > 0);
        QTRY_VERIFY_WITH_TIMEOUT(!parallel->axes().isEmpty() && parallel->axes().last() == swd, test::kWaitMs);
        QVERIFY(parallel->axes().contains(lr));
        QVERIFY(!parallel->axes().contains(preset));
        QCOMPARE(parallel->colourColumn(), swd);
        QCOMPARE(m->text(alpha, RunsTableModel::Images), QLocale().toString(qlonglong(m->record(alpha).images)));
        parallel->setAxes({lr, preset});
        parallel->setBrush(lr, 0.0004, 0.001);
        QCOMPARE(page.proxy()->rowCount(), 1);
        parallel->setBrush(lr, -1, 1);  // every lr: the broken run has none and stays out
        QCOMPARE(page.proxy()->rowCount(), 2);
        parallel->clearBrush(lr);
        QCOMPARE(page.proxy()->rowCount(), 3);
        parallel->setBrush(preset, -1e9, 1e9);
        QCOMPARE(parallel->brushedCategories(preset), QStringList{"tiny-32"});
        QCOMPARE(page.proxy()->rowCount(), 2);
        parallel->clearBrush(preset);
        QCOMPARE(page.proxy()->rowCount(), 3);

        // Grouped by preset: one group of the two trained runs (the broken one has none).
        page.setGroupColumn(preset);
        QTRY_VERIFY_WITH_TIMEOUT(page.groups()->rowCount() >= 1, test::kWaitMs);
        bool found = false;
        for (int g = 0; g < page.groups()->rowCount(); ++g)
            if (page.groups()->groupValue(g) == "tiny-32") found = page.groups()->runCount(g) == 2;
        QVERIFY(found);
        // A group opens onto its runs (the seeds behind its mean), each with its own cells; selecting
        // the group selects its runs for the dashboard.
        RunsGroupModel* groups = page.groups();
        int tiny = -1;
        for (int g = 0; g < groups->rowCount(); ++g)
            if (groups->groupValue(g) == "tiny-32") tiny = g;
        const QModelIndex group = groups->index(tiny, 0);
        QCOMPARE(groups->rowCount(group), 2);
        QStringList children;
        for (int r = 0; r < 2; ++r) children << groups->index(r, 0, group).data(RunsTableRoles::KeyRole).toString();
        children.sort();
        QStringList both{m->key(alpha), m->key(beta)};
        both.sort();
        QCOMPARE(children, both);
        int lrColumn = -1;
        for (int c = 2; c < groups->columnCount(); ++c)
            if (groups->tableColumn(c) == lr) lrColumn = c;
        QVERIFY(lrColumn >= 2);
        const QModelIndex child = groups->index(0, lrColumn, group);
        QCOMPARE(child.data(RunsTableRoles::NumberRole).toDouble(), m->number(groups->tableRow(child), lr));
        page.groupTree()->selectionModel()->select(group, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QTRY_VERIFY_WITH_TIMEOUT(selected.last().at(0).toStringList().size() == 2, test::kWaitMs);
        page.setGroupColumn(-1);

        // CSV of the table as shown.
        const QString csv = tmp_.filePath("runs.csv");
        QVERIFY(page.exportCsv(csv).isEmpty());
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).split("\r\n", Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 4);
        QVERIFY(lines[0].startsWith("Run,"));

        // The best checkpoint (the trainer marks it by its SWD): a local file asked to be opened; a
        // run without one says so.
        QSignalSpy open(&page, &RunsTablePage::openCheckpointRequested);
        QVERIFY(page.openBest(beta));
        QCOMPARE(open.count(), 1);
        QVERIFY(QFileInfo(open.last().at(0).toString()).isFile());
        QVERIFY(open.last().at(0).toString().endsWith("beta/checkpoints/best.pt"));
        QVERIFY(!page.openBest(broken));
    }

    void layoutIsRememberedByColumnId() {
        QVariantMap saved;
        {
            RunsTablePage page;
            page.setWorkspace(root_);
            QTRY_COMPARE_WITH_TIMEOUT(page.model()->rowCount(), 3, test::kWaitMs);
            RunsTableModel* m = page.model();
            QSignalSpy changed(&page, &RunsTablePage::layoutChanged);
            page.setColumnHidden(RunsTableModel::Images, true);
            page.setColumnPinned(m->columnOf("setting:lr"), true);
            page.moveColumn("state", 0);
            const int lossD = m->columnOf("scalar:loss_d");
            m->setStatistic(lossD, RunsTableModel::Statistic::Min);
            // A header filter (by column id) and the filter box's text are remembered too; a bad
            // filter is refused and changes nothing.
            QVERIFY(!page.setColumnFilter(m->columnOf("setting:lr"), "1..a").isEmpty());
            QVERIFY(page.setColumnFilter(m->columnOf("setting:lr"), "0.0004..0.001").isEmpty());
            page.filterEdit()->setText("a");  // a name search: alpha and beta match (not broken); lr leaves beta
            QCOMPARE(page.proxy()->rowCount(), 1);
            QVERIFY(changed.count() >= 5);
            QVERIFY(!page.isColumnShown(RunsTableModel::Images));
            QVERIFY(!page.isColumnShown(m->columnOf("setting:lr")));  // in the frozen view instead
            QVERIFY(!page.pinnedTable()->isColumnHidden(m->columnOf("setting:lr")));
            QCOMPARE(page.visibleColumns().value(0), m->columnOf("setting:lr"));
            QCOMPARE(page.visibleColumns().value(1), int(RunsTableModel::State));
            saved = page.columnLayout();
        }
        RunsTablePage again;
        again.restoreColumnLayout(saved);  // before any column exists: applied as they come
        again.setWorkspace(root_);
        QTRY_COMPARE_WITH_TIMEOUT(again.model()->rowCount(), 3, test::kWaitMs);
        RunsTableModel* m = again.model();
        QVERIFY(!again.isColumnShown(RunsTableModel::Images));
        QVERIFY(again.isColumnPinned(m->columnOf("setting:lr")));
        QCOMPARE(again.visibleColumns().value(1), int(RunsTableModel::State));
        QCOMPARE(m->column(m->columnOf("scalar:loss_d")).statistic, RunsTableModel::Statistic::Min);
        QCOMPARE(again.proxy()->columnFilter(m->columnOf("setting:lr")), QString("0.0004..0.001"));
        QCOMPARE(again.filterEdit()->text(), QString("a"));
        QCOMPARE(again.proxy()->rowCount(), 1);
        QCOMPARE(again.proxy()->index(0, RunsTableModel::Run).data().toString(), QString("beta"));
        QVERIFY(again.setColumnFilter(m->columnOf("setting:lr"), {}).isEmpty());
        QCOMPARE(again.proxy()->rowCount(), 2);  // the name search alone
        QVERIFY(!again.columnLayout().value("filters").toMap().contains("setting:lr"));
    }

    void remoteHostThroughSshd() {
        QDir().mkpath(tmp_.filePath("sshd"));
        SshdFixture sshd(tmp_.filePath("sshd").toStdString(), tmp_.filePath("authorized_keys").toStdString());
        QFile known(tmp_.filePath("known_hosts"));
        QVERIFY(known.open(QIODevice::WriteOnly));
        known.write(QByteArray::fromStdString(sshd.knownHostsLine() + "\n"));
        known.close();
        test::writeRun(tmp_.filePath("remote-runs/gamma"), 300, 0);
        HostConfig c = test::loopbackHost(sshd.port(), tmp_);

        HostListModel hosts(nullptr);
        RunsTablePage page;
        page.setPriceLookup([](const QString&) { return 3.0; });
        page.setHostModel(&hosts);
        QSignalSpy listed(&page, &RunsTablePage::sourceListed);
        RemoteHost* host = hosts.hostFor(c);
        host->refresh();  // the runs list; the table follows with the records
        QTRY_VERIFY_WITH_TIMEOUT(page.model()->rowCount() == 1, test::kWaitMs);
        RunsTableModel* m = page.model();
        QCOMPARE(m->hostLabel(0), host->label());
        QCOMPARE(m->text(0, RunsTableModel::Run), QString("gamma"));
        QVERIFY(m->key(0).startsWith(host->label() + ":/"));
        QVERIFY(m->columnOf("scalar:loss_d") > 0);
        QVERIFY(!listed.isEmpty());
        QCOMPARE(listed.last().at(0).toString(), host->label());
        // The run is gone on the host: its row goes with the next listing.
        QVERIFY(QDir(tmp_.filePath("remote-runs/gamma")).removeRecursively());
        host->listRecords();
        QTRY_COMPARE_WITH_TIMEOUT(m->rowCount(), 0, test::kWaitMs);
    }

    // Issue 43 item 4 on a remote run: one click downloads the best checkpoint (its progress in the
    // strip under the toolbar) and opens the local copy as a local run's; Cancel answers at once;
    // a host that went away is one line naming the run and the connection, and the next click once
    // it is back works again.
    void remoteBestCheckpointInOneClick() {
        const QString root = tmp_.filePath("remote-best");
        const QString e = train(root + "/delta", {});
        QVERIFY2(e.isEmpty(), qPrintable(e));
        HostConfig c;
        auto sshd = startSshd("sshd-best", root, STREETGAN_TRAINER, c);
        HostListModel hosts(nullptr);
        RunsTablePage page;
        page.setHostModel(&hosts);
        page.resize(1280, 500);
        page.show();
        RemoteHost* host = hosts.hostFor(c);
        host->refresh();
        QTRY_COMPARE_WITH_TIMEOUT(page.model()->rowCount(), 1, test::kWaitMs);
        RunsTableModel* m = page.model();
        const QString remoteBest = root + "/delta/checkpoints/best.pt";
        QCOMPARE(m->bestCheckpointPath(0), remoteBest);
        // The cell is a link, its tooltip says what a double-click does.
        const QModelIndex best = m->index(0, RunsTableModel::BestCheckpoint);
        QVERIFY(best.data(Qt::FontRole).value<QFont>().underline());
        QVERIFY2(best.data(Qt::ToolTipRole).toString().contains("download it from " + host->label()), qPrintable(best.data(Qt::ToolTipRole).toString()));
        QSignalSpy open(&page, &RunsTablePage::openCheckpointRequested);
        QSignalSpy status(&page, &RunsTablePage::statusMessage);
        QSignalSpy progress(page.bestDownload()->progressBar(), &QProgressBar::valueChanged);
        QVERIFY(page.openBest(0));
        QVERIFY(page.bestDownload()->isVisible());
        QVERIFY2(page.bestDownload()->text().startsWith("delta: connecting to " + host->label()), qPrintable(page.bestDownload()->text()));
        saveShot(page, "runs-table-remote-best.png");
        QTRY_COMPARE_WITH_TIMEOUT(open.count(), 1, test::kWaitMs);
        const QString local = open.last().at(0).toString();
        QVERIFY2(local.startsWith(tmp_.filePath("settings/cache/streetgan/remote/")) && local.endsWith("/delta/checkpoints/best.pt"), qPrintable(local));
        QFile a(remoteBest), b(local);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QVERIFY(a.size() > 0);
        QVERIFY(a.readAll() == b.readAll());
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().at(0).toInt(), 1000);  // per mille: all of it
        QVERIFY(page.bestDownload()->isHidden());

        // Cancel: said at once, nothing opened.
        QVERIFY(page.openBest(0));
        page.bestDownload()->cancel();
        QVERIFY(page.bestDownload()->isHidden());
        QVERIFY2(status.last().at(0).toString().contains("cancelled"), qPrintable(status.last().at(0).toString()));

        // The host is gone: one line, the run and why; no file opened.
        sshd->stop();
        status.clear();
        QVERIFY(page.openBest(0));
        QTRY_VERIFY_WITH_TIMEOUT(!status.isEmpty() && !page.bestDownload()->isRunning(), test::kWaitMs);
        const QString said = status.last().at(0).toString();
        QVERIFY2(said.startsWith("delta's best checkpoint: ") && said.contains("cannot connect") && !said.contains('\n'), qPrintable(said));
        QCOMPARE(open.count(), 1);
        // Back: the next click connects afresh.
        sshd->restart();
        status.clear();
        QVERIFY(page.openBest(0));
        QTRY_VERIFY_WITH_TIMEOUT(open.count() == 2 || !status.isEmpty(), test::kWaitMs);
        QVERIFY2(open.count() == 2, qPrintable(status.isEmpty() ? QString() : status.last().at(0).toString()));
        QCOMPARE(open.last().at(0).toString(), local);
        // A host no longer in the app: said, nothing started.
        HostListModel none(nullptr);
        page.setHostModel(&none);
        QVERIFY(!page.openBest(0));
        QVERIFY(!page.bestDownload()->isRunning());
    }

    // Issue 43 item 1 on a host without our trainer (issue 41's DL1 path: its runs folder followed
    // over SFTP): its TensorBoard runs, written by PyTorch's SummaryWriter.add_hparams and by
    // TensorBoard's own hparams API (tests/python/make_tensorboard_hparams.py), are rows of the
    // table with their hparams (add_hparams' sub-folder folded back), their scalars' last, min and
    // max, their state and host, and a run added there shows with the next listing.
    void tensorBoardOnlyHostInTheTable() {
        const QString runs = tmp_.filePath("tb-host/runs");
        QVERIFY(copyTree(STREETGAN_TEST_TB_HPARAMS "/pytorch", runs + "/pytorch"));
        QVERIFY(copyTree(STREETGAN_TEST_TB_HPARAMS "/tbapi", runs + "/tbapi"));
        QFile ef(STREETGAN_TEST_TB_HPARAMS "/expected.json");
        QVERIFY(ef.open(QIODevice::ReadOnly));
        const QJsonObject expected = QJsonDocument::fromJson(ef.readAll()).object();
        QCOMPARE(expected.size(), 5);
        HostConfig c;
        auto sshd = startSshd("sshd-tb", runs, "streetgan-trainer-not-installed-here", c);
        HostListModel hosts(nullptr);
        RunsTablePage page;
        QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.setHostModel(&hosts);
        page.resize(1280, 640);
        page.show();
        RemoteHost* host = hosts.hostFor(c);
        host->refresh();  // no trainer there: the runs list is the TensorBoard runs, over SFTP
        QTRY_COMPARE_WITH_TIMEOUT(page.model()->rowCount(), 5, test::kWaitMs);
        RunsTableModel* m = page.model();
        for (auto it = expected.begin(); it != expected.end(); ++it) {
            const int row = rowNamed(*m, it.key());
            QVERIFY2(row >= 0, qPrintable(it.key()));
            QCOMPARE(m->hostLabel(row), host->label());
            QCOMPARE(m->text(row, RunsTableModel::Host), host->label());
            QCOMPARE(m->text(row, RunsTableModel::State), QString("tensorboard"));
            QCOMPARE(m->record(row).kind, std::string("tensorboard"));
            const QJsonObject want = it.value().toObject();
            const QJsonObject settings = want.value("settings").toObject();
            for (auto s = settings.begin(); s != settings.end(); ++s) {
                const int col = m->columnOf("setting:" + s.key());
                QVERIFY2(col > 0, qPrintable(s.key()));
                if (s.value().isDouble())
                    QCOMPARE(m->number(row, col), s.value().toDouble());
                else if (s.value().isString())
                    QCOMPARE(m->text(row, col), s.value().toString());
                else
                    QCOMPARE(m->text(row, col), RunsTableModel::settingText(s.value().toBool()));
            }
            const QJsonObject scalars = want.value("scalars").toObject();
            for (auto t = scalars.begin(); t != scalars.end(); ++t) {
                const int col = m->columnOf("scalar:" + t.key());
                QVERIFY2(col > 0, qPrintable(t.key()));
                const QJsonObject stats = t.value().toObject();
                m->setStatistic(col, RunsTableModel::Statistic::Min);
                QCOMPARE(m->number(row, col), stats.value("min").toDouble());
                m->setStatistic(col, RunsTableModel::Statistic::Max);
                QCOMPARE(m->number(row, col), stats.value("max").toDouble());
                m->setStatistic(col, RunsTableModel::Statistic::Last);
                QCOMPARE(m->number(row, col), stats.value("last").toDouble());
            }
            QCOMPARE(static_cast<int>(m->record(row).problems.size()), want.value("problems").toInt());
        }
        // add_hparams' time.time() sub-folders are no rows of their own.
        for (int r = 0; r < m->rowCount(); ++r) QVERIFY2(!m->text(r, RunsTableModel::Run).contains('.'), qPrintable(m->text(r, RunsTableModel::Run)));
        const QString tip = m->index(rowNamed(*m, "tbapi/trial-2"), RunsTableModel::Run).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains("kept as its JSON text"), qPrintable(tip));
        // The filter box reads the hparams as it reads our settings.
        QVERIFY(page.setFilterText("optimizer = adam").isEmpty());
        QCOMPARE(page.proxy()->rowCount(), 2);
        page.setFilterText({});
        page.selectKeys({m->key(rowNamed(*m, "pytorch/sweep-a")), m->key(rowNamed(*m, "pytorch/sweep-b"))});
        saveShot(page, "runs-table-remote-tensorboard.png");
        // A run written there later is a row after the next listing.
        QVERIFY(copyTree(STREETGAN_TEST_TB_HPARAMS "/pytorch/sweep-b", runs + "/pytorch/sweep-c"));
        host->refresh();
        QTRY_COMPARE_WITH_TIMEOUT(m->rowCount(), 6, test::kWaitMs);
        QVERIFY(rowNamed(*m, "pytorch/sweep-c") >= 0);
    }
};

QTEST_MAIN(RunsTablePageTest)
#include "RunsTablePageTest.moc"
