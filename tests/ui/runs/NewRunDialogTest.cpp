// NewRunDialog: the checkpoint and G_ema settings (keep, best by, ema_kimg) start at the trainer's
// own defaults and reach the trainer: the dialog's arguments train a real run whose run.json
// records what was chosen.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include "base/run/TrainConfig.h"
#include "runs/NewRunDialog.h"
#include "support/UiTestSupport.h"

using namespace streetgan::ui;

namespace {

QString valueAfter(const QStringList& args, const QString& flag) {
    const qsizetype i = args.indexOf(flag);
    return i >= 0 && i + 1 < args.size() ? args[i + 1] : QString();
}

template <class W>
W* boxOf(NewRunDialog& d, const char* option) {
    for (W* w : d.findChildren<W*>())
        if (w->toolTip() == QString::fromUtf8(streetgan::TrainOption::find(option)->help)) return w;
    return nullptr;
}

}  // namespace

class NewRunDialogTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() { streetgan::test::isolateSettings(tmp_.filePath("settings")); }

    void checkpointAndEmaSettingsReachTheTrainer() {
        NewRunDialog d({"This computer"});
        const streetgan::TrainConfig defaults;
        const QStringList shown = d.trainerArguments(tmp_.path());
        QCOMPARE(valueAfter(shown, "--keep-checkpoints"), QString::number(defaults.keepCheckpoints));
        QCOMPARE(valueAfter(shown, "--best-metric"), QString::fromStdString(defaults.bestMetric));
        QCOMPARE(valueAfter(shown, "--ema-kimg").toDouble(), defaults.emaKimg);

        auto* keep = boxOf<QSpinBox>(d, "keep_checkpoints");
        auto* best = boxOf<QComboBox>(d, "best_metric");
        auto* ema = boxOf<QDoubleSpinBox>(d, "ema_kimg");
        QVERIFY(keep && best && ema);
        QCOMPARE(ema->text(), ema->specialValueText());  // 0: the per-step rule, said in words
        keep->setValue(3);
        ema->setValue(1.5);
        const int other = best->currentIndex() == 0 ? 1 : 0;
        QVERIFY(best->count() > 1);
        best->setCurrentIndex(other);
        boxOf<QSpinBox>(d, "steps")->setValue(2);
        boxOf<QSpinBox>(d, "batch")->setValue(4);
        boxOf<QSpinBox>(d, "sample_every")->setValue(0);
        boxOf<QSpinBox>(d, "checkpoint_every")->setValue(0);
        boxOf<QSpinBox>(d, "loader_threads")->setValue(1);

        if (const QString keep = qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR"); !keep.isEmpty()) {
            d.show();
            QVERIFY(QTest::qWaitForWindowExposed(&d));
            d.grab().save(keep + "/new-run-dialog.png");
        }
        QStringList args = d.trainerArguments(tmp_.path());
        QProcess train;
        train.start(STREETGAN_TRAINER, QStringList{"train"} + args + QStringList{"--threads", "1"});
        QVERIFY(train.waitForFinished(120000));
        QVERIFY2(train.exitCode() == 0, train.readAllStandardError().constData());
        QFile runJson(valueAfter(args, "--run-dir") + "/run.json");
        QVERIFY(runJson.open(QIODevice::ReadOnly));
        const nlohmann::json config = nlohmann::json::parse(runJson.readAll().toStdString())["config"];
        QCOMPARE(config["keep_checkpoints"].get<int>(), 3);
        QCOMPARE(config["ema_kimg"].get<double>(), 1.5);
        QCOMPARE(QString::fromStdString(config["best_metric"].get<std::string>()), best->itemText(other));
    }

    // "Read photos" is --data-path: the trainer's default, offered for a folder of photos only
    // (other data is read one way: auto, which the trainer takes for it).
    void readPhotosIsTheDataPathForAFolderOfPhotos() {
        NewRunDialog d({"This computer"});
        auto* read = boxOf<QComboBox>(d, "data_path");
        QVERIFY(read);
        QCOMPARE(read->currentText(), QString::fromStdString(streetgan::TrainConfig().dataPath));
        QCOMPARE(read->count(), 3);
        QVERIFY(!read->isEnabled());  // synthetic streets
        QComboBox* kind = nullptr;
        for (auto* c : d.findChildren<QComboBox*>())
            if (c->itemText(0) == "Synthetic streets") kind = c;
        QVERIFY(kind && kind->itemText(1).contains("photos"));
        kind->setCurrentIndex(1);
        QVERIFY(read->isEnabled());
        read->setCurrentText("packed");
        for (auto* e : d.findChildren<QLineEdit*>())
            if (e->placeholderText().startsWith("path on")) e->setText("/data/msls");
        QStringList args = d.trainerArguments(tmp_.path());
        QCOMPARE(valueAfter(args, "--data-path"), QString("packed"));
        QCOMPARE(valueAfter(args, "--data"), QString("/data/msls"));
        kind->setCurrentIndex(3);  // a packed cache: nothing to choose
        QVERIFY(!read->isEnabled());
        QCOMPARE(valueAfter(d.trainerArguments(tmp_.path()), "--data-path"), QString("auto"));
    }
};

QTEST_MAIN(NewRunDialogTest)
#include "NewRunDialogTest.moc"
