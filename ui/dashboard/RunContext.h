// Where the run the system and cost panels show trains: this computer, or a remote host (its
// label, user@host:port, as RunSession::hostLabel() gives it). Plain value; GUI thread.
#pragma once

#include <QCoreApplication>
#include <QString>

namespace streetgan::ui {

struct RunContext {
    bool remote = false;
    QString hostLabel;  ///< the remote host; empty for a local run

    /// "this computer" or the host label, for "waiting for ... from <where>".
    QString where() const { return remote && !hostLabel.isEmpty() ? hostLabel : QCoreApplication::translate("RunContext", "this computer"); }
};

}  // namespace streetgan::ui
