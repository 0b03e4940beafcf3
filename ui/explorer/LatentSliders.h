// The explorer's slider panel: truncation psi (0..2, scale towards the mean), the top-k PCA
// directions of the checkpoint (each -3..+3 of its sigma; k = the session's pca_components) and
// sliders for chosen raw z dimensions of the selected keyframe (-3..+3). Like KeyframeList it only
// emits edits; ExplorerPage applies them to the session (undoably) and calls the setters back.
// `dragStarted` marks the start of a mouse drag so the page merges that drag into one undo step.
//
// Thread contract: GUI thread.
#pragma once

#include <QHash>
#include <QList>
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

    static constexpr int kSteps = 100;  ///< slider steps per unit (psi, sigma, z)

    /// Sets every slider from session values without emitting signals. `directions` maps a
    /// direction index to its amount (missing = 0). `rawValues` holds the selected keyframe's z
    /// for each of `rawDims` (empty while a seed keyframe's vector is not known yet).
    void setState(double truncation, int components, int nz, const QHash<int, double>& directions, const QList<int>& rawDims, const QList<double>& rawValues);

    QSlider* truncationSlider() const { return truncation_; }
    QSlider* directionSlider(int index) const { return directions_.value(index); }
    QSlider* rawSlider(int dim) const { return raw_.value(dim); }
    QSpinBox* componentsBox() const { return components_; }
    QSpinBox* rawDimensionBox() const { return rawDim_; }

signals:
    void truncationEdited(double psi);
    void directionEdited(int index, double amount);
    void componentsEdited(int k);
    void rawEdited(int dim, double value);
    void rawDimensionAdded(int dim);
    void rawDimensionRemoved(int dim);
    void dragStarted();

private:
    QSlider* makeSlider(int lo, int hi);
    void rebuildDirections(int components);
    void rebuildRaw(const QList<int>& dims);

    QSlider* truncation_;
    QLabel* truncationValue_;
    QSpinBox* components_;
    QSpinBox* rawDim_;
    QVBoxLayout* directionBox_;
    QVBoxLayout* rawBox_;
    QList<QWidget*> directionRows_, rawRows_;
    QHash<int, QSlider*> directions_, raw_;
    QHash<int, QLabel*> directionValues_, rawValues_;
    QList<int> rawDims_;
};

}  // namespace streetgan::ui
