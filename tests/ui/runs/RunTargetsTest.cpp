// RunTargets: New run's "Train on" rows (this computer, then each host of the list, with why it
// cannot train now) and the target each row starts on, shown through the real dialog.
#include <QComboBox>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>

#include "remote/HostListModel.h"
#include "runs/NewRunDialog.h"
#include "runs/RunTargets.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;

class RunTargetsTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() { streetgan::test::isolateSettings(tmp_.filePath("settings")); }

    void thisComputerAloneWithoutHosts() {
        const RunTargets targets("/work/space", nullptr);
        QCOMPARE(targets.targets().size(), 1);
        QCOMPARE(targets.labels(), QStringList{"This computer (/work/space)"});
        QCOMPARE(targets.unavailable(), QStringList{QString()});
        QCOMPARE(targets.at(0).root, QString("/work/space"));
        QVERIFY(!targets.at(0).host);
        QVERIFY(!targets.at(7).host);  // out of range: this computer, never a dangling host
    }

    void hostsFollowInTheListsOrderWithTheirRootsAndReasons() {
        HostListModel hosts(nullptr);
        HostConfig a;
        a.host = "gpu-a.invalid";
        a.user = "me";
        a.port = 2201;
        a.configFile = "none";
        a.root = "runs-a";
        HostConfig b = a;
        b.host = "gpu-b.invalid";
        b.root = "/scratch/runs";
        RemoteHost* hostA = hosts.hostFor(a);
        RemoteHost* hostB = hosts.hostFor(b);
        const RunTargets targets(tmp_.path(), &hosts);
        // Two plain hosts: a last row starts one run across them.
        QCOMPARE(targets.targets().size(), 4);
        QCOMPARE(targets.labels(), QStringList{"This computer (" + tmp_.path() + ")"} + hosts.labels() + QStringList{"Several hosts (one run across them)"});
        QCOMPARE(targets.multiHostRow(), 3);
        QVERIFY(targets.at(3).multiHost && !targets.at(3).host);
        QCOMPARE(targets.at(3).hosts, (QList<RemoteHost*>{hostA, hostB}));
        QCOMPARE(targets.multiHostChoices().size(), 2);
        QCOMPARE(targets.multiHostChoices().value(1).unavailable, QString("not connected yet"));
        QCOMPARE(targets.at(1).host, hostA);
        QCOMPARE(targets.at(2).host, hostB);
        QCOMPARE(targets.at(1).root, QString("runs-a"));
        QCOMPARE(targets.at(2).root, QString("/scratch/runs"));
        // Never reached: both listed, greyed with the reason, and the dialog stays on this computer.
        QCOMPARE(targets.at(1).unavailable, QString("not connected yet"));
        QCOMPARE(targets.unavailable().value(2), HostListModel::cannotTrainReason(hostB));
        NewRunDialog d(targets.labels(), nullptr, targets.unavailable());
        auto* target = d.findChildren<QComboBox*>().value(0);
        QVERIFY(target && target->count() == 4);
        const auto* items = qobject_cast<QStandardItemModel*>(target->model());
        QVERIFY(items && items->item(0)->isEnabled() && !items->item(1)->isEnabled() && !items->item(2)->isEnabled());
        QVERIFY2(items->item(2)->text().endsWith("— not connected yet"), qPrintable(items->item(2)->text()));
        QVERIFY(!targets.at(d.targetIndex()).host);
    }
};

QTEST_MAIN(RunTargetsTest)
#include "RunTargetsTest.moc"
