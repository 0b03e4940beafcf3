#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trainer/Command.h"

namespace streetgan {

struct SshOptions;

/// remote [--host H] [--port P] [--user U] [--identity FILE] [--jump [USER@]HOST[:PORT]]
///        [--known-hosts FILE] [--ssh-config FILE] [--remote-trainer PATH] [--accept-new-host-key]
///        [--password-env VAR]
///   ls ROOT [--json] | attach RUN [--from-offset B] [--seconds N] | start TRAIN-OPTIONS... |
///   control RUN CMD [VALUE] | fetch RUN --checkpoint latest|NAME [--to DIR] | stop RUN
/// Several --host [USER@]HOST[:PORT] (start and stop only): one run across those hosts, host 0 the
/// rendezvous, `start [--nproc-per-node N] TRAIN-OPTIONS...` (MultiHostRunLauncher) prints rank
/// 0's run directory; `stop RUN` stops every rank on every host.
/// The SSH client of core/remote for terminal users and tests: remote commands run
/// `--remote-trainer` (default streetgan-trainer on the remote PATH) over an exec channel with
/// every argument shell-quoted; attach follows with reconnects; fetch uses SFTP.
class RemoteCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    SshOptions sshOptions() const;
    int ls();
    int attach();
    int start();
    int control();
    int fetch();
    int stop();
    /// start and stop with several hosts: a MultiHostRunLauncher over one session per host.
    int startAcrossHosts();
    /// The SSH options of --host number `index` (its USER@ and :PORT applied).
    SshOptions sshOptionsFor(size_t index) const;
    /// Runs `words` (the remote trainer and its arguments) on the host; its output and exit code are ours.
    int passThrough(const std::vector<std::string>& words);

    CLI::App* remote_ = nullptr;
    CLI::App *ls_ = nullptr, *attach_ = nullptr, *start_ = nullptr, *control_ = nullptr, *fetch_ = nullptr, *stop_ = nullptr;
    std::vector<std::string> hosts_;
    int nprocPerNode_ = 1;
    double stopWait_ = 120;
    std::string user_, jump_, knownHosts_, sshConfig_, remoteTrainer_ = "streetgan-trainer", passwordEnv_;
    int port_ = 0;
    std::vector<std::string> identities_;
    bool acceptNewHostKey_ = false;
    int connectTimeout_ = 20;
    // subcommands
    std::string root_, run_, cmd_, value_, checkpoint_ = "latest", to_, cacheDir_;
    bool json_ = false;
    uint64_t fromOffset_ = 0;
    double seconds_ = 0;
    int requests_ = 16;
    int maxRequests_ = 256;
    int chunkKiB_ = 64;
    int maxReconnects_ = 8;
};

}  // namespace streetgan
