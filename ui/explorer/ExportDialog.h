// Exports the explorer's walk through its own explore worker (a second RenderClient, so the
// page's view stays live): the format follows the path (.gif, .png = PNG grid, .mp4, a folder =
// PNG sequence), with the output size and upscaling (the scale), frame delay, GIF palette
// (global/per-frame), dithering, quantiser speed and loop count, and the PNG grid's nrow and padding,
// and the walk's frames per segment and loop, all of them session keys (docs/cli.md). Before
// anything is written, a summary line says what the output will be (its pixel size, frame count
// and duration; the frame count is base's LatentSession::frameCount, the rule the export renders
// with) and follows every option as it changes. No file size is estimated: GIF, PNG and H.264
// compression of generator frames varies too much to promise one; the written size is reported
// when the export has finished. A progress
// bar and Cancel; errors are one line in the dialog and the app stays responsive. The worker writes
// atomically and leaves nothing at the path on error or cancel. Non-blocking: open() it.
//
// Thread contract: GUI thread.
#pragma once

#include <QDialog>

#include <optional>

#include "base/latent/ExportFormat.h"
#include "base/latent/LatentSession.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace streetgan::ui {

class RenderClient;

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    /// A path's format (ExportFormat's table); nullopt for an empty path or another extension.
    using Format = std::optional<ExportFormat::Kind>;

    ExportDialog(const QString& checkpoint, const LatentSession& session, QWidget* parent = nullptr);
    ~ExportDialog() override;

    static Format formatFor(const QString& path);

    void setOutputPath(const QString& path);
    QString outputPath() const;
    /// The page's session with this dialog's options applied.
    LatentSession session() const;
    /// Starts the export (returns false and shows the error line when the path is unusable).
    bool startExport();
    void cancelExport();
    bool isRunning() const { return request_ >= 0; }
    QString errorLine() const;
    QProgressBar* progressBar() const { return progress_; }
    /// The summary line shown now (summary(session(), formatFor(outputPath()))).
    QString summaryText() const;
    /// What exporting `session` as `format` makes: "GIF · 128 × 128 px · 48 frames · 3.84 s at
    /// 12.5 fps · loops forever" (the PNG grid's pixel size is its layout's, ImageGrid::makeGrid).
    static QString summary(const LatentSession& session, Format format);

    // The option widgets (tests and the page read them).
    QSpinBox* sizeBox() const { return size_; }
    QComboBox* upscaleBox() const { return upscale_; }
    QSpinBox* speedBox() const { return speed_; }
    QSpinBox* delayBox() const { return delay_; }
    QComboBox* paletteBox() const { return palette_; }
    QDoubleSpinBox* ditheringBox() const { return dithering_; }
    QSpinBox* loopCountBox() const { return loopCount_; }
    QSpinBox* nrowBox() const { return nrow_; }
    QSpinBox* paddingBox() const { return padding_; }
    QSpinBox* framesPerSegmentBox() const { return framesPerSegment_; }
    QCheckBox* loopBox() const { return loop_; }

signals:
    /// The export ended: ok, or the one-line error ("cancelled" when cancelled).
    void exportFinished(bool ok, const QString& message);
    /// Emitted when an export starts with options that differ from the page's session: the page
    /// keeps them (one undo step), so a saved session reproduces the export.
    void optionsChosen(const streetgan::LatentSession& session);

protected:
    void reject() override;

private:
    QFormLayout* buildForm(const LatentSession& session);
    QGroupBox* buildGifGroup(const LatentSession& session);
    QGroupBox* buildGridGroup(const LatentSession& session);
    void wire();
    void updateFormat();
    void updateSummary();
    void setRunning(bool running);
    void fail(const QString& message);

    QString checkpoint_;
    LatentSession session_;
    RenderClient* client_;
    qint64 request_ = -1;
    bool closeWhenDone_ = false;
    QLineEdit* path_;
    QLabel* format_;
    QSpinBox *size_, *delay_, *loopCount_, *nrow_, *padding_, *speed_, *framesPerSegment_;
    QCheckBox* loop_;
    QLabel* summary_;
    QComboBox *palette_, *upscale_;
    QDoubleSpinBox* dithering_;
    QGroupBox *gifGroup_, *gridGroup_;
    QProgressBar* progress_;
    QLabel* error_;
    QPushButton *export_, *cancel_;
};

}  // namespace streetgan::ui
