// Picks a seed keyframe by eye: an 8x8 grid of the generator's images for 64 consecutive seeds
// (page p shows seeds 64p .. 64p+63), rendered by the explore worker (`latents` op, the session's
// truncation, nearest upscale to 64 px). Clicking a cell emits seedChosen(seed) and closes the
// dialog; "Another page" shows the next 64 seeds. Non-blocking: open() it, never exec().
//
// Thread contract: GUI thread. The RenderClient is the page's and must outlive the dialog.
#pragma once

#include <QDialog>
#include <QList>

class QLabel;
class QToolButton;

namespace streetgan::ui {

class RenderClient;

class SeedGridDialog : public QDialog {
    Q_OBJECT
public:
    static constexpr int kSide = 8;
    static constexpr int kCells = kSide * kSide;
    static constexpr int kCellPx = 64;

    SeedGridDialog(RenderClient* client, const QString& checkpoint, double truncation, QWidget* parent = nullptr);

    /// Requests the images of page `page` (>= 0).
    void showPage(int page);
    int page() const { return page_; }
    qint64 seedAt(int cell) const { return static_cast<qint64>(page_) * kCells + cell; }
    QToolButton* cell(int index) const { return cells_.value(index); }
    /// True once the current page's images are shown.
    bool isLoaded() const { return loaded_; }

signals:
    void seedChosen(qint64 seed);
    void pageShown(int page);
    void failed(const QString& message);

private:
    RenderClient* client_;
    QString checkpoint_;
    double truncation_;
    QList<QToolButton*> cells_;
    QLabel* status_;
    int page_ = 0;
    qint64 request_ = -1;
    bool loaded_ = false;
};

}  // namespace streetgan::ui
