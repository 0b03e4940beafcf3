// The window's SSH questions (SshDialogs, installed into an SshPrompter): the host-key box names
// the host, the jump host, the key type and fingerprint and how to check them, and its buttons give
// the three answers; the password box gives what was typed, or nothing when cancelled. A prompter
// with no dialog installed refuses the key and gives no password. Offscreen, answered by a timer
// that finds the open dialog.
#include <QApplication>
#include <QInputDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>

#include "hosts/SshDialogs.h"
#include "remote/SshPrompter.h"
#include "support/UiTestSupport.h"

using namespace streetgan;
using namespace streetgan::ui;

namespace {

// Calls `answer` with the first visible dialog of type T, once it is open.
template <class T>
void whenOpen(const std::function<void(T*)>& answer) {
    auto* timer = new QTimer;
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, [timer, answer] {
        for (QWidget* w : QApplication::topLevelWidgets())
            if (auto* d = qobject_cast<T*>(w); d && d->isVisible()) {
                timer->stop();
                timer->deleteLater();
                answer(d);
                return;
            }
    });
    timer->start();
}

HostKeyInfo gpubox() {
    HostKeyInfo info;
    info.host = "gpubox";
    info.keyType = "ssh-ed25519";
    info.fingerprintSha256 = "SHA256:Zm9vYmFyYmF6";
    info.viaJump = true;
    return info;
}

}  // namespace

class SshDialogsTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() { streetgan::test::isolateSettings(tmp_.filePath("settings")); }

    void theHostKeyBoxNamesTheKeyAndGivesEachAnswer() {
        QWidget window;
        SshPrompter prompter;
        SshDialogs::install(prompter, &window);
        const SshOptions o = prompter.withPrompts({});
        const std::pair<QString, HostKeyDecision> answers[] = {{"Accept once", HostKeyDecision::AcceptOnce},
                                                               {"Accept and remember", HostKeyDecision::AcceptAndRemember}};
        QString text;
        // Refuse first: a refused key is asked again next time (an accepted one is not).
        whenOpen<QMessageBox>([&](QMessageBox* box) {
            text = box->text();
            for (QAbstractButton* b : box->buttons())
                if (b->text() == "Refuse") b->click();
        });
        QCOMPARE(o.onUnknownHostKey(gpubox()), HostKeyDecision::Refuse);
        QVERIFY2(text.contains("gpubox (through the jump host)") && text.contains("ssh-ed25519") && text.contains("SHA256:Zm9vYmFyYmF6") &&
                     text.contains("ssh-keygen -lf"),
                 qPrintable(text));
        HostKeyInfo other = gpubox();
        for (const auto& [buttonText, want] : answers) {
            other.host += "x";                  // a host not answered yet: asked again
            const QString button = buttonText;  // (C++17 lambdas cannot capture a structured binding)
            whenOpen<QMessageBox>([&](QMessageBox* box) {
                for (QAbstractButton* b : box->buttons())
                    if (b->text() == button) b->click();
            });
            QCOMPARE(o.onUnknownHostKey(other), want);
        }
    }

    void thePasswordBoxGivesWhatWasTypedOrNothing() {
        QWidget window;
        SshPrompter prompter;
        SshDialogs::install(prompter, &window);
        const SshOptions o = prompter.withPrompts({});
        whenOpen<QInputDialog>([](QInputDialog* d) { d->reject(); });
        QVERIFY(!o.password("user@gpubox's password:"));
        whenOpen<QInputDialog>([](QInputDialog* d) {
            QCOMPARE(d->textEchoMode(), QLineEdit::Password);
            d->setTextValue("s3cret");
            d->accept();
        });
        QCOMPARE(o.password("user@gpubox's password:"), std::optional<std::string>("s3cret"));
        // Remembered for the session: no second box.
        QCOMPARE(o.password("user@gpubox's password:"), std::optional<std::string>("s3cret"));
    }

    void withoutDialogsAKeyIsRefusedAndNoPasswordGiven() {
        SshPrompter prompter;
        const SshOptions o = prompter.withPrompts({});
        QCOMPARE(o.onUnknownHostKey(gpubox()), HostKeyDecision::Refuse);
        QVERIFY(!o.password("password:"));
        QVERIFY(!o.passphrase("/home/u/.ssh/id_ed25519"));
    }
};

QTEST_MAIN(SshDialogsTest)
#include "SshDialogsTest.moc"
