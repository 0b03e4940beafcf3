#include "remote/SshPrompter.h"

#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QThread>
#include <QWidget>
#include <chrono>
#include <future>
#include <memory>

namespace streetgan::ui {

SshPrompter::SshPrompter(QWidget* dialogParent) : QObject(nullptr), parent_(dialogParent) {}

template <class Fn>
auto SshPrompter::onGui(Fn&& fn) -> decltype(fn()) {
    using R = decltype(fn());
    if (cancelled_.load()) return R{};
    if (QThread::currentThread() == thread()) return fn();
    auto promise = std::make_shared<std::promise<R>>();
    std::future<R> answer = promise->get_future();
    // `fn` refers to this worker's stack: the GUI side runs it only while the worker still waits
    // (cancelAll() runs on the GUI thread, so it cannot interleave with a dialog in progress).
    QMetaObject::invokeMethod(
        this, [this, promise, &fn] { promise->set_value(cancelled_.load() ? R{} : fn()); }, Qt::QueuedConnection);
    while (answer.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready)
        if (cancelled_.load()) return R{};
    return answer.get();
}

SshOptions SshPrompter::withPrompts(SshOptions o) {
    o.onUnknownHostKey = [this](const HostKeyInfo& info) { return askHostKey(info); };
    o.password = [this](const std::string& prompt) { return askSecret(QString::fromStdString(prompt), false); };
    o.passphrase = [this](const std::string& keyFile) { return askSecret(tr("Passphrase for %1").arg(QString::fromStdString(keyFile)), true); };
    return o;
}

HostKeyDecision SshPrompter::askHostKey(const HostKeyInfo& info) {
    const QString key = QString::fromStdString(info.host + " " + info.fingerprintSha256);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (hostKeys_.contains(key)) return hostKeys_.value(key);
    }
    const HostKeyDecision d = onGui([&] {
        if (hostKeyDialog) return hostKeyDialog(info);
        QMessageBox box(QMessageBox::Question, tr("Unknown host key"),
                        tr("The authenticity of host %1%2 cannot be established.\n\n%3 key fingerprint:\n%4\n\n"
                           "Compare it with the server's (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on it) before you accept.")
                            .arg(QString::fromStdString(info.host), info.viaJump ? tr(" (through the jump host)") : QString(),
                                 QString::fromStdString(info.keyType), QString::fromStdString(info.fingerprintSha256)),
                        QMessageBox::NoButton, parent_);
        auto* remember = box.addButton(tr("Accept and remember"), QMessageBox::AcceptRole);
        auto* once = box.addButton(tr("Accept once"), QMessageBox::YesRole);
        box.addButton(tr("Refuse"), QMessageBox::RejectRole);
        box.exec();
        if (box.clickedButton() == remember) return HostKeyDecision::AcceptAndRemember;
        if (box.clickedButton() == once) return HostKeyDecision::AcceptOnce;
        return HostKeyDecision::Refuse;
    });
    if (d != HostKeyDecision::Refuse) {
        std::lock_guard<std::mutex> lock(mutex_);
        hostKeys_.insert(key, HostKeyDecision::AcceptOnce);  // remembered in known_hosts, or for this session
    }
    return d;
}

std::optional<std::string> SshPrompter::askSecret(const QString& prompt, bool passphrase) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (secrets_.contains(prompt)) return secrets_.value(prompt);
    }
    std::optional<std::string> answer = onGui([&]() -> std::optional<std::string> {
        if (secretDialog) return secretDialog(prompt, passphrase);
        bool ok = false;
        const QString text = QInputDialog::getText(parent_, passphrase ? tr("Key passphrase") : tr("SSH password"), prompt, QLineEdit::Password, {}, &ok);
        if (!ok) return std::nullopt;
        return text.toStdString();
    });
    if (answer) {
        std::lock_guard<std::mutex> lock(mutex_);
        secrets_.insert(prompt, *answer);
    }
    return answer;
}

}  // namespace streetgan::ui
