#include "explorer/PathPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <algorithm>

#include "base/latent/Easing.h"

namespace streetgan::ui {

QDoubleSpinBox* PathPanel::tBox(const char* objectName, const QString& toolTip) {
    auto* b = new QDoubleSpinBox;
    b->setObjectName(objectName);
    b->setRange(-WalkRule::kMaxAbsT, WalkRule::kMaxAbsT);
    b->setDecimals(3);
    b->setSingleStep(0.25);
    b->setKeyboardTracking(false);
    b->setToolTip(toolTip);
    // The range's 1e6 would make the box as wide as "-1000000.000"; walks rarely need more than 100.
    b->setMinimumWidth(b->fontMetrics().horizontalAdvance("-100.000") + 30);
    b->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    return b;
}

PathPanel::PathPanel(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    interpolation_ = new QComboBox;
    interpolation_->setObjectName("interpolation");
    interpolation_->addItem(tr("SLERP"), "slerp");
    interpolation_->addItem(tr("linear"), "linear");
    form->addRow(tr("Interpolation"), interpolation_);
    easing_ = new QComboBox;
    easing_->setObjectName("easing");
    for (const std::string& e : Easing::names()) easing_->addItem(QString::fromStdString(e), QString::fromStdString(e));
    form->addRow(tr("Easing"), easing_);
    framesPerSegment_ = new QSpinBox;
    framesPerSegment_->setObjectName("framesPerSegment");
    framesPerSegment_->setRange(1, 1000);
    form->addRow(tr("Frames per segment"), framesPerSegment_);
    const QString tip =
        tr("The interpolation parameter t that each segment's frames spread over: 0 to 1 goes from a keyframe to the next; "
           "values outside extrapolate past the keyframes (SLERP goes on round the great circle, linear along the line)");
    tStart_ = tBox("tStart", tip);
    tEnd_ = tBox("tEnd", tip);
    auto* range = new QHBoxLayout;
    range->addWidget(tStart_, 1);
    range->addWidget(new QLabel(tr("to")));
    range->addWidget(tEnd_, 1);
    form->addRow(tr("t range"), range);
    loop_ = new QCheckBox(tr("Closed loop (back to the first keyframe)"));
    loop_->setObjectName("loop");
    form->addRow(loop_);
    reference_ = new QPushButton(tr("Reference walk (t 0 → %1)").arg(LatentSession::kReferenceTEnd));
    reference_->setObjectName("referenceWalkButton");
    reference_->setToolTip(tr("Two random keyframes, SLERP from t = 0 to %1 in %2 frames, no loop: the walk of the reference project "
                              "(msls-pytorch-dcgan's gen_img_sequence_array). One undoable step; output settings are kept.")
                               .arg(LatentSession::kReferenceTEnd)
                               .arg(LatentSession::kReferenceFrames));
    form->addRow(reference_);

    connect(interpolation_, &QComboBox::activated, this, [this] { emit interpolationEdited(interpolation_->currentData().toString()); });
    connect(easing_, &QComboBox::activated, this, [this] { emit easingEdited(easing_->currentData().toString()); });
    connect(framesPerSegment_, &QSpinBox::valueChanged, this, &PathPanel::framesPerSegmentEdited);
    connect(loop_, &QCheckBox::toggled, this, &PathPanel::loopEdited);
    // One end edited: the other is the session's own value (a box shows 3 decimals only).
    connect(tStart_, &QDoubleSpinBox::valueChanged, this, [this](double v) { emit tRangeEdited(v, range_.end); });
    connect(tEnd_, &QDoubleSpinBox::valueChanged, this, [this](double v) { emit tRangeEdited(range_.start, v); });
    connect(reference_, &QPushButton::clicked, this, &PathPanel::referenceWalkRequested);
}

void PathPanel::setSession(const LatentSession& s) {
    const QSignalBlocker b1(interpolation_), b2(easing_), b3(framesPerSegment_), b4(loop_), b5(tStart_), b6(tEnd_);
    interpolation_->setCurrentIndex(std::max(0, interpolation_->findData(s.interpolation == WalkRule::Interpolation::Slerp ? "slerp" : "linear")));
    easing_->setCurrentIndex(std::max(0, easing_->findData(QString::fromStdString(Easing::name(s.easing)))));
    framesPerSegment_->setValue(s.framesPerSegment);
    loop_->setChecked(s.loop);
    range_ = s.tRange;
    tStart_->setValue(s.tRange.start);
    tEnd_->setValue(s.tRange.end);
}

}  // namespace streetgan::ui
