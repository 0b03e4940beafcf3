#include "hosts/ConnectDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "base/remote/SshConfig.h"

namespace streetgan::ui {

ConnectDialog::ConnectDialog(const QList<HostConfig>& recent, QWidget* parent) : QDialog(parent), recent_(recent) {
    setWindowTitle(tr("Connect to a host"));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    host_ = new QComboBox;
    host_->setEditable(true);
    for (const auto& c : recent) host_->addItem(c.host);
    host_->setCurrentText(recent.isEmpty() ? QString() : recent.front().host);
    host_->setToolTip(tr("A host name, user@host, or an alias of ~/.ssh/config"));
    user_ = new QLineEdit;
    user_->setPlaceholderText(tr("from ~/.ssh/config or your local user"));
    port_ = new QSpinBox;
    port_->setRange(0, 65535);
    port_->setObjectName("connectPort");
    // 0 is "the config's": the special text names the port the config gives the typed host, and
    // the button returns to it (a port typed for a failed attempt is remembered with the host).
    auto* configPortButton = new QPushButton(tr("Use config's"));
    configPortButton->setObjectName("connectPortFromConfig");
    configPortButton->setToolTip(tr("Take the port from ~/.ssh/config (or 22)"));
    auto* portRow = new QHBoxLayout;
    portRow->addWidget(port_, 1);
    portRow->addWidget(configPortButton);
    connect(configPortButton, &QPushButton::clicked, this, [this] { port_->setValue(0); });
    key_ = new QLineEdit;
    key_->setPlaceholderText(tr("agent, config or ~/.ssh/id_*"));
    auto* browse = new QPushButton(tr("Browse…"));
    auto* keyRow = new QHBoxLayout;
    keyRow->addWidget(key_, 1);
    keyRow->addWidget(browse);
    jump_ = new QLineEdit;
    jump_->setPlaceholderText(tr("[user@]host[:port], or empty for the config's ProxyJump"));
    root_ = new QLineEdit("streetgan-runs");
    trainer_ = new QLineEdit("streetgan-trainer");
    form->addRow(tr("Host:"), host_);
    form->addRow(tr("User:"), user_);
    form->addRow(tr("Port:"), portRow);
    form->addRow(tr("Key file:"), keyRow);
    form->addRow(tr("Jump host:"), jump_);
    form->addRow(tr("Runs folder there:"), root_);
    form->addRow(tr("Trainer there:"), trainer_);
    slurm_ = new QCheckBox(tr("Slurm login node: New run submits jobs to its cluster"));
    slurm_->setToolTip(tr(
        "Runs are submitted with sbatch (one job each) instead of started on this host; the runs folder must be on the file system the compute nodes share."));
    form->addRow(QString(), slurm_);
    layout->addLayout(form);
    auto* hint = new QLabel(tr("Passwords and passphrases are asked when needed and never stored."));
    hint->setWordWrap(true);
    layout->addWidget(hint);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Connect"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Private key"), QDir::homePath() + "/.ssh");
        if (!p.isEmpty()) key_->setText(p);
    });
    connect(host_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0 && i < recent_.size()) setConfig(recent_[i]);
    });
    // Each host starts from its own remembered values, or blank: typing a new host after a
    // remembered one clears what that one filled in (its trainer path is no other host's).
    connect(host_, &QComboBox::editTextChanged, this, &ConnectDialog::hostTyped);
    if (!recent.isEmpty()) setConfig(recent.front());
    showConfigPort();
}

void ConnectDialog::hostTyped(const QString& text) {
    showConfigPort();
    const QString h = text.trimmed();
    for (const HostConfig& r : recent_)
        if (r.host == h) {
            if (filledFrom_ != h) setConfig(r);
            return;
        }
    if (filledFrom_.isEmpty()) return;  // the user's own values for this new host stay
    filledFrom_.clear();
    HostConfig blank;
    user_->clear();
    port_->setValue(0);
    key_->clear();
    jump_->clear();
    root_->setText(blank.root);
    trainer_->setText(blank.trainer);
    slurm_->setChecked(blank.isSlurm());
}

int ConnectDialog::configPort() const {
    QString host = host_->currentText().trimmed();
    if (const int at = host.lastIndexOf('@'); at >= 0) host = host.mid(at + 1);
    if (host.isEmpty()) return 22;
    QString file;
    for (const HostConfig& r : recent_)
        if (r.host == host_->currentText().trimmed()) file = r.configFile;
    try {
        // The user's own file, parsed here (a small file; `ssh -G` is for connecting).
        const QString path = file.isEmpty() ? QString::fromStdString(SshConfig::defaultPath()) : file;
        if (!configs_.contains(path)) configs_.insert(path, SshConfig::load(path.toStdString()));
        return configs_.value(path).resolve(host.toStdString()).port.value_or(22);
    } catch (const std::exception&) {
        return 22;  // a malformed config is named when connecting
    }
}

void ConnectDialog::showConfigPort() { port_->setSpecialValueText(tr("from config (%1)").arg(configPort())); }

void ConnectDialog::setConfig(const HostConfig& c) {
    filledFrom_ = c.host;
    if (host_->currentText() != c.host) host_->setCurrentText(c.host);
    user_->setText(c.user);
    port_->setValue(c.port);
    key_->setText(c.keyFile);
    jump_->setText(c.jump);
    root_->setText(c.root);
    trainer_->setText(c.trainer);
    slurm_->setChecked(c.isSlurm());
}

HostConfig ConnectDialog::config() const {
    HostConfig c;
    c.host = host_->currentText().trimmed();
    for (const HostConfig& r : recent_)  // settings the dialog does not show (known_hosts, config file)
        if (r.host == c.host) {
            c.knownHosts = r.knownHosts;
            c.configFile = r.configFile;
        }
    c.user = user_->text().trimmed();
    c.port = port_->value();
    c.keyFile = key_->text().trimmed();
    c.jump = jump_->text().trimmed();
    c.root = root_->text().trimmed().isEmpty() ? QString("streetgan-runs") : root_->text().trimmed();
    c.trainer = trainer_->text().trimmed().isEmpty() ? QString("streetgan-trainer") : trainer_->text().trimmed();
    c.scheduler = slurm_->isChecked() ? QString(HostConfig::kSlurm) : QString();
    return c;
}

}  // namespace streetgan::ui
