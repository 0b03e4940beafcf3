// Connect to a host: host or ~/.ssh/config alias, user, port, key, jump host, where the runs live
// and the trainer binary there. Prefilled from recent hosts: each host from its own remembered
// values, a host never connected to from blank fields.
#pragma once

#include <QDialog>

#include <QHash>

#include "base/remote/SshConfig.h"
#include "remote/RemoteHost.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace streetgan::ui {

class ConnectDialog : public QDialog {
    Q_OBJECT
public:
    ConnectDialog(const QList<HostConfig>& recent, QWidget* parent = nullptr);
    HostConfig config() const;
    void setConfig(const HostConfig& c);

    /// The port ~/.ssh/config (or the host's own config file) gives the typed host, 22 when none.
    int configPort() const;

private:
    void showConfigPort();
    /// The host field's text changed: a remembered host fills its values in, a new one after a
    /// remembered one starts blank.
    void hostTyped(const QString& text);

    QList<HostConfig> recent_;
    QComboBox* host_;
    QLineEdit *user_, *key_, *jump_, *root_, *trainer_;
    QSpinBox* port_;
    QCheckBox* slurm_;  ///< the host is a Slurm login node (HostConfig::scheduler)
    QString filledFrom_;
    /// Parsed config files by path: configPort() runs on each keystroke, the file is read once.
    mutable QHash<QString, SshConfig> configs_;  ///< the remembered host whose values the fields show (empty: none)
};

}  // namespace streetgan::ui
