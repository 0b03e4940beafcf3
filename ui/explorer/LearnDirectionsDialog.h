// "Learn directions" of the latent explorer (issue 44 item 2): named directions such as "night",
// "winter" or "berlin" learnt from a labelled data set by `streetgan-trainer directions
// --checkpoint CK --data DATA --labels L --json --out FILE` (docs/cli.md "directions"), run as a
// child process (TrainerChild) so the GUI thread never waits. The dialog takes the data (the
// synthetic streets, whose renderer labels its scenes, or an MSLS folder), the labels, how many
// samples to score and what the directions must not change (--orthogonal-to); shows the child's
// stage and progress from its stderr ("scoring samples 400/2000"), then each direction with the
// held-out accuracies of its classifier and of its boundary in z, and the child's warnings (a
// classifier near chance). "Add to session" emits directionsLearnt() with the file, which the page
// loads as named sliders. Cancel kills the child; nothing is written then.
//
// Thread contract: GUI thread; non-modal (open()/show() it, never exec()).
#pragma once

#include <QDialog>
#include <QStringList>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTemporaryDir;
class QTreeWidget;

namespace streetgan::ui {

class TrainerChild;

class LearnDirectionsDialog : public QDialog {
    Q_OBJECT
public:
    explicit LearnDirectionsDialog(const QString& checkpoint, QWidget* parent = nullptr);
    ~LearnDirectionsDialog() override;

    void setCheckpoint(const QString& checkpoint);
    /// "synthetic" or a folder of photos (MSLS layout).
    void setData(const QString& data);
    void setLabels(const QString& commaSeparated);
    void setSamples(int samples);
    void setOrthogonalTo(const QString& commaSeparated);
    /// Runs `directions` with the fields' values.
    void start();
    void cancel();
    bool isRunning() const;
    /// The learnt directions' file (empty until a run succeeded).
    QString resultFile() const { return result_; }
    QString statusLine() const;
    /// One line per direction learnt: "night: boundary 97%, classifier 91%".
    QStringList summary() const { return summary_; }
    QPushButton* addButton() const { return add_; }
    QProgressBar* progressBar() const { return progress_; }

signals:
    void directionsLearnt(const QString& file);
    void failed(const QString& message);

private:
    QWidget* buildForm();
    void onStderrLine(const QString& line);
    void onFinished(bool ok, const QByteArray& out, const QString& error);
    bool showResult(const QByteArray& out);
    void showStatus(const QString& text, bool error);
    void setRunning(bool running);

    QString checkpoint_, result_;
    TrainerChild* child_;
    std::unique_ptr<QTemporaryDir> outDir_;
    QStringList summary_, warnings_;
    QComboBox* data_;
    QLineEdit* folder_;
    QLineEdit* labels_;
    QSpinBox* samples_;
    QLineEdit* orthogonal_;
    QProgressBar* progress_;
    QLabel* status_;
    QTreeWidget* results_;
    QPushButton* learn_;
    QPushButton* cancel_;
    QPushButton* add_;
};

}  // namespace streetgan::ui
