// The explorer's named directions (issue 44 item 2; LearnDirectionsDialog, LatentSliders' named
// rows, SessionModel): the real `directions` child learns "night" on the embedded demo generator
// (trained on the synthetic streets, whose renderer labels its scenes), its progress and held-out
// accuracies shown; "Add to session" makes a named slider whose vector is the file's; moving it
// towards night darkens the frame shown (and away brightens it), one undo step; renaming and
// removing; a PCA direction named by hand; a file that is not a directions file, and one learnt for
// another z size, each refused with one line; a label the data lacks is the child's one line.
// Screenshot: learn-directions.png (STREETGAN_SCREENSHOT_DIR).
#include <QFile>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "base/latent/NamedDirection.h"
#include "explorer/ExplorerPage.h"
#include "explorer/LatentSliders.h"
#include "explorer/LearnDirectionsDialog.h"
#include "ui/explorer/ExplorerWaits.h"

using namespace streetgan::ui;
using nlohmann::json;
using streetgan::test::kWaitMs;

namespace {

double meanBrightness(const QImage& image) {
    const QImage rgb = image.convertToFormat(QImage::Format_RGB888);
    double sum = 0;
    for (int y = 0; y < rgb.height(); ++y) {
        const uchar* row = rgb.constScanLine(y);
        for (int x = 0; x < rgb.width() * 3; ++x) sum += row[x];
    }
    return sum / (rgb.width() * rgb.height() * 3.0);
}

}  // namespace

class NamedDirectionsTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    ExplorerPage* page_ = nullptr;

    const json& named() const { return page_->session().at("named_directions"); }

private slots:
    void initTestCase() {
        page_ = streetgan::test::openExplorerPage(tmp_);
        QVERIFY(streetgan::test::openDemo(page_));
    }

    void cleanupTestCase() { delete page_; }

    void learnsNightAndSteersTheWalkByIt() {
        QVERIFY(!page_->session().contains("named_directions"));
        LearnDirectionsDialog* d = page_->showLearnDirections();
        QVERIFY(d);
        d->setData("synthetic");
        d->setLabels("night");
        d->setSamples(1000);
        QSignalSpy stages(d->progressBar(), &QProgressBar::valueChanged);
        d->start();
        QVERIFY(d->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(!d->isRunning(), kWaitMs);
        QVERIFY2(!d->resultFile().isEmpty(), qPrintable(d->statusLine()));
        QCOMPARE(d->summary().size(), 1);
        QVERIFY2(d->summary().first().startsWith("night: boundary "), qPrintable(d->summary().first()));
        QVERIFY(!stages.isEmpty());  // the child's stage lines came through
        d->grab().save(qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR", "/tmp") + "/learn-directions.png");
        const std::vector<streetgan::NamedDirection> file = streetgan::NamedDirection::readFile(d->resultFile().toStdString());

        // Added: one named slider, at 0, the file's vector number for number.
        QVERIFY(d->addButton()->isEnabled());
        d->addButton()->click();
        QCOMPARE(named().size(), size_t(1));
        QCOMPARE(named()[0].at("name").get<std::string>(), std::string("night"));
        QCOMPARE(named()[0].at("amount").get<double>(), 0.0);
        QCOMPARE(named()[0].at("z").get<std::vector<double>>(), file.at(0).z);
        LatentSliders* sliders = page_->sliders();
        QSlider* night = sliders->namedSlider(0);
        QVERIFY(night);
        QCOMPARE(sliders->sliderName(night), QString("night"));
        QVERIFY(sliders->orderedSliders().contains(night));
        QTRY_VERIFY_WITH_TIMEOUT(night->isVisible(), kWaitMs);  // shown in the panel, not only made
        sliders->grab().save(qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR", "/tmp") + "/named-sliders.png");

        // Towards night the frame darkens, away from it it brightens; each move one undo step.
        page_->setPlaying(false);
        page_->setCurrentFrame(0);
        const QImage darker = streetgan::test::frameAfter(
            page_, [&] { night->setValue(3 * LatentSliders::kSteps); }, 0);
        QCOMPARE(named()[0].at("amount").get<double>(), 3.0);
        const QImage brighter = streetgan::test::frameAfter(
            page_, [&] { night->setValue(-3 * LatentSliders::kSteps); }, 0);
        QVERIFY(!darker.isNull() && !brighter.isNull());
        const double dark = meanBrightness(darker), bright = meanBrightness(brighter);
        QVERIFY2(dark + 5 < bright, qPrintable(QString("night +3: %1, night -3: %2").arg(dark).arg(bright)));
        page_->undoStack()->undo();
        QCOMPARE(named()[0].at("amount").get<double>(), 3.0);

        // Renamed and removed from its row's menu (the signals the menu emits), each one step.
        emit sliders->namedRenamed(0, "dark");
        QCOMPARE(named()[0].at("name").get<std::string>(), std::string("dark"));
        QCOMPARE(sliders->sliderName(sliders->namedSlider(0)), QString("dark"));
        emit sliders->namedRemoved(0);
        QVERIFY(!page_->session().contains("named_directions"));
        QVERIFY(!sliders->namedSlider(0));
        page_->undoStack()->undo();
        QCOMPARE(named().size(), size_t(1));

        // Learning the same name again replaces its vector and keeps the amount set.
        emit sliders->namedRenamed(0, "night");
        QVERIFY(page_->loadDirections(d->resultFile()).isEmpty());
        QCOMPARE(named().size(), size_t(1));
        QCOMPARE(named()[0].at("amount").get<double>(), 3.0);
    }

    void aPcaDirectionIsNamedByHand() {
        LatentSliders* sliders = page_->sliders();
        emit sliders->directionRenamed(0, "sky");
        QCOMPARE(sliders->sliderName(sliders->directionSlider(0)), QString("sky"));
        QCOMPARE(page_->session().at("explorer_direction_names").at("0").get<std::string>(), std::string("sky"));
        emit sliders->directionRenamed(0, {});
        QCOMPARE(sliders->sliderName(sliders->directionSlider(0)), QString("d0"));
        QVERIFY(!page_->session().contains("explorer_direction_names"));
    }

    void badFilesAndLabelsGetOneLine() {
        const size_t before = page_->session().value("named_directions", json::array()).size();
        const QString text = tmp_.filePath("notes.json");
        QFile f(text);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("these are notes, not directions\n");
        f.close();
        QString e = page_->loadDirections(text);
        QVERIFY2(!e.isEmpty() && !e.contains('\n'), qPrintable(e));
        // Learnt on another generator: its z has another size.
        streetgan::NamedDirection other;
        other.name = "elsewhere";
        other.z = std::vector<double>(static_cast<size_t>(page_->nz()) + 7, 0.1);
        const QString wrong = tmp_.filePath("other.json");
        QFile w(wrong);
        QVERIFY(w.open(QIODevice::WriteOnly));
        w.write(QByteArray::fromStdString(json{{"format", "streetgan-directions/1"}, {"directions", json::array({other.toJson()})}}.dump()));
        w.close();
        e = page_->loadDirections(wrong);
        QVERIFY2(e.contains("learn it on this checkpoint"), qPrintable(e));
        QCOMPARE(page_->session().value("named_directions", json::array()).size(), before);

        // A label the synthetic streets do not have: the child's own line, nothing added.
        LearnDirectionsDialog* d = page_->showLearnDirections();
        QSignalSpy failed(d, &LearnDirectionsDialog::failed);
        d->setLabels("no_such_label");
        d->start();
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), kWaitMs);
        const QString line = failed.first().at(0).toString();
        QVERIFY2(line.contains("no_such_label") && !line.contains('\n'), qPrintable(line));
        QVERIFY(!d->addButton()->isEnabled());
    }
};

QTEST_MAIN(NamedDirectionsTest)
#include "NamedDirectionsTest.moc"
