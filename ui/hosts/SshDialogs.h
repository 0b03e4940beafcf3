// The dialogs that ask an SSH connection's questions: an unknown host key (with its fingerprint and
// how to check it), a password, a key passphrase. install() makes them the answers of an
// SshPrompter, which queues each question to the GUI thread and remembers the answers for the
// session. GUI thread.
#pragma once

#include <QCoreApplication>
#include <QString>

#include <optional>
#include <string>

#include "base/remote/SshOptions.h"

class QWidget;

namespace streetgan::ui {

class SshPrompter;

class SshDialogs {
    Q_DECLARE_TR_FUNCTIONS(SshDialogs)
public:
    /// `prompter`'s questions are asked with the dialogs below, over `parent` (which must outlive
    /// the prompter's use).
    static void install(SshPrompter& prompter, QWidget* parent);
    static HostKeyDecision askHostKey(QWidget* parent, const HostKeyInfo& info);
    /// nullopt when the user cancels.
    static std::optional<std::string> askSecret(QWidget* parent, const QString& prompt, bool passphrase);
};

}  // namespace streetgan::ui
