// The explorer's slider panel: truncation psi (0..2, scale towards the mean), the top-k PCA
// directions of the checkpoint (each -3..+3 of its sigma; k = the session's pca_components; a
// direction can be given a name from its row's context menu), the named directions learnt from
// labels ("night", "winter": -3..+3 along the unit direction in z; Learn… and Load… ask the page
// for more, a row's context menu renames or removes one) and sliders for chosen raw z dimensions
// of the selected keyframe (-3..+3). Like KeyframeList it only
// emits edits; ExplorerPage applies them to the session (undoably) and calls the setters back.
// `dragStarted` marks the start of a mouse drag so the page merges that drag into one undo step.
//
// Every slider shows its name ("psi", "d0", "z5") and its value ("+1.25"), live as it moves. One
// slider is the selected one (the last one focused or touched; truncation at first), marked by a
// bar and a bold name; the keys of keyBindings() nudge it, reset it and move the selection. That
// table is the one definition of those keys: the handler looks keys up in it, and a shortcuts page
// can list it. Each key press is one undo step (like a click on the groove).
//
// Thread contract: GUI thread.
#pragma once

#include <QHash>
#include <QKeyCombination>
#include <QList>
#include <QPointer>
#include <QString>
#include <QWidget>

class QLabel;
class QSlider;
class QSpinBox;
class QVBoxLayout;

namespace streetgan::ui {

class LatentSliders : public QWidget {
    Q_OBJECT
public:
    explicit LatentSliders(QWidget* parent = nullptr);

    static constexpr int kSteps = 100;    ///< slider steps per unit (psi, sigma, z)
    static constexpr int kSmallStep = 5;  ///< a nudge: 0.05 units (the slider's own single step)
    static constexpr int kBigStep = 50;   ///< a Shift+nudge: 0.5 units (its page step)

    /// One keyboard binding of the sliders: the keys as the user reads them ("Left, Down"), what
    /// they do, and the key combinations themselves (the ones the handler matches).
    struct KeyBinding {
        QString keys;
        QString description;
        QList<QKeyCombination> combinations;
    };
    /// The sliders' keys (they apply while a slider or this panel has the keyboard focus), for a
    /// shortcuts page and for the handler alike.
    static QList<KeyBinding> keyBindings();

    /// Sets every slider from session values without emitting signals. `directions` maps a
    /// direction index to its amount (missing = 0). `rawValues` holds the selected keyframe's z
    /// for each of `rawDims` (empty while a seed keyframe's vector is not known yet).
    void setState(double truncation, int components, int nz, const QHash<int, double>& directions, const QList<int>& rawDims, const QList<double>& rawValues);

    QSlider* truncationSlider() const { return truncation_; }
    QSlider* directionSlider(int index) const { return directions_.value(index); }
    QSlider* rawSlider(int dim) const { return raw_.value(dim); }
    /// The slider of the session's named direction `index` (its position in named_directions).
    QSlider* namedSlider(int index) const { return named_.value(index); }
    /// The named directions' rows: names and amounts, in the session's order (no signals).
    void setNamed(const QStringList& names, const QList<double>& amounts);
    /// The names given to PCA directions (a row shows its name instead of "dN").
    void setDirectionNames(const QHash<int, QString>& names);
    /// The name a slider's row shows ("psi", "d3", "sky", "night", "z5").
    QString sliderName(const QSlider* slider) const;
    QSpinBox* componentsBox() const { return components_; }
    QSpinBox* rawDimensionBox() const { return rawDim_; }
    /// Every slider in panel order (truncation, directions, raw dimensions): PageUp/PageDown's order.
    QList<QSlider*> orderedSliders() const;
    /// The selected slider (the keys act on it); never null.
    QSlider* selectedSlider() const;
    void selectSlider(QSlider* slider);
    /// The value label of `slider` ("+1.25"; "…" while a seed keyframe's vector is on its way).
    QString valueText(const QSlider* slider) const;
    /// A slider's neutral value in slider steps: psi 1 (unchanged), 0 for the others.
    int neutralValue(const QSlider* slider) const;

signals:
    void truncationEdited(double psi);
    void directionEdited(int index, double amount);
    void componentsEdited(int k);
    void rawEdited(int dim, double value);
    void rawDimensionAdded(int dim);
    void namedEdited(int index, double amount);
    void namedRenamed(int index, const QString& name);
    void namedRemoved(int index);
    /// A PCA direction's name given ("" clears it).
    void directionRenamed(int index, const QString& name);
    void learnDirectionsRequested();
    void loadDirectionsRequested();
    void rawDimensionRemoved(int dim);
    void dragStarted();
    /// The selected slider changed (a click, focus or PageUp/PageDown).
    void selectionChanged(QSlider* slider);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    struct Row {
        QWidget* row = nullptr;
        QLabel* name = nullptr;
        QLabel* value = nullptr;
    };
    /// A slider row: name, slider, value label (+ `extra`, e.g. a remove button).
    QWidget* makeRow(QSlider* slider, const QString& name, const QString& tip, QWidget* extra = nullptr);
    QSlider* makeSlider(int lo, int hi);
    void rebuildDirections(int components);
    void rebuildRaw(const QList<int>& dims);
    QWidget* buildNamedGroup();
    void rebuildNamed(const QStringList& names);
    /// The context menu of PCA direction `index`'s row, or of named direction `named`'s.
    void directionMenu(QWidget* row, int index, const QPoint& at);
    void namedMenu(QWidget* row, int index, const QPoint& at);
    void setRowName(QSlider* slider, const QString& name);
    void forgetRow(QSlider* slider);
    void showValue(QSlider* slider, double value);
    void markSelection();
    /// Handles a key of keyBindings() for the selected slider; false for another key.
    bool handleKey(const QKeyEvent* event);

    QSlider* truncation_;
    QSpinBox* components_;
    QSpinBox* rawDim_;
    QVBoxLayout* directionBox_;
    QVBoxLayout* rawBox_;
    QVBoxLayout* namedBox_ = nullptr;
    QList<QWidget*> directionRows_, rawRows_, namedRows_;
    QHash<int, QSlider*> directions_, raw_;
    QList<QSlider*> named_;
    QStringList namedNames_;
    QHash<int, QString> directionNames_;
    QHash<const QSlider*, Row> rows_;
    QList<int> rawDims_;
    QPointer<QSlider> selected_;
};

}  // namespace streetgan::ui
