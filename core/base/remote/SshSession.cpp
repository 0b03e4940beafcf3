#include "base/remote/SshSession.h"

#include <libssh/libssh.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string.h>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/remote/JumpTunnel.h"
#include "base/remote/RemoteError.h"
#include "base/remote/ShellQuote.h"
#include "base/remote/SshConfig.h"

namespace streetgan {

namespace {

constexpr char kCiphers[] = "aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr";

bool fileExists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

void wipe(std::string& s) {
    if (!s.empty()) ::explicit_bzero(s.data(), s.size());
    s.clear();
}

// RAII for an ssh_key.
struct Key {
    ssh_key k = nullptr;
    ~Key() {
        if (k) ssh_key_free(k);
    }
};

struct PassphraseContext {
    const PassphraseCallback* callback;
    std::string file;
    bool asked = false;
};

int passphraseThunk(const char* /*prompt*/, char* buf, size_t len, int /*echo*/, int /*verify*/, void* userdata) {
    auto* ctx = static_cast<PassphraseContext*>(userdata);
    if (!ctx->callback || !*ctx->callback) return -1;
    ctx->asked = true;
    std::optional<std::string> p = (*ctx->callback)(ctx->file);
    if (!p || p->size() + 1 > len) {
        if (p) wipe(*p);
        return -1;
    }
    std::memcpy(buf, p->c_str(), p->size() + 1);
    wipe(*p);
    return 0;
}

std::string fingerprintOf(ssh_key key) {
    unsigned char* hash = nullptr;
    size_t len = 0;
    if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &len) != SSH_OK) return "SHA256:?";
    char* fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, len);
    ssh_clean_pubkey_hash(&hash);
    std::string s = fp ? fp : "SHA256:?";
    ssh_string_free_char(fp);
    return s;
}

// Lines of `file` that hold a key for `name` other than `key` (libssh does not say which).
std::string conflictingLines(const std::string& file, const std::string& name, ssh_key key) {
    std::ifstream in(file);
    std::string line, found;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line[0] == '#') continue;
        ssh_knownhosts_entry* entry = nullptr;
        if (ssh_known_hosts_parse_line(name.c_str(), line.c_str(), &entry) == SSH_OK && entry) {
            if (entry->publickey && ssh_key_cmp(entry->publickey, key, SSH_KEY_CMP_PUBLIC) != 0) found += (found.empty() ? "" : ",") + std::to_string(n);
            ssh_knownhosts_entry_free(entry);
        }
    }
    return found;
}

void setTcpKeepalive(int fd, int seconds) {
    if (fd < 0 || seconds <= 0) return;
    const int on = 1, idle = seconds, count = 3;
    const unsigned userTimeoutMs = static_cast<unsigned>(seconds) * 3000u;
    // Fails harmlessly on a socketpair (a hop behind a jump host): that hop's TCP is the jump's.
    (void)::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    (void)::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    (void)::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &idle, sizeof idle);
    (void)::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
    (void)::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &userTimeoutMs, sizeof userTimeoutMs);
}

// A session being set up, with the tunnel socket it uses (libssh does not close an fd it was
// given with SSH_OPTIONS_FD: whoever frees the session closes it, after ssh_free).
class SessionGuard {
public:
    explicit SessionGuard(ssh_session s) : s_(s) {}
    ~SessionGuard() {
        if (s_) {
            ssh_disconnect(s_);
            ssh_free(s_);
        }
        if (fd_ >= 0) ::close(fd_);
    }
    void setFd(int fd) { fd_ = fd; }
    ssh_session release(int& fd) {
        ssh_session s = s_;
        fd = fd_;
        s_ = nullptr;
        fd_ = -1;
        return s;
    }
    ssh_session get() const { return s_; }

private:
    ssh_session s_;
    int fd_ = -1;
};

void verifyHostKey(ssh_session s, const SshHop& hop, const SshOptions& options, const std::string& knownHosts, bool viaJump) {
    Key srv;
    if (ssh_get_server_publickey(s, &srv.k) != SSH_OK) throw RemoteError(hop.label() + " sent no usable host key: " + ssh_get_error(s));
    const std::string fp = fingerprintOf(srv.k);
    const std::string type = ssh_key_type_to_char(ssh_key_type(srv.k)) ? ssh_key_type_to_char(ssh_key_type(srv.k)) : "unknown";
    const std::string name = hop.knownHostsName();
    switch (ssh_session_is_known_server(s)) {
        case SSH_KNOWN_HOSTS_OK:
            return;
        case SSH_KNOWN_HOSTS_CHANGED:
        case SSH_KNOWN_HOSTS_OTHER: {
            const std::string lines = conflictingLines(knownHosts, name, srv.k);
            throw HostKeyError("the host key of " + name + " has CHANGED (the server now presents " + type + " " + fp + ", which does not match " + knownHosts +
                               (lines.empty() ? std::string() : " line " + lines) +
                               "): someone may be intercepting the connection, or the host was reinstalled. Refusing to connect. If you know the "
                               "change is legitimate, remove the old key with: ssh-keygen -R '" +
                               name + "' -f " + knownHosts);
        }
        case SSH_KNOWN_HOSTS_UNKNOWN:
        case SSH_KNOWN_HOSTS_NOT_FOUND: {
            HostKeyInfo info{name, hop.port, type, fp, knownHosts, viaJump};
            const HostKeyDecision d = options.onUnknownHostKey ? options.onUnknownHostKey(info) : HostKeyDecision::Refuse;
            if (d == HostKeyDecision::AcceptOnce) return;
            if (d == HostKeyDecision::AcceptAndRemember) {
                std::error_code ec;  // ~/.ssh may not exist yet (a fresh account)
                const std::filesystem::path dir = std::filesystem::path(knownHosts).parent_path();
                if (!dir.empty() && !std::filesystem::exists(dir, ec)) {
                    std::filesystem::create_directories(dir, ec);
                    std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
                }
                if (ssh_session_update_known_hosts(s) != SSH_OK)
                    throw RemoteError("cannot add the host key of " + name + " to " + knownHosts + ": " + ssh_get_error(s) +
                                      "; check that the file and its folder are writable");
                return;
            }
            throw HostKeyError("the host key of " + name + " is not known (" + type + " " + fp + "); verify it and accept it, or add it to " + knownHosts +
                               " (ssh-keyscan -p " + std::to_string(hop.port) + " " + hop.hostName + ")");
        }
        default:
            throw RemoteError("cannot check the host key of " + name + " against " + knownHosts + ": " + ssh_get_error(s) +
                              "; check that the file is readable");
    }
}

void authenticate(ssh_session s, const SshHop& hop, const SshOptions& options) {
    std::string tried;
    auto note = [&](const std::string& what) { tried += (tried.empty() ? "" : ", ") + what; };
    auto lostDuringAuth = [&] { return ConnectionLostError("lost the connection to " + hop.label() + " during authentication: " + ssh_get_error(s)); };
    const char* sock = std::getenv("SSH_AUTH_SOCK");
    const bool useAgent = options.useAgent && sock && *sock && !(hop.identitiesOnly && !hop.identityFiles.empty());
    // Round trips count on a long link (each is the link's delay): with a key to offer, no "none"
    // request first to learn the methods (a refused key's answer lists them too), and a key file
    // that opens without a passphrase is offered signed at once rather than asked about first
    // (OpenSSH asks first; the signature costs microseconds, the question a round trip). A key
    // with a passphrase is still asked about first, so nobody types a passphrase for a key the
    // server would refuse.
    const bool haveKeys = useAgent || !hop.identityFiles.empty();
    int methods = SSH_AUTH_METHOD_PUBLICKEY;
    if (!haveKeys) {
        const int rc = ssh_userauth_none(s, nullptr);
        if (rc == SSH_AUTH_SUCCESS) return;
        if (rc == SSH_AUTH_ERROR) throw lostDuringAuth();
        methods = ssh_userauth_list(s, nullptr);
    }
    if (methods & SSH_AUTH_METHOD_PUBLICKEY) {
        if (useAgent) {
            if (ssh_userauth_agent(s, nullptr) == SSH_AUTH_SUCCESS) return;
            note("agent");
        }
        for (const auto& file : hop.identityFiles) {
            if (!fileExists(file)) {
                note(file + " (missing)");
                continue;
            }
            {
                // No passphrase callback: an encrypted key fails here without a prompt (a null
                // callback would let OpenSSL ask on the terminal).
                PassphraseContext none{nullptr, file};
                Key plain;
                if (ssh_pki_import_privkey_file(file.c_str(), nullptr, passphraseThunk, &none, &plain.k) == SSH_OK) {
                    const int rc = ssh_userauth_publickey(s, nullptr, plain.k);
                    if (rc == SSH_AUTH_SUCCESS) return;
                    if (rc == SSH_AUTH_ERROR) throw lostDuringAuth();
                    note(file + " (not accepted)");
                    continue;
                }
            }
            Key pub;
            if (ssh_pki_import_pubkey_file((file + ".pub").c_str(), &pub.k) == SSH_OK) {
                if (ssh_userauth_try_publickey(s, nullptr, pub.k) != SSH_AUTH_SUCCESS) {
                    note(file + " (not accepted)");
                    continue;
                }
            }
            PassphraseContext ctx{&options.passphrase, file};
            Key priv;
            if (ssh_pki_import_privkey_file(file.c_str(), nullptr, passphraseThunk, &ctx, &priv.k) != SSH_OK) {
                note(file + (ctx.asked ? " (wrong passphrase)" : " (unreadable or needs a passphrase)"));
                continue;
            }
            const int rc = ssh_userauth_publickey(s, nullptr, priv.k);
            if (rc == SSH_AUTH_SUCCESS) return;
            if (rc == SSH_AUTH_ERROR) throw lostDuringAuth();
            note(file + " (not accepted)");
        }
    }
    // The methods the server named in its last refusal (the keys', or the "none" request's); no
    // request made yet (every key file missing, an empty agent): ask with "none" now.
    if (haveKeys) {
        methods = ssh_userauth_list(s, nullptr);
        if (methods == 0) {
            const int none = ssh_userauth_none(s, nullptr);
            if (none == SSH_AUTH_SUCCESS) return;
            if (none == SSH_AUTH_ERROR) throw lostDuringAuth();
            methods = ssh_userauth_list(s, nullptr);
        }
    }
    int rc = SSH_AUTH_DENIED;
    if (options.password && (methods & (SSH_AUTH_METHOD_PASSWORD | SSH_AUTH_METHOD_INTERACTIVE))) {
        for (int attempt = 0; attempt < 3; ++attempt) {
            std::optional<std::string> pw = options.password(hop.user + "@" + hop.hostName + "'s password");
            if (!pw) break;
            if (methods & SSH_AUTH_METHOD_PASSWORD) {
                rc = ssh_userauth_password(s, nullptr, pw->c_str());
            } else {
                rc = ssh_userauth_kbdint(s, nullptr, nullptr);
                while (rc == SSH_AUTH_INFO) {
                    const int prompts = ssh_userauth_kbdint_getnprompts(s);
                    for (int i = 0; i < prompts; ++i) ssh_userauth_kbdint_setanswer(s, static_cast<unsigned>(i), pw->c_str());
                    rc = ssh_userauth_kbdint(s, nullptr, nullptr);
                }
            }
            wipe(*pw);
            if (rc == SSH_AUTH_SUCCESS) return;
            if (rc == SSH_AUTH_ERROR) throw ConnectionLostError("lost the connection to " + hop.label() + " during authentication: " + ssh_get_error(s));
            note("password");
        }
    }
    std::string allowed;
    if (methods & SSH_AUTH_METHOD_PUBLICKEY) allowed += "publickey ";
    if (methods & SSH_AUTH_METHOD_PASSWORD) allowed += "password ";
    if (methods & SSH_AUTH_METHOD_INTERACTIVE) allowed += "keyboard-interactive ";
    if (!allowed.empty()) allowed.pop_back();
    throw AuthError(hop.label() + " refused authentication (tried: " + (tried.empty() ? "nothing usable" : tried) +
                    "; the server accepts: " + (allowed.empty() ? "none" : allowed) +
                    "); check the user name, that your public key is in the server's ~/.ssh/authorized_keys, or name the key with --identity");
}

}  // namespace

std::string SshHop::label() const { return user + "@" + hostName + (port == 22 ? "" : ":" + std::to_string(port)); }

std::string SshHop::knownHostsName() const { return port == 22 ? hostName : "[" + hostName + "]:" + std::to_string(port); }

std::vector<SshHop> SshSession::resolve(const SshOptions& options) {
    if (options.host.empty()) throw ConfigError("no remote host given; name one (an ~/.ssh/config alias or a host name)");
    // A host resolves as ssh itself would (`ssh -G`: Match, Include, /etc/ssh/ssh_config) where an
    // ssh program exists; else through our parser. A named file that does not exist is no
    // configuration (as before), not ssh's error.
    const std::string& file = options.configFile;
    const bool noConfig = file == "none" || (!file.empty() && ::access(file.c_str(), F_OK) != 0);
    std::optional<SshConfig> parsed;
    auto settingsOf = [&](const std::string& alias) -> SshHostSettings {
        if (noConfig) return {};
        if (auto s = SshConfig::resolveWithOpenSsh(alias, file)) return *s;
        if (!parsed) parsed = SshConfig::load(file.empty() ? SshConfig::defaultPath() : file);
        return parsed->resolve(alias);
    };
    // ProxyCommand's tokens, as ssh expands them: %h host, %p port, %r user, %n the alias, %%.
    auto proxyCommandOf = [](const SshHostSettings& s, const SshHop& hop) {
        if (!s.proxyCommand || *s.proxyCommand == "none") return std::string();
        std::string out;
        const std::string& in = *s.proxyCommand;
        for (size_t i = 0; i < in.size(); ++i) {
            if (in[i] != '%' || i + 1 == in.size()) {
                out += in[i];
                continue;
            }
            // Quoted for the shell that runs the command (a name with only ordinary characters
            // is left as it is, so a command that quotes %h itself still works).
            switch (in[++i]) {
                case 'h':
                    out += ShellQuote::quote(hop.hostName);
                    break;
                case 'p':
                    out += std::to_string(hop.port);
                    break;
                case 'r':
                    out += ShellQuote::quote(hop.user);
                    break;
                case 'n':
                    out += ShellQuote::quote(hop.alias);
                    break;
                case '%':
                    out += '%';
                    break;
                default:
                    out += '%', out += in[i];
            }
        }
        return out;
    };
    std::string alias = options.host, userFromHost;
    if (const size_t at = alias.rfind('@'); at != std::string::npos) {
        userFromHost = alias.substr(0, at);
        alias = alias.substr(at + 1);
    }
    // What the user typed, checked as ssh checks its command line, before anything is substituted
    // or run (ssh -G included); the config file's own names are the user's configuration.
    SshConfig::checkGivenName("host", alias);
    if (!userFromHost.empty()) SshConfig::checkGivenName("user", userFromHost);
    if (options.user) SshConfig::checkGivenName("user", *options.user);
    if (options.jump)
        for (const JumpSpec& j : JumpSpec::parseList(*options.jump)) {
            SshConfig::checkGivenName("host", j.host);
            if (!j.user.empty()) SshConfig::checkGivenName("user", j.user);
        }
    const SshHostSettings ts = settingsOf(alias);
    SshHop target;
    target.alias = alias;
    target.hostName = ts.hostName.value_or(alias);
    target.port = options.port.value_or(ts.port.value_or(22));
    target.user = options.user ? *options.user : !userFromHost.empty() ? userFromHost : ts.user.value_or(SshConfig::localUser());
    std::vector<std::string> rawIds = options.identityFiles.empty() ? ts.identityFiles : options.identityFiles;
    if (rawIds.empty() && options.useDefaultIdentities) rawIds = {"~/.ssh/id_ed25519", "~/.ssh/id_ecdsa", "~/.ssh/id_rsa"};
    for (const auto& id : rawIds) target.identityFiles.push_back(SshConfig::expandPath(id, target.hostName, target.port, target.user));
    target.identitiesOnly = ts.identitiesOnly;
    target.proxyCommand = proxyCommandOf(ts, target);

    std::vector<SshHop> hops;
    const std::string jumpText = options.jump ? *options.jump : ts.proxyJump.value_or("none");
    for (const JumpSpec& j : JumpSpec::parseList(jumpText)) {
        const SshHostSettings js = settingsOf(j.host);
        SshHop hop;
        hop.alias = j.host;
        hop.hostName = js.hostName.value_or(j.host);
        hop.port = j.port ? j.port : js.port.value_or(22);
        hop.user = !j.user.empty() ? j.user : js.user.value_or(SshConfig::localUser());
        std::vector<std::string> ids = js.identityFiles;
        // The explicit key of the target is tried on the jump host too (after its own keys).
        for (const auto& id : options.identityFiles) ids.push_back(id);
        if (ids.empty() && options.useDefaultIdentities) ids = {"~/.ssh/id_ed25519", "~/.ssh/id_ecdsa", "~/.ssh/id_rsa"};
        for (const auto& id : ids) hop.identityFiles.push_back(SshConfig::expandPath(id, hop.hostName, hop.port, hop.user));
        hop.identitiesOnly = js.identitiesOnly;
        hop.proxyCommand = proxyCommandOf(js, hop);
        hops.push_back(std::move(hop));
    }
    hops.push_back(std::move(target));
    return hops;
}

std::unique_ptr<SshSession> SshSession::connect(const SshOptions& options) {
    std::unique_ptr<SshSession> self(new SshSession());
    self->hops_ = resolve(options);
    self->keepaliveSeconds_ = options.keepaliveSeconds;
    const std::string knownHosts = options.knownHostsFile.empty() ? SshConfig::homeDir() + "/.ssh/known_hosts" : options.knownHostsFile;
    for (size_t i = 0; i < self->hops_.size(); ++i) {
        const SshHop& hop = self->hops_[i];
        SessionGuard guard(ssh_new());
        ssh_session s = guard.get();
        if (!s) throw RemoteError("cannot create an SSH session (out of memory?)");
        const long timeout = options.connectTimeoutSeconds;
        const int no = 0;
        unsigned int port = static_cast<unsigned int>(hop.port);
        const int yes = 1;
        ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no);  // SshConfig did it, under our rules
        // Small packets (SFTP read requests, attach commands, keepalives) must not wait for Nagle:
        // with delayed ACKs that stalls pipelined SFTP reads by 40 ms at a time.
        ssh_options_set(s, SSH_OPTIONS_NODELAY, &yes);
        // AES-GCM first: OpenSSL runs it on the CPU's AES instructions, at several times the speed
        // of libssh 0.10's chacha20-poly1305 (which OpenSSH prefers, with its own fast one): a
        // checkpoint download on a fast link is bound by this (measured in bench_remote.sh).
        ssh_options_set(s, SSH_OPTIONS_CIPHERS_C_S, kCiphers);
        ssh_options_set(s, SSH_OPTIONS_CIPHERS_S_C, kCiphers);
        ssh_options_set(s, SSH_OPTIONS_HOST, hop.hostName.c_str());
        ssh_options_set(s, SSH_OPTIONS_PORT, &port);
        ssh_options_set(s, SSH_OPTIONS_USER, hop.user.c_str());
        ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout);
        ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, knownHosts.c_str());
        if (!options.knownHostsFile.empty()) ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null");
        if (i > 0) {
            auto tunnel = std::make_unique<JumpTunnel>(self->sessions_[i - 1], self->hops_[i - 1].label(), hop.hostName, hop.port, options.keepaliveSeconds);
            int fd = tunnel->takeTargetFd();
            guard.setFd(fd);
            if (ssh_options_set(s, SSH_OPTIONS_FD, &fd) != SSH_OK) {
                throw RemoteError("cannot hand the jump tunnel to the session for " + hop.label());
            }
            self->tunnels_.push_back(std::move(tunnel));
        }
        // The first connection may go through the configuration's ProxyCommand (a later hop
        // goes through the one before it); libssh runs it and talks over its stdin/stdout.
        const bool proxied = i == 0 && !hop.proxyCommand.empty();
        if (proxied && ssh_options_set(s, SSH_OPTIONS_PROXYCOMMAND, hop.proxyCommand.c_str()) != SSH_OK)
            throw RemoteError("cannot use the ProxyCommand of " + hop.label() + ": " + ssh_get_error(s));
        if (ssh_connect(s) != SSH_OK)
            throw RemoteError("cannot connect to " + hop.label() + (i > 0 ? " through " + self->hops_[i - 1].label() : std::string()) +
                              (proxied ? " through ProxyCommand '" + hop.proxyCommand + "'" : std::string()) + ": " + ssh_get_error(s) +
                              "; check the host name, the port and that sshd runs there");
        if (i == 0 && !proxied) setTcpKeepalive(ssh_get_fd(s), options.keepaliveSeconds);
        verifyHostKey(s, hop, options, knownHosts, i > 0);
        authenticate(s, hop, options);
        int fd = -1;
        self->sessions_.push_back(guard.release(fd));
        self->fds_.push_back(fd);
    }
    return self;
}

SshSession::~SshSession() {
    // Target first, then each jump hop. tunnels_[i] runs on sessions_[i] and serves the session
    // above it, which is already gone: stop and join it before freeing the session it uses.
    for (size_t i = sessions_.size(); i-- > 0;) {
        if (i < tunnels_.size()) tunnels_[i].reset();
        ssh_disconnect(sessions_[i]);
        ssh_free(sessions_[i]);
        if (fds_[i] >= 0) ::close(fds_[i]);  // its tunnel socket: the pump below sees EOF
    }
}

uint64_t SshSession::tunnelBytes() const {
    if (tunnels_.empty() || !tunnels_.back()) return 0;
    return tunnels_.back()->bytesIn() + tunnels_.back()->bytesOut();
}

ExecResult SshSession::exec(const std::string& command, const std::string& stdinData) {
    SshChannel ch(handle(), label(), command);
    // A command may end without reading its stdin (a check that fails first): its status and
    // output say why, not the refused write (which lost that race only under load).
    if (!stdinData.empty()) ch.writeUnlessEnded(stdinData);
    ch.sendEof();
    ExecResult r;
    while (!ch.atEof()) ch.read(r.out, 200);
    r.exitStatus = ch.exitStatus();
    r.err = ch.stderrText();
    return r;
}

std::unique_ptr<SshChannel> SshSession::openExec(const std::string& command) { return std::make_unique<SshChannel>(handle(), label(), command); }

void SshSession::sendKeepalive() {
    if (ssh_send_ignore(handle(), "keepalive") != SSH_OK) throw ConnectionLostError("lost the connection to " + label() + ": " + ssh_get_error(handle()));
}

void SshSession::dropConnection() {
    const int fd = ssh_get_fd(handle());
    if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
}

}  // namespace streetgan
