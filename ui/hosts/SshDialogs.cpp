#include "hosts/SshDialogs.h"

#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>

#include "remote/SshPrompter.h"

namespace streetgan::ui {

void SshDialogs::install(SshPrompter& prompter, QWidget* parent) {
    prompter.hostKeyDialog = [parent](const HostKeyInfo& info) { return askHostKey(parent, info); };
    prompter.secretDialog = [parent](const QString& prompt, bool passphrase) { return askSecret(parent, prompt, passphrase); };
}

HostKeyDecision SshDialogs::askHostKey(QWidget* parent, const HostKeyInfo& info) {
    QMessageBox box(QMessageBox::Question, tr("Unknown host key"),
                    tr("The authenticity of host %1%2 cannot be established.\n\n%3 key fingerprint:\n%4\n\n"
                       "Compare it with the server's (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on it) before you accept.")
                        .arg(QString::fromStdString(info.host), info.viaJump ? tr(" (through the jump host)") : QString(), QString::fromStdString(info.keyType),
                             QString::fromStdString(info.fingerprintSha256)),
                    QMessageBox::NoButton, parent);
    auto* remember = box.addButton(tr("Accept and remember"), QMessageBox::AcceptRole);
    auto* once = box.addButton(tr("Accept once"), QMessageBox::YesRole);
    box.addButton(tr("Refuse"), QMessageBox::RejectRole);
    box.exec();
    if (box.clickedButton() == remember) return HostKeyDecision::AcceptAndRemember;
    if (box.clickedButton() == once) return HostKeyDecision::AcceptOnce;
    return HostKeyDecision::Refuse;
}

std::optional<std::string> SshDialogs::askSecret(QWidget* parent, const QString& prompt, bool passphrase) {
    bool ok = false;
    const QString text = QInputDialog::getText(parent, passphrase ? tr("Key passphrase") : tr("SSH password"), prompt, QLineEdit::Password, {}, &ok);
    if (!ok) return std::nullopt;
    return text.toStdString();
}

}  // namespace streetgan::ui
