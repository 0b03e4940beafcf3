#include "explorer/SessionUndoCommand.h"

namespace streetgan::ui {

SessionUndoCommand::SessionUndoCommand(Apply apply, LatentSession before, LatentSession after, const QString& text, int mergeKey, quint64 dragSerial)
    : apply_(std::move(apply)), before_(std::move(before)), after_(std::move(after)), mergeKey_(mergeKey), dragSerial_(dragSerial) {
    setText(text);
}

void SessionUndoCommand::undo() { apply_(before_); }

void SessionUndoCommand::redo() { apply_(after_); }

bool SessionUndoCommand::mergeWith(const QUndoCommand* other) {
    const auto* o = dynamic_cast<const SessionUndoCommand*>(other);
    if (!o || o->mergeKey_ != mergeKey_ || o->dragSerial_ != dragSerial_) return false;
    after_ = o->after_;
    setObsolete(after_ == before_);
    return true;
}

}  // namespace streetgan::ui
