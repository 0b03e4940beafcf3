// The HostConfig of the GUI tests that talk to the test sshd on 127.0.0.1 (SshdFixture): the key,
// known_hosts and remote runs folder in the test's temporary folder, no ~/.ssh/config.
#pragma once

#include <QString>
#include <QTemporaryDir>

#include "remote/RemoteHost.h"

namespace streetgan::test {

inline ui::HostConfig loopbackHost(int port, const QTemporaryDir& tmp, const QString& trainer = STREETGAN_TRAINER) {
    ui::HostConfig c;
    c.host = "127.0.0.1";
    c.port = port;
    c.keyFile = tmp.filePath("id_user");
    c.knownHosts = tmp.filePath("known_hosts");
    c.configFile = "none";
    c.root = tmp.filePath("remote-runs");
    c.trainer = trainer;
    return c;
}

}  // namespace streetgan::test
