// How the SSH client reads OpenSSH's client configuration (~/.ssh/config, ssh_config(5)): where an
// `ssh` program exists, `ssh -G HOST` resolves the host exactly as ssh itself would (Match, Include,
// canonicalisation, /etc/ssh/ssh_config; resolveWithOpenSsh); without one, this parser of the
// subset the client uses:
// Host blocks with patterns (`*`, `?`, `!negation`, several per line), Match all, Include,
// HostName (with %h), User, Port, IdentityFile (accumulates; ~ and %d %h %p %r %u %% expanded)
// ProxyJump (a comma list of [user@]host[:port] hops, or none), ProxyCommand and IdentitiesOnly.
// As in OpenSSH, the first
// value obtained for a keyword wins, and explicit options (SshOptions) win over the file.
// Other keywords are ignored.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace streetgan {

/// One hop of a ProxyJump / --jump list: [user@]host[:port] (IPv6 as [addr]:port).
struct JumpSpec {
    std::string user;  ///< empty: from the config or the local user
    std::string host;  ///< alias or host name, resolved through the config again
    int port = 0;      ///< 0: from the config or 22

    /// Parses "[user@]host[:port]"; throws ConfigError naming `text` when it is not one.
    static JumpSpec parse(const std::string& text);
    /// Parses a comma-separated list; "none" gives an empty list.
    static std::vector<JumpSpec> parseList(const std::string& text);
};

/// What the config says about one host alias (unset fields: the file says nothing).
struct SshHostSettings {
    std::optional<std::string> hostName;
    std::optional<std::string> user;
    std::optional<int> port;
    std::vector<std::string> identityFiles;   ///< raw, before token expansion (see expandPath)
    std::optional<std::string> proxyJump;     ///< raw value ("none" included)
    std::optional<std::string> proxyCommand;  ///< raw value, tokens (%h %p %r) not expanded; "none": none
    bool identitiesOnly = false;              ///< IdentitiesOnly yes: only the IdentityFiles, no agent keys
};

/// A parsed configuration. Immutable after parsing; thread-safe for concurrent reads.
class SshConfig {
public:
    /// An empty configuration (every host gets no settings).
    SshConfig() = default;
    /// Parses config text. `baseDir` resolves relative Include paths (OpenSSH: ~/.ssh).
    /// Throws ConfigError naming `origin` and the line on a malformed line.
    static SshConfig parse(const std::string& text, const std::string& origin = "ssh config", const std::string& baseDir = "");
    /// Reads and parses a file; a missing file is an empty configuration.
    static SshConfig load(const std::string& path);
    /// ~/.ssh/config ($HOME, else the password database).
    static std::string defaultPath();

    /// The settings for `alias` (the host as the user typed it), first value per keyword.
    SshHostSettings resolve(const std::string& alias) const;
    /// The settings for `alias` as `ssh -G [-F configFile] alias` prints them (configFile empty:
    /// ssh's own defaults, ~/.ssh/config and /etc/ssh/ssh_config); nullopt when there is no ssh
    /// program. The identity files are empty when ssh printed only its defaults. Throws
    /// ConfigError with ssh's own message when ssh rejects the configuration.
    static std::optional<SshHostSettings> resolveWithOpenSsh(const std::string& alias, const std::string& configFile);

    /// OpenSSH pattern match (case-insensitive): `*` any run, `?` one character.
    static bool matchPattern(const std::string& pattern, const std::string& text);
    /// Expands a leading ~ and the tokens %d (home) %h (host) %p (port) %r (remote user)
    /// %u (local user) %% in an IdentityFile-style path.
    static std::string expandPath(const std::string& path, const std::string& host, int port, const std::string& remoteUser);
    /// $HOME, else the password database entry of the current user.
    static std::string homeDir();
    /// The current local user name.
    static std::string localUser();
    /// OpenSSH's own check (9.6 and later, CVE-2023-51385) of a host or user name given by the user
    /// rather than by the config file: no shell metacharacter ('`"$\;&<>|(){}), no leading '-', for
    /// a host no space or control character, for a user no '-' after a space and no trailing '\'.
    /// Throws ConfigError naming the name and the character. `kind`: "host" or "user".
    static void checkGivenName(const std::string& kind, const std::string& name);

private:
    struct Entry {
        std::string key;  // lower case
        std::string value;
    };
    struct Block {
        std::vector<std::string> patterns;  // "!x" negated; empty patterns + matchAll: always
        bool matchAll = false;
        bool never = false;    // a Match block we do not understand
        bool leading = false;  // lines before a file's first Host (an Include inherits the context)
        std::vector<Entry> entries;
    };
    void parseInto(const std::string& text, const std::string& origin, const std::string& baseDir, int depth);
    static bool blockMatches(const Block& b, const std::string& alias);
    std::vector<Block> blocks_;
};

}  // namespace streetgan
