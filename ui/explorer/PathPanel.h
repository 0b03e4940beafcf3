// The explorer's "Path" panel: how the walk goes from keyframe to keyframe. Interpolation (SLERP or
// linear), easing, frames per segment, closed loop, the t range each segment's frames spread over
// (WalkRule.h: 0 to 1 goes from a keyframe to the next; other values extrapolate past them, SLERP
// round the great circle) and "Reference walk", which turns the session into the reference
// project's walk (LatentSession::makeReferenceWalk: two random keyframes, t 0 to 8, 16 frames, no
// loop). Like KeyframeList it edits nothing itself: it emits requests that ExplorerPage turns into
// undoable session edits, and setSession() brings the widgets back in line without signals.
//
// Thread contract: GUI thread.
#pragma once

#include <QWidget>

#include "base/latent/LatentSession.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QPushButton;
class QSpinBox;

namespace streetgan::ui {

class PathPanel : public QWidget {
    Q_OBJECT
public:
    explicit PathPanel(QWidget* parent = nullptr);

    /// Shows `session`'s path settings (emits nothing).
    void setSession(const LatentSession& session);

    QComboBox* interpolationBox() const { return interpolation_; }
    QComboBox* easingBox() const { return easing_; }
    QSpinBox* framesPerSegmentBox() const { return framesPerSegment_; }
    QCheckBox* loopBox() const { return loop_; }
    QDoubleSpinBox* tStartBox() const { return tStart_; }
    QDoubleSpinBox* tEndBox() const { return tEnd_; }
    QPushButton* referenceWalkButton() const { return reference_; }

    /// A spin box for one end of a t range (the path's here, a segment's in KeyframeList): the
    /// session file's range (+-WalkRule::kMaxAbsT), 3 decimals, steps of 0.25, edits on Enter or
    /// focus loss (typing "8" is one edit, not "8" after "0.8"...).
    static QDoubleSpinBox* tBox(const char* objectName, const QString& toolTip);

signals:
    void interpolationEdited(const QString& name);
    void easingEdited(const QString& name);
    void framesPerSegmentEdited(int frames);
    void loopEdited(bool loop);
    void tRangeEdited(double start, double end);
    void referenceWalkRequested();

private:
    QComboBox *interpolation_, *easing_;
    QSpinBox* framesPerSegment_;
    QCheckBox* loop_;
    QDoubleSpinBox *tStart_, *tEnd_;
    QPushButton* reference_;
    WalkRule::TRange range_;  ///< the session's, so that editing one end keeps the other exact
};

}  // namespace streetgan::ui
