#include "explorer/LatentSliders.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

namespace streetgan::ui {
namespace {

int ticks(double v) { return static_cast<int>(std::lround(v * LatentSliders::kSteps)); }
double units(int t) { return static_cast<double>(t) / LatentSliders::kSteps; }
QString shown(double v) { return QString::number(v, 'f', 2); }

}  // namespace

LatentSliders::LatentSliders(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* truncBox = new QGroupBox(tr("Truncation"));
    auto* truncRow = new QHBoxLayout(truncBox);
    truncation_ = makeSlider(0, 2 * kSteps);
    truncation_->setObjectName("truncationSlider");
    truncation_->setToolTip(tr("psi: scales every latent towards the mean (1 = unchanged, 0 = the mean image)"));
    truncationValue_ = new QLabel(shown(1.0));
    truncationValue_->setMinimumWidth(40);
    truncRow->addWidget(new QLabel(tr("psi")));
    truncRow->addWidget(truncation_, 1);
    truncRow->addWidget(truncationValue_);
    layout->addWidget(truncBox);
    connect(truncation_, &QSlider::valueChanged, this, [this](int t) {
        truncationValue_->setText(shown(units(t)));
        emit truncationEdited(units(t));
    });

    auto* dirGroup = new QGroupBox(tr("PCA directions (±3 σ)"));
    auto* dirLayout = new QVBoxLayout(dirGroup);
    auto* kRow = new QHBoxLayout;
    components_ = new QSpinBox;
    components_->setObjectName("pcaComponents");
    components_->setRange(1, 256);
    components_->setToolTip(tr("How many principal directions of the generator's first-block activations to show"));
    kRow->addWidget(new QLabel(tr("top-k")));
    kRow->addWidget(components_);
    kRow->addStretch();
    dirLayout->addLayout(kRow);
    directionBox_ = new QVBoxLayout;
    dirLayout->addLayout(directionBox_);
    layout->addWidget(dirGroup);
    connect(components_, &QSpinBox::valueChanged, this, [this](int k) { emit componentsEdited(k); });

    auto* rawGroup = new QGroupBox(tr("Raw z of the selected keyframe"));
    auto* rawLayout = new QVBoxLayout(rawGroup);
    auto* addRow = new QHBoxLayout;
    rawDim_ = new QSpinBox;
    rawDim_->setObjectName("rawDimension");
    rawDim_->setRange(0, 0);
    auto* add = new QPushButton(tr("Add slider"));
    add->setObjectName("addRawSlider");
    addRow->addWidget(new QLabel(tr("dimension")));
    addRow->addWidget(rawDim_);
    addRow->addWidget(add);
    addRow->addStretch();
    rawLayout->addLayout(addRow);
    rawBox_ = new QVBoxLayout;
    rawLayout->addLayout(rawBox_);
    layout->addWidget(rawGroup);
    layout->addStretch();
    connect(add, &QPushButton::clicked, this, [this] {
        if (!rawDims_.contains(rawDim_->value())) emit rawDimensionAdded(rawDim_->value());
    });
}

QSlider* LatentSliders::makeSlider(int lo, int hi) {
    auto* s = new QSlider(Qt::Horizontal);
    s->setRange(lo, hi);
    s->setSingleStep(kSteps / 20);
    s->setPageStep(kSteps / 2);
    s->setMinimumWidth(120);
    connect(s, &QSlider::sliderPressed, this, &LatentSliders::dragStarted);
    return s;
}

void LatentSliders::rebuildDirections(int components) {
    if (directions_.size() == components) return;
    for (QWidget* row : directionRows_) {
        row->hide();
        row->deleteLater();  // not delete: the page may be inside a signal of one of these rows
    }
    directionRows_.clear();
    directions_.clear();
    directionValues_.clear();
    for (int i = 0; i < components; ++i) {
        auto* row = new QWidget;
        auto* h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        auto* s = makeSlider(-3 * kSteps, 3 * kSteps);
        s->setObjectName(QString("direction%1").arg(i));
        s->setToolTip(tr("Direction %1 in units of its sigma (%1 = most activation variance explained)").arg(i));
        auto* value = new QLabel(shown(0));
        value->setMinimumWidth(40);
        h->addWidget(new QLabel(QString("d%1").arg(i)));
        h->addWidget(s, 1);
        h->addWidget(value);
        directionBox_->addWidget(row);
        directionRows_.append(row);
        directions_.insert(i, s);
        directionValues_.insert(i, value);
        connect(s, &QSlider::valueChanged, this, [this, i, value](int t) {
            value->setText(shown(units(t)));
            emit directionEdited(i, units(t));
        });
    }
}

void LatentSliders::rebuildRaw(const QList<int>& dims) {
    if (dims == rawDims_) return;
    for (QWidget* row : rawRows_) {
        row->hide();
        row->deleteLater();  // not delete: this runs inside the clicked() of a row's remove button
    }
    rawRows_.clear();
    raw_.clear();
    rawValues_.clear();
    rawDims_ = dims;
    for (int d : dims) {
        auto* row = new QWidget;
        auto* h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        auto* s = makeSlider(-3 * kSteps, 3 * kSteps);
        s->setObjectName(QString("rawZ%1").arg(d));
        auto* value = new QLabel(shown(0));
        value->setMinimumWidth(40);
        auto* remove = new QToolButton;
        remove->setText("×");
        remove->setToolTip(tr("Remove this slider (the keyframe keeps its value)"));
        h->addWidget(new QLabel(QString("z%1").arg(d)));
        h->addWidget(s, 1);
        h->addWidget(value);
        h->addWidget(remove);
        rawBox_->addWidget(row);
        rawRows_.append(row);
        raw_.insert(d, s);
        rawValues_.insert(d, value);
        connect(s, &QSlider::valueChanged, this, [this, d, value](int t) {
            value->setText(shown(units(t)));
            emit rawEdited(d, units(t));
        });
        connect(remove, &QToolButton::clicked, this, [this, d] { emit rawDimensionRemoved(d); });
    }
}

void LatentSliders::setState(double truncation, int components, int nz, const QHash<int, double>& directions, const QList<int>& rawDims,
                             const QList<double>& rawValues) {
    {
        const QSignalBlocker b1(truncation_), b2(components_), b3(rawDim_);
        truncation_->setValue(ticks(truncation));
        truncationValue_->setText(shown(truncation));
        components_->setMaximum(std::max(1, std::min(256, nz)));
        components_->setValue(components);
        rawDim_->setMaximum(std::max(0, nz - 1));
    }
    rebuildDirections(components);
    for (auto it = directions_.begin(); it != directions_.end(); ++it) {
        const double amount = directions.value(it.key(), 0.0);
        const QSignalBlocker b(it.value());
        // Amounts beyond ±3 sigma (typed into a session file) are kept; the slider shows its end.
        it.value()->setValue(ticks(amount));
        directionValues_[it.key()]->setText(shown(amount));
    }
    rebuildRaw(rawDims);
    for (int i = 0; i < rawDims_.size(); ++i) {
        QSlider* s = raw_.value(rawDims_[i]);
        const bool known = i < rawValues.size();  // a seed keyframe's vector may still be on its way
        const QSignalBlocker b(s);
        s->setValue(known ? ticks(rawValues[i]) : 0);
        rawValues_[rawDims_[i]]->setText(known ? shown(rawValues[i]) : QString("…"));
    }
}

}  // namespace streetgan::ui
