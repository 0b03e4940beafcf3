// The explorer page's body: three columns in a splitter (keyframes and path | preview | sliders)
// when they fit, or, narrower, the two side panels as tabs of one column beside the preview. The
// switch follows the width (resizeEvent); minimumSizeHint() is always the two-column layout's, so
// a window holding the page can shrink it into that layout (about 700 px: a 1280 px screen with
// both docks open) while wide screens (1400 px, 4K at 200 %) get three columns.
//
// Thread contract: GUI thread.
#pragma once

#include <QWidget>

class QSplitter;
class QTabWidget;

namespace streetgan::ui {

class ExplorerColumns : public QWidget {
    Q_OBJECT
public:
    /// `left` and `right` (the side panels, with minimum widths set) move between the splitter and
    /// the tabs (titled `leftTitle`, `rightTitle`); `centre` stretches. Takes ownership of all three.
    ExplorerColumns(QWidget* left, const QString& leftTitle, QWidget* centre, QWidget* right, const QString& rightTitle, QWidget* parent = nullptr);

    /// True while the side panels are tabs of one column.
    bool isCompact() const { return compact_; }
    QTabWidget* tabs() const { return tabs_; }
    /// The two-column layout's minimum, whichever layout shows.
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void arrange();
    /// The width three columns need: the side panels at their minimum, the preview comfortable.
    int threeColumnWidth() const;

    QWidget *left_, *centre_, *right_;
    QString leftTitle_, rightTitle_;
    QSplitter* split_;
    QTabWidget* tabs_;
    bool compact_ = false;
};

}  // namespace streetgan::ui
