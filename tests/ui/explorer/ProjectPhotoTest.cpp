// The explorer's "Project a photo" (issue 44 item 1; ProjectPhotoDialog): a photo the demo
// generator made (rendered by the trainer's `render`) is projected by the real `invert` child at
// the Fast quality, its PSNR shown, its z added as the walk's last keyframe exactly as the child's
// JSON gives it, and undone; a text file gets the child's one line and adds nothing; Cancel kills
// the child; an image dropped on the page, or Ctrl+Shift+P, opens the dialog. Screenshot:
// project-photo.png (STREETGAN_SCREENSHOT_DIR). Against the embedded demo checkpoint, like
// ExplorerTest.
#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QMimeData>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <QUrl>
#include <algorithm>

#include "common/JsonText.h"
#include "explorer/ExplorerPage.h"
#include "explorer/KeyframeList.h"
#include "explorer/ProjectPhotoDialog.h"
#include "ui/explorer/ExplorerWaits.h"

using namespace streetgan::ui;
using nlohmann::json;
using streetgan::test::kWaitMs;

namespace {

int keyframeCount(const ExplorerPage& page) { return static_cast<int>(page.session().at("keyframes").size()); }

}  // namespace

class ProjectPhotoTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    ExplorerPage* page_ = nullptr;
    QString generated_;

    /// A 64 px image of the demo generator (seed 7, no truncation), written by `render`.
    QString renderGenerated() {
        const QString session = tmp_.filePath("one.json");
        const json s = {{"checkpoint", QFileInfo(page_->checkpoint()).absoluteFilePath().toStdString()},
                        {"keyframes", json::array({{{"seed", 7}}})},
                        {"loop", false},
                        {"truncation", 1.0},
                        {"size", 64}};
        QFile f(session);
        if (!f.open(QIODevice::WriteOnly)) return {};
        f.write(QByteArray::fromStdString(s.dump()));
        f.close();
        const QString out = tmp_.filePath("generated.png");
        QProcess p;
        p.start(STREETGAN_TRAINER, {"render", "--session", session, "--out", out});
        if (!p.waitForFinished(kWaitMs) || p.exitCode() != 0) {
            qWarning() << p.readAllStandardError();
            return {};
        }
        return out;
    }

    ProjectPhotoDialog* fastDialog() {
        ProjectPhotoDialog* d = page_->showProjectPhoto();
        if (d) d->qualityCombo()->setCurrentIndex(d->qualityCombo()->findData(ProjectPhotoDialog::kFastSteps));
        return d;
    }

private slots:
    void initTestCase() {
        page_ = streetgan::test::openExplorerPage(tmp_);
        QVERIFY(streetgan::test::openDemo(page_));
        generated_ = renderGenerated();
        QVERIFY(!generated_.isEmpty());
    }

    void cleanupTestCase() { delete page_; }

    void projectsAGeneratedImageAndAddsItsZ() {
        ProjectPhotoDialog* d = fastDialog();
        QVERIFY(d);
        QSignalSpy projected(d, &ProjectPhotoDialog::projected);
        QSignalSpy progress(d->progressBar(), &QProgressBar::valueChanged);
        d->setPhoto(generated_);
        QVERIFY(d->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(!projected.isEmpty(), kWaitMs);
        QVERIFY(d->result().has_value());
        const double psnr = d->result()->psnr;
        QVERIFY2(psnr > 25, qPrintable(QString::number(psnr)));
        static const QRegularExpression line(QString::fromUtf8(R"(^PSNR \d+\.\d dB · SSIM [01]\.\d\d · \d+\.\d s$)"));
        QVERIFY2(line.match(d->statusLine()).hasMatch(), qPrintable(d->statusLine()));
        QVERIFY(d->statusLine().startsWith(QString("PSNR %1 dB").arg(psnr, 0, 'f', 1)));
        QVERIFY(!d->result()->reconstruction.isNull());
        QCOMPARE(d->result()->reconstruction.size(), QSize(64, 64));
        QCOMPARE(d->progressBar()->value(), d->progressBar()->maximum());
        // The child's progress lines came through: a line per tenth of the 100 steps.
        QVERIFY(std::any_of(progress.cbegin(), progress.cend(), [](const QList<QVariant>& a) { return a.at(0).toInt() == 50; }));
        d->grab().save(qEnvironmentVariable("STREETGAN_SCREENSHOT_DIR", "/tmp") + "/project-photo.png");

        // Add as keyframe: one more keyframe, last, whose z is the child's JSON's number for number.
        const int before = keyframeCount(*page_);
        QVERIFY(d->addButton()->isEnabled());
        d->addButton()->click();
        QCOMPARE(keyframeCount(*page_), before + 1);
        const json childZ = streetgan::ui::JsonText::parse(d->resultJson()).value_or(json()).at("z");
        const json added = page_->session().at("keyframes").back();  // a copy: undo replaces the session
        QVERIFY(!added.contains("seed"));
        QCOMPARE(added.at("z").size(), childZ.size());
        QCOMPARE(static_cast<int>(childZ.size()), page_->nz());
        for (size_t i = 0; i < childZ.size(); ++i) QCOMPARE(added.at("z")[i].get<double>(), childZ[i].get<double>());
        QCOMPARE(page_->selectedKeyframe(), before);

        page_->undoStack()->undo();
        QCOMPARE(keyframeCount(*page_), before);
        QVERIFY(!page_->session().at("keyframes").back().contains("z") || page_->session().at("keyframes").back().at("z") != added.at("z"));
    }

    void aTextFileGivesItsOneLine() {
        const QString text = tmp_.filePath("notes.txt");
        QFile f(text);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a photo\n");
        f.close();
        ProjectPhotoDialog* d = fastDialog();
        QSignalSpy failed(d, &ProjectPhotoDialog::failed);
        const int before = keyframeCount(*page_);
        d->setPhoto(text);
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), kWaitMs);
        const QString message = failed.first().at(0).toString();
        QVERIFY2(message.contains("not an image"), qPrintable(message));
        QVERIFY2(!message.contains('\n') && !message.startsWith("streetgan-trainer"), qPrintable(message));
        QCOMPARE(d->statusLine(), message);
        QVERIFY(!d->result().has_value());
        QVERIFY(!d->addButton()->isEnabled());
        QCOMPARE(keyframeCount(*page_), before);
    }

    void cancelKillsTheChild() {
        ProjectPhotoDialog* d = page_->showProjectPhoto();
        d->qualityCombo()->setCurrentIndex(d->qualityCombo()->findData(0));  // Best: seconds, still running when cancelled
        const int before = keyframeCount(*page_);
        d->setPhoto(generated_);
        QTRY_VERIFY_WITH_TIMEOUT(d->processId() > 0, kWaitMs);
        const qint64 pid = d->processId();
        QVERIFY(QFileInfo::exists(QString("/proc/%1").arg(pid)));
        d->cancel();
        QVERIFY(!d->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(QString("/proc/%1").arg(pid)), kWaitMs);
        QVERIFY(!d->result().has_value());
        QVERIFY(!d->addButton()->isEnabled());
        QCOMPARE(keyframeCount(*page_), before);
    }

    void droppingAnImageOpensTheDialog() {
        delete page_->findChild<ProjectPhotoDialog*>();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(generated_)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(page_, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(page_, &drop);
        auto* d = page_->findChild<ProjectPhotoDialog*>();
        QVERIFY(d);
        QCOMPARE(d->photo(), generated_);
        QVERIFY(d->isRunning() || d->result().has_value());
        d->cancel();

        // A file that is no image by its name is not taken.
        QMimeData other;
        other.setUrls({QUrl::fromLocalFile(tmp_.filePath("notes.txt"))});
        QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &other, Qt::LeftButton, Qt::NoModifier);
        refused.setAccepted(false);
        QCoreApplication::sendEvent(page_, &refused);
        QVERIFY(!refused.isAccepted());
    }

    void ctrlShiftPOpensTheDialog() {
        delete page_->findChild<ProjectPhotoDialog*>();
        const QList<QAction*> actions = page_->actions();
        const auto it =
            std::find_if(actions.cbegin(), actions.cend(), [](const QAction* a) { return a->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P); });
        QVERIFY(it != actions.cend());
        (*it)->trigger();
        auto* d = page_->findChild<ProjectPhotoDialog*>();
        QVERIFY(d);
        QVERIFY(d->isVisible());
        QVERIFY(!d->isRunning());  // no photo yet: it waits for one
        QCOMPARE(d->checkpoint(), page_->checkpoint());
    }
};

QTEST_MAIN(ProjectPhotoTest)
#include "ProjectPhotoTest.moc"
