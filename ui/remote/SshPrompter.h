// Asks the user what the SSH client needs to know (unknown host key with its fingerprint,
// password, key passphrase) through the dialogs installed in it (hostKeyDialog, secretDialog: the
// window's are ui/hosts/SshDialogs; without one, a key is refused and no password given). Lives on
// the GUI thread; the callbacks it installs run on SSH worker
// threads, queue the question to the GUI thread and block on a promise until the user answers
// (or cancelAll() is called: the app is closing, so a worker never waits on a GUI thread that is
// itself waiting for the worker to finish). Answers given
// during this app session are remembered in memory (never on disk) so that the several
// connections to one host (attach, listing, downloads) ask once.
#pragma once

#include <QHash>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <mutex>

#include "base/remote/SshOptions.h"

namespace streetgan::ui {

class SshPrompter : public QObject {
    Q_OBJECT
public:
    explicit SshPrompter(QObject* parent = nullptr);
    /// `options` with the three callbacks set.
    SshOptions withPrompts(SshOptions options);
    /// Pending and future questions are answered "no" (refuse, no password). GUI thread.
    void cancelAll() { cancelled_.store(true); }

    /// The questions, asked on the GUI thread (SshDialogs::install; tests set their own).
    std::function<HostKeyDecision(const HostKeyInfo&)> hostKeyDialog;
    std::function<std::optional<std::string>(const QString& prompt, bool passphrase)> secretDialog;

private:
    HostKeyDecision askHostKey(const HostKeyInfo& info);
    std::optional<std::string> askSecret(const QString& prompt, bool passphrase);
    template <class Fn>
    auto onGui(Fn&& fn) -> decltype(fn());

    std::mutex mutex_;
    std::atomic<bool> cancelled_{false};
    QHash<QString, HostKeyDecision> hostKeys_;
    QHash<QString, std::string> secrets_;
};

}  // namespace streetgan::ui
