#include "trainer/RemoteCommand.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <string.h>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "base/launch/MultiHostRunLauncher.h"
#include "base/launch/SshRunLauncher.h"
#include "base/launch/SshShell.h"
#include "base/launch/TrainerCommandLine.h"
#include "base/remote/RemoteAttach.h"
#include "base/remote/RemoteCache.h"
#include "base/remote/RemoteError.h"
#include "base/remote/SftpClient.h"
#include "base/remote/SftpEventFiles.h"
#include "base/remote/SshConfig.h"
#if STREETGAN_WITH_SSH
#include "base/remote/SshSession.h"
#endif
#include "base/util/BuildFeatures.h"
#include "base/util/Errors.h"
#include "trainer/FiniteNumber.h"
#include "trainer/LsCommand.h"

namespace streetgan {

CLI::App* RemoteCommand::setup(CLI::App& parent) {
    remote_ = parent.add_subcommand("remote", "Runs on a remote host over SSH (libssh; ~/.ssh/config aliases, jump hosts, SFTP)");
    remote_->require_subcommand(1);
    remote_
        ->add_option("--host", hosts_,
                     "Remote host: an ~/.ssh/config alias or a host name, optionally USER@HOST[:PORT]; several (start, stop): one run across them, the first "
                     "the rendezvous")
        ->required();
    remote_->add_option("--port", port_, "SSH port (default: config, else 22)")->check(CLI::Range(1, 65535));
    remote_->add_option("--user", user_, "Remote user (default: config, else the local user)");
    remote_->add_option("--identity", identities_, "Private key file (repeatable; replaces the config's IdentityFile)");
    remote_->add_option("--jump", jump_, "Jump host(s) [USER@]HOST[:PORT][,...] or none (default: the config's ProxyJump)");
    remote_->add_option("--known-hosts", knownHosts_, "known_hosts file (default ~/.ssh/known_hosts)");
    remote_->add_option("--ssh-config", sshConfig_, "OpenSSH client config (default ~/.ssh/config; none: no config)");
    remote_->add_option("--remote-trainer", remoteTrainer_, "streetgan-trainer on the remote host (default: found on its PATH)");
    remote_->add_flag("--accept-new-host-key", acceptNewHostKey_, "Accept an unknown host key and add it to known_hosts");
    remote_->add_option("--password-env", passwordEnv_, "Take the SSH password from this environment variable (non-interactive use)");
    remote_->add_option("--connect-timeout", connectTimeout_, "Seconds to wait for a connection")->check(CLI::Range(1, 600));

    ls_ = remote_->add_subcommand("ls", "Runs under a remote folder and their state");
    ls_->add_option("root", root_, "Remote folder (relative paths start at the login folder)")->required();
    ls_->add_flag("--json", json_, "One JSON document on stdout");

    attach_ = remote_->add_subcommand("attach", "Follow a remote run's events (JSON lines; reconnects and resumes on dropped connections)");
    attach_->add_option("run", run_, "Remote run directory")->required();
    attach_->add_option("--from-offset", fromOffset_, "Byte offset to start from: 0, or the \"end\" of the last event received");
    attach_->add_option("--seconds", seconds_, "Stop following after this many seconds")->check(CLI::Range(0.0, 1e9));
    attach_->add_option("--max-reconnects", maxReconnects_, "Consecutive failed reconnects before giving up")->check(CLI::Range(0, 1000));

    start_ = remote_->add_subcommand("start", "Start a detached training run on the remote host (train options are forwarded); prints its run directory");
    start_->add_option("--nproc-per-node", nprocPerNode_, "With several --host: ranks on each host (ranks = hosts x this)")->check(CLI::Range(1, 1024));
    start_->allow_extras();
    start_->prefix_command();

    control_ = remote_->add_subcommand("control", "Send a command to a remote run: pause|resume|stop|checkpoint-now|sample-now|set-lr VALUE");
    control_->add_option("run", run_, "Remote run directory")->required();
    control_->add_option("cmd", cmd_, "Command")->required();
    control_->add_option("value", value_, "Value (set-lr)");

    stop_ = remote_->add_subcommand("stop", "Stop a run (every rank on every --host of a run across hosts) and wait until its ranks are gone");
    stop_->add_option("run", run_, "Remote run directory (rank 0's, on the first --host)")->required();
    stop_->add_option("--stop-wait", stopWait_, "Seconds the ranks get to stop after rank 0's stop, before SIGTERM and SIGKILL")
        ->check(FiniteNumber())
        ->check(CLI::Range(0.0, 86400.0));

    fetch_ = remote_->add_subcommand("fetch", "Download a checkpoint of a remote run over SFTP (resumes partial downloads)");
    fetch_->add_option("run", run_, "Remote run directory")->required();
    fetch_->add_option("--checkpoint", checkpoint_, "latest, or a file name in the run's checkpoints folder");
    fetch_->add_option("--to", to_, "Local folder (default: the cache, ~/.cache/streetgan/remote/HOST/PATH)");
    fetch_->add_option("--cache-dir", cacheDir_, "Cache folder when --to is not given");
    fetch_->add_option("--requests", requests_, "SFTP read requests in flight at first (growing by one per full answer up to --max-requests)")
        ->check(CLI::Range(1, 1024));
    fetch_->add_option("--max-requests", maxRequests_, "The most SFTP read requests in flight")->check(CLI::Range(1, 1024));
    fetch_->add_option("--chunk-kib", chunkKiB_, "KiB per SFTP read request")->check(CLI::Range(4, 255));
    return remote_;
}

#if STREETGAN_WITH_SSH
namespace {

/// The remote shell found no streetgan-trainer (exit 127).
class TrainerMissingError : public RemoteError {
public:
    using RemoteError::RemoteError;
};

constexpr uint64_t kMiB = uint64_t{1} << 20;
std::atomic<bool> gInterrupted{false};
void onSignal(int) { gInterrupted.store(true); }

// Reads a secret from the terminal with echo off; nullopt without a terminal.
std::optional<std::string> askTty(const std::string& prompt) {
    const int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    termios old{};
    const bool haveTermios = ::tcgetattr(fd, &old) == 0;
    if (haveTermios) {
        termios quiet = old;
        quiet.c_lflag &= static_cast<tcflag_t>(~ECHO);
        ::tcsetattr(fd, TCSAFLUSH, &quiet);
    }
    (void)!::write(fd, prompt.data(), prompt.size());
    std::string answer;
    char c;
    while (::read(fd, &c, 1) == 1 && c != '\n') answer += c;
    (void)!::write(fd, "\n", 1);
    if (haveTermios) ::tcsetattr(fd, TCSAFLUSH, &old);
    ::close(fd);
    return answer;
}

}  // namespace

SshOptions RemoteCommand::sshOptions() const { return sshOptionsFor(0); }

SshOptions RemoteCommand::sshOptionsFor(size_t index) const {
    SshOptions o;
    o.host = hosts_.at(index);
    if (port_ > 0) o.port = port_;
    // HOST:PORT (one colon, digits after it): several hosts cannot share one --port.
    if (const size_t colon = o.host.rfind(':'); colon != std::string::npos && o.host.find(':') == colon && colon + 1 < o.host.size()) {
        const std::string digits = o.host.substr(colon + 1);
        if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 5 || std::stoi(digits) < 1 || std::stoi(digits) > 65535)
            throw ConfigError("--host '" + o.host + "' is not [USER@]HOST[:PORT]: give the port as a number 1..65535");
        o.port = std::stoi(digits);
        o.host = o.host.substr(0, colon);
    }
    if (!user_.empty()) o.user = user_;
    o.identityFiles = identities_;
    if (!jump_.empty()) o.jump = jump_;
    o.knownHostsFile = knownHosts_;
    o.configFile = sshConfig_;
    o.connectTimeoutSeconds = connectTimeout_;
    const bool accept = acceptNewHostKey_;
    o.onUnknownHostKey = [accept](const HostKeyInfo& k) -> HostKeyDecision {
        if (accept) {
            std::cerr << "streetgan-trainer: adding the host key of " << k.host << " (" << k.keyType << " " << k.fingerprintSha256 << ") to "
                      << k.knownHostsFile << "\n";
            return HostKeyDecision::AcceptAndRemember;
        }
        throw HostKeyError("the host key of " + k.host + " is not known: " + k.keyType + " " + k.fingerprintSha256 +
                           ". If that is the host's fingerprint, rerun with --accept-new-host-key, or add the key to " + k.knownHostsFile);
    };
    o.passphrase = [](const std::string& file) { return askTty("Passphrase for " + file + ": "); };
    if (!passwordEnv_.empty()) {
        const std::string var = passwordEnv_;
        auto used = std::make_shared<bool>(false);
        o.password = [var, used](const std::string&) -> std::optional<std::string> {
            const char* v = std::getenv(var.c_str());
            if (!v || *used) return std::nullopt;
            *used = true;
            return std::string(v);
        };
    } else {
        o.password = [](const std::string& prompt) { return askTty(prompt + ": "); };
    }
    return o;
}

int RemoteCommand::execute() {
    if (hosts_.size() > 1 && !start_->parsed() && !stop_->parsed())
        throw ConfigError("several --host are for `remote start` and `remote stop` (one run across hosts); give one --host for the other commands");
    if (ls_->parsed()) return ls();
    if (attach_->parsed()) return attach();
    if (stop_->parsed()) return stop();
    if (start_->parsed() && hosts_.size() == 1 && start_->count("--nproc-per-node") > 0)
        throw ConfigError("--nproc-per-node is for a run across several --host; on one host, start its ranks there with `launch --nproc N -- train ...`");
    if (start_->parsed()) return hosts_.size() > 1 ? startAcrossHosts() : start();
    if (control_->parsed()) return control();
    return fetch();
}

int RemoteCommand::passThrough(const std::vector<std::string>& words) {
    auto session = SshSession::connect(sshOptions());
    const ExecResult r = session->exec(TrainerCommandLine::shellLine(words));
    std::cout << r.out << std::flush;
    std::cerr << r.err << std::flush;
    if (!r.exitStatus) throw RemoteError(remoteTrainer_ + " on " + session->label() + " ended without an exit status (killed?)");
    // 127: the shell did not find the binary.
    if (*r.exitStatus == 127 && r.out.empty())
        throw TrainerMissingError(remoteTrainer_ + " was not found on " + session->label() + "; install it there or name it with --remote-trainer PATH");
    return *r.exitStatus;
}

int RemoteCommand::ls() {
    std::vector<std::string> args{remoteTrainer_, "ls", root_};
    if (json_) args.emplace_back("--json");
    try {
        return passThrough(args);
    } catch (const TrainerMissingError& e) {
        // No trainer there: the TensorBoard runs of other trainers are still listed, over SFTP.
        auto session = SshSession::connect(sshOptions());
        SftpClient sftp(*session);
        SftpEventFiles files(sftp);
        std::vector<RunInfo> runs;
        try {
            runs = RunStatus::listTensorBoard(files, root_);
        } catch (const IoError&) {
            throw RemoteError(e.what());  // not even a folder to look in
        }
        if (runs.empty()) throw RemoteError(e.what());
        std::cerr << e.what() << "; listing the TensorBoard runs there over SFTP\n";
        LsCommand::print(runs, root_, json_);
        return 0;
    }
}

int RemoteCommand::control() { return passThrough(TrainerCommandLine(remoteTrainer_).control(run_, cmd_, value_)); }

// The trainer's output as it comes (its run folder on stdout, its error on stderr, its exit
// code): this is the command line, not the app; the words are TrainerCommandLine's.
int RemoteCommand::start() { return passThrough(TrainerCommandLine(remoteTrainer_).start(start_->remaining())); }

namespace {
// One SSH session per host and the MultiHostRunLauncher over them; sessions outlive the launcher.
struct HostSessions {
    std::vector<std::unique_ptr<SshSession>> sessions;
    std::unique_ptr<MultiHostRunLauncher> launcher;
};

// Every host is connected before anything starts: a host that cannot be reached is one line
// naming it (SshSession's) and nothing runs anywhere.
HostSessions connectHosts(const std::vector<SshOptions>& options, const std::string& trainer, const MultiHostRunLauncher::Options& o) {
    HostSessions h;
    std::vector<MultiHostRunLauncher::Host> hosts;
    for (const SshOptions& opt : options) {
        h.sessions.push_back(SshSession::connect(opt));
        hosts.push_back({std::make_unique<SshShell>(*h.sessions.back()), h.sessions.back()->target().hostName});
    }
    h.launcher = std::make_unique<MultiHostRunLauncher>(std::move(hosts), trainer, o);
    return h;
}
}  // namespace

int RemoteCommand::startAcrossHosts() {
    const std::vector<std::string> args = start_->remaining();
    std::vector<SshOptions> options;
    for (size_t i = 0; i < hosts_.size(); ++i) options.push_back(sshOptionsFor(i));
    MultiHostRunLauncher::Options o;
    o.nprocPerNode = nprocPerNode_;
    HostSessions h = connectHosts(options, remoteTrainer_, o);
    std::cout << h.launcher->start(args) << std::endl;
    return 0;
}

int RemoteCommand::stop() {
    std::vector<SshOptions> options;
    for (size_t i = 0; i < hosts_.size(); ++i) options.push_back(sshOptionsFor(i));
    if (hosts_.size() == 1) {  // a run on one host: its trainer's control stop
        auto session = SshSession::connect(options[0]);
        SshRunLauncher(*session, remoteTrainer_).stop(run_);
        return 0;
    }
    MultiHostRunLauncher::Options o;
    o.stopWait = std::chrono::milliseconds(static_cast<int64_t>(stopWait_ * 1000));
    HostSessions h = connectHosts(options, remoteTrainer_, o);
    h.launcher->stop(run_);
    return 0;
}

int RemoteCommand::attach() {
    AttachOptions a;
    a.run = run_;
    a.remoteTrainer = remoteTrainer_;
    a.fromOffset = fromOffset_;
    a.seconds = seconds_;
    a.maxReconnects = maxReconnects_;
    RemoteAttach attach(sshOptions(), a);
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    std::atomic<bool> done{false};
    // Ctrl-C, or the reader of our stdout went away (a pipe closed: as the local attach, end now,
    // not at the next event, which on a quiet run may be hours away).
    auto checkStop = [&] {
        pollfd hangup{STDOUT_FILENO, 0, 0};
        if (gInterrupted.load() || (::poll(&hangup, 1, 0) > 0 && (hangup.revents & (POLLERR | POLLHUP)))) attach.stop();
    };
    // Commands typed on stdin go to the remote attach (which relays them to the daemon).
    std::thread input([&] {
        std::string pending;
        char buf[4096];
        while (!done.load()) {
            pollfd p{STDIN_FILENO, POLLIN, 0};
            checkStop();
            if (::poll(&p, 1, 100) <= 0) continue;
            const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
            if (n <= 0) break;  // EOF on stdin only stops reading
            pending.append(buf, static_cast<size_t>(n));
            size_t nl;
            while ((nl = pending.find('\n')) != std::string::npos) {
                const std::string line = pending.substr(0, nl);
                pending.erase(0, nl + 1);
                const nlohmann::json cmd = nlohmann::json::parse(line, nullptr, false);
                if (cmd.is_object())
                    attach.sendCommand(cmd);
                else if (!line.empty())
                    std::cerr << "streetgan-trainer: not a JSON command, ignored: " << line << "\n";
            }
        }
        while (!done.load()) {  // keep watching for Ctrl-C and the reader
            checkStop();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
    struct Joiner {
        std::atomic<bool>& done;
        std::thread& t;
        ~Joiner() {
            done.store(true);
            t.join();
        }
    } joiner{done, input};
    attach.run([](const AttachMessage& m) { std::cout << m.line << '\n'
                                                      << std::flush; },
               [&](const AttachStatus& s) {
                   if (s.state == AttachStatus::State::Reconnecting)
                       std::cerr << "streetgan-trainer: connection lost (" << s.message << "); reconnecting in " << s.delaySeconds << " s (attempt "
                                 << s.attempt << "), resuming at offset " << attach.resumeOffset() << "\n";
               });
    return gInterrupted.load() ? static_cast<int>(ExitCode::Interrupted) : 0;
}

int RemoteCommand::fetch() {
    auto session = SshSession::connect(sshOptions());
    SftpClient sftp(*session);
    std::string name = checkpoint_;
    if (name == "latest") {
        const std::vector<RemoteFileInfo> checkpoints = sftp.listCheckpoints(run_);  // not the samples: round trips
        if (checkpoints.empty())
            throw RemoteError("run " + run_ + " on " + session->label() + " has no checkpoints yet; wait for one or use --checkpoint NAME");
        name = checkpoints.back().name;
    }
    if (name.find('/') != std::string::npos) throw ConfigError("--checkpoint takes a file name in the run's checkpoints folder, not a path: " + name);
    const std::string remotePath = run_ + "/checkpoints/" + name;
    DownloadOptions opts;
    opts.requestsInFlight = requests_;
    opts.maxRequestsInFlight = std::max(requests_, maxRequests_);
    opts.chunkBytes = static_cast<uint32_t>(chunkKiB_) * 1024u;
    std::atomic<bool> cancel{false};
    opts.cancel = &cancel;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    int lastPct = -1;
    opts.progress = [&](uint64_t done, uint64_t total) {
        if (gInterrupted.load()) cancel.store(true);
        const int pct = total ? static_cast<int>(done * 100 / total) : 100;
        if (tty && pct != lastPct) {
            std::cerr << "\r" << name << " " << pct << "% (" << done / kMiB << " of " << total / kMiB << " MiB)" << std::flush;
            lastPct = pct;
        }
    };
    DownloadResult r;
    std::string local;
    if (!to_.empty()) {
        local = to_ + "/" + name;
        r = sftp.download(remotePath, local, opts);
    } else {
        local = sftp.fetchToCache(RemoteCache(cacheDir_), remotePath, opts, &r);
    }
    if (tty && lastPct >= 0) std::cerr << "\n";
    if (r.cancelled) {
        std::cerr << "streetgan-trainer: download interrupted; run the same command again to resume\n";
        return static_cast<int>(ExitCode::Interrupted);
    }
    std::cerr << "streetgan-trainer: " << (r.upToDate ? "up to date: " : "fetched ") << remotePath << " (" << r.bytes << " bytes"
              << (r.resumedFrom ? ", resumed at " + std::to_string(r.resumedFrom) : std::string())
              << (r.upToDate ? "" : ", " + std::to_string(r.seconds) + " s") << ")\n";
    std::cout << local << "\n";
    return 0;
}

#else
// A build without libssh (STREETGAN_WITH_SSH=OFF: a host build from source): the options parse, so
// `remote --help` still describes them, and any use says what is missing in one line.
int RemoteCommand::execute() { BuildFeatures::missing("`streetgan-trainer remote`", BuildFeatures::Feature::Ssh); }
#endif

}  // namespace streetgan
