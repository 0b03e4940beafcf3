#include "remote/SshPrompter.h"

#include <QThread>
#include <chrono>
#include <future>
#include <memory>

namespace streetgan::ui {

SshPrompter::SshPrompter(QObject* parent) : QObject(parent) {}

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
        // No dialog installed (ui/hosts/SshDialogs installs the window's): an unknown key is refused.
        return hostKeyDialog ? hostKeyDialog(info) : HostKeyDecision::Refuse;
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
    std::optional<std::string> answer = onGui([&]() -> std::optional<std::string> { return secretDialog ? secretDialog(prompt, passphrase) : std::nullopt; });
    if (answer) {
        std::lock_guard<std::mutex> lock(mutex_);
        secrets_.insert(prompt, *answer);
    }
    return answer;
}

}  // namespace streetgan::ui
