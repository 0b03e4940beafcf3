// A real OpenSSH server for the remote tests: /usr/sbin/sshd in the foreground (-D -e) as a
// child of the test, on 127.0.0.1 and a free high port, with a generated host key, a temporary
// authorized_keys and sshd_config (StrictModes no, UsePAM no, PidFile in the temp dir). Runs as
// the current user (as root it creates /run/sshd, the privilege-separation folder, if missing).
// Nothing touches ~/.ssh or system files. The destructor kills the server and every session
// process under it and waits for them.
//
// Thread contract: one test thread owns a fixture; log() may be called from any thread.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace streetgan::test {

class SshdFixture {
public:
    struct Options {
        bool allowTcpForwarding = true;
        std::string logLevel = "VERBOSE";  ///< DEBUG1 shows direct-tcpip requests
        std::string hostKeyType = "ed25519";
        /// The sessions' $HOME (sshd's SetEnv), a folder of the test; empty: the user's own.
        /// (The login folder stays the user's home: `cd` in a session goes to this one.)
        std::string home;
        /// More environment for every session, "NAME=VALUE" each (sshd's SetEnv): e.g. the
        /// SLURM_CONF of a test Slurm cluster, for a login node.
        std::vector<std::string> setEnv;
    };

    /// Generates an ed25519 key pair at `path` (and `path`.pub) with ssh-keygen, no passphrase
    /// (or `passphrase`). Throws std::runtime_error when ssh-keygen fails.
    static void generateKey(const std::string& path, const std::string& passphrase = "");
    /// `dir`: an empty folder the fixture may fill (keys, config, log). `authorizedKeys`: the
    /// file sshd reads (shared by fixtures that accept the same user key).
    SshdFixture(const std::string& dir, const std::string& authorizedKeys, const Options& options);
    SshdFixture(const std::string& dir, const std::string& authorizedKeys) : SshdFixture(dir, authorizedKeys, Options{}) {}
    ~SshdFixture();
    SshdFixture(const SshdFixture&) = delete;
    SshdFixture& operator=(const SshdFixture&) = delete;

    int port() const { return port_; }
    pid_t pid() const { return pid_; }
    std::string hostKeyPub() const { return hostKey_ + ".pub"; }
    /// A known_hosts line for this server: "[127.0.0.1]:PORT TYPE BASE64".
    std::string knownHostsLine() const;
    /// The SHA256 fingerprint `ssh-keygen -lf` prints for the host key.
    std::string fingerprint() const;
    /// Everything sshd logged so far.
    std::string log() const;
    /// Kills (SIGKILL) every process under the server (the per-connection sshd processes and
    /// what they run): clients see their connection drop. The server keeps listening.
    /// Returns how many processes were killed.
    int killSessions();
    /// An outage: the server and everything under it stop (connections drop, new ones are refused).
    void stop();
    /// The server back on the same port, with the same host key, after stop().
    void restart();
    /// Number of processes under the server now.
    int sessionProcesses() const;
    /// The processes under the server with `arg` as one of their arguments (argv[1] on), e.g.
    /// "attach" for the `streetgan-trainer attach` that a client's exec request runs.
    std::vector<pid_t> sessionProcessesWithArgument(const std::string& arg) const;
    /// The server's own children: one sshd process per connection (its session); killing one
    /// cuts that connection and leaves what it ran without its client.
    std::vector<pid_t> connectionProcesses() const;

private:
    /// Starts sshd on `port` (0: a free port, tried up to five times).
    void start(int port = 0);
    std::string dir_, authorizedKeys_, hostKey_, config_, logFile_;
    Options options_;
    int port_ = 0;
    pid_t pid_ = -1;
};

/// Runs `cmd` through /bin/sh; returns its stdout (throws std::runtime_error on failure).
std::string shellOutput(const std::string& cmd);

}  // namespace streetgan::test
