// What SshSession::connect needs: the target (an alias or host name, resolved through the
// OpenSSH config), explicit overrides (which win over the config), known_hosts, and the callbacks
// that make the decisions a user has to make (unknown host key, passphrase, password).
// Callbacks run on the thread that calls SshSession::connect (or RemoteAttach::run).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace streetgan {

/// A host key that is not in known_hosts, as shown to the user.
struct HostKeyInfo {
    std::string host;  ///< the name known_hosts uses for it: host, or [host]:port
    int port = 22;
    std::string keyType;            ///< e.g. "ssh-ed25519"
    std::string fingerprintSha256;  ///< "SHA256:..." exactly as `ssh-keygen -lf` prints it
    std::string knownHostsFile;     ///< where accept-and-remember writes it
    bool viaJump = false;           ///< the host is reached through a jump host
};

enum class HostKeyDecision { Refuse, AcceptOnce, AcceptAndRemember };

/// Decides about an unknown host key. Not called for a changed key (always refused).
using HostKeyCallback = std::function<HostKeyDecision(const HostKeyInfo&)>;
/// Returns the passphrase of an encrypted key file (`keyFile`), or nullopt to skip that key.
using PassphraseCallback = std::function<std::optional<std::string>(const std::string& keyFile)>;
/// Returns the password for `prompt` (e.g. "root@host's password"), or nullopt to give up.
/// The client wipes its copy after use and never stores it.
using PasswordCallback = std::function<std::optional<std::string>(const std::string& prompt)>;

struct SshOptions {
    /// Alias or host name; "user@host" sets the user too. Looked up in the config's Host blocks.
    std::string host;
    std::optional<int> port;                 ///< explicit: wins over the config (default 22)
    std::optional<std::string> user;         ///< explicit: wins over the config (default: local user)
    std::vector<std::string> identityFiles;  ///< explicit: replace the config's IdentityFile lines
    /// Explicit jump list "[user@]host[:port][,...]" or "none": wins over the config's ProxyJump.
    std::optional<std::string> jump;
    /// known_hosts file for every hop; empty: ~/.ssh/known_hosts plus /etc/ssh/ssh_known_hosts.
    /// When named, only that file is read and written.
    std::string knownHostsFile;
    /// OpenSSH client config; empty: ~/.ssh/config; "none": no config file.
    std::string configFile;
    bool useAgent = true;  ///< try ssh-agent ($SSH_AUTH_SOCK) first
    /// Try ~/.ssh/id_ed25519, id_ecdsa, id_rsa when neither options nor config name a key.
    bool useDefaultIdentities = true;
    int connectTimeoutSeconds = 20;
    /// Idle seconds between keepalive messages on an attach stream; a peer that stops
    /// acknowledging for 3 intervals is treated as gone (TCP_USER_TIMEOUT). 0: off.
    int keepaliveSeconds = 15;

    HostKeyCallback onUnknownHostKey;  ///< null: unknown keys are refused (HostKeyError)
    PassphraseCallback passphrase;     ///< null: encrypted keys that need one are skipped
    PasswordCallback password;         ///< null: no password / keyboard-interactive auth
};

}  // namespace streetgan
