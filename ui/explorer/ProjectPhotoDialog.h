// "Project a photo" of the latent explorer (issue 44 item 1): finds the z whose generated image
// looks most like a photo by running `streetgan-trainer invert --checkpoint CK --image PHOTO --json
// --out PAIR.png` (docs/cli.md "invert") as a child process (TrainerChild). The dialog shows the photo as the inverter sees it (the centred
// square of its short side), the child's progress from its stderr lines ("step N/M: ..., best PSNR
// P dB"), then the reconstruction beside the photo with "PSNR · SSIM · seconds"; "Add as keyframe"
// emits keyframeRequested() with the z of the child's JSON, parsed as is (the page adds it through
// its undoable edit path). Cancel kills the child. A refused photo (not an image, too small, ...) is
// the child's own one line, shown in the dialog; nothing is added.
//
// Quality: Fast passes --steps 100 (seconds on naive-64, a few dB below Best), Best the CLI's
// default steps. Non-modal: open()/show() it, never exec().
//
// Thread contract: GUI thread (QProcess signals); nothing blocks, except Cancel and the destructor,
// which reap a killed child (it ends at once).
#pragma once

#include <QDialog>
#include <QImage>
#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTemporaryDir;

namespace streetgan::ui {

class TrainerChild;

class ProjectPhotoDialog : public QDialog {
    Q_OBJECT
public:
    /// The steps of the Fast quality (Best: the CLI's default).
    static constexpr int kFastSteps = 100;
    /// Side of the photo and the reconstruction on screen.
    static constexpr int kShownPx = 192;

    struct Result {
        std::vector<double> z;
        double psnr = 0, ssim = 0, seconds = 0;
        QImage reconstruction;  ///< at the model's side
    };

    /// `checkpoint`: the generator to project into (the explorer's open checkpoint).
    explicit ProjectPhotoDialog(const QString& checkpoint, QWidget* parent = nullptr);
    ~ProjectPhotoDialog() override;

    /// Another checkpoint: a running projection is cancelled and a result of the old one dropped.
    void setCheckpoint(const QString& checkpoint);
    QString checkpoint() const { return checkpoint_; }
    /// Shows `photo` and projects it at once.
    void setPhoto(const QString& photo);
    QString photo() const { return photo_; }
    /// (Re)runs the projection of the photo with the chosen quality.
    void start();
    /// Kills a running child and reaps it; the dialog stays open.
    void cancel();

    bool isRunning() const;
    /// The running child's process id (0 when none).
    qint64 processId() const;
    const std::optional<Result>& result() const { return result_; }
    /// The child's stdout of the last successful projection (its JSON document).
    QByteArray resultJson() const { return resultJson_; }
    QString statusLine() const;
    QComboBox* qualityCombo() const { return quality_; }
    QProgressBar* progressBar() const { return progress_; }
    QPushButton* addButton() const { return add_; }

signals:
    void keyframeRequested(const std::vector<double>& z);
    void projected();
    void failed(const QString& message);

private:
    QLayout* buildImages();
    void onStderrLine(const QString& line);
    void onFinished(bool ok, const QByteArray& out, const QString& error);
    bool takeResult(const QByteArray& out);
    void stopChild();
    void showStatus(const QString& text, bool error);
    void clearResult();

    QString checkpoint_, photo_;
    TrainerChild* child_;
    std::unique_ptr<QTemporaryDir> outDir_;
    std::optional<Result> result_;
    QByteArray resultJson_;

    QLabel* photoView_;
    QLabel* reconstructionView_;
    QLabel* status_;
    QProgressBar* progress_;
    QComboBox* quality_;
    QPushButton* project_;
    QPushButton* cancel_;
    QPushButton* add_;
};

}  // namespace streetgan::ui
