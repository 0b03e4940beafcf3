// One step of the latent explorer's undo history: the whole session (base's LatentSession, unknown
// keys included) before and after an edit. Every edit of SessionModel goes through this one
// command, so undo and redo restore the exact session; `apply` puts a session back into the model
// (which updates the keyframe model and the page).
//
// Slider drags: commands with the same mergeKey (>= 0) and the same drag serial merge into one step
// (mergeWith keeps the first `before` and the last `after`); a step that ends where it started
// becomes obsolete and leaves the stack. mergeKey -1 never merges.
//
// Thread contract: GUI thread (a QUndoStack's command).
#pragma once

#include <QUndoCommand>
#include <functional>

#include "base/latent/LatentSession.h"

namespace streetgan::ui {

class SessionUndoCommand : public QUndoCommand {
public:
    using Apply = std::function<void(const LatentSession&)>;

    SessionUndoCommand(Apply apply, LatentSession before, LatentSession after, const QString& text, int mergeKey = -1, quint64 dragSerial = 0);

    void undo() override;
    void redo() override;
    int id() const override { return mergeKey_; }
    bool mergeWith(const QUndoCommand* other) override;

    const LatentSession& before() const { return before_; }
    const LatentSession& after() const { return after_; }

private:
    Apply apply_;
    LatentSession before_, after_;
    int mergeKey_;
    quint64 dragSerial_;
};

}  // namespace streetgan::ui
