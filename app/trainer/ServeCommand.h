#pragma once

#include <string>
#include <vector>

#include "trainer/Command.h"

namespace streetgan {

/// serve --checkpoint CK [--bind HOST:PORT] [--preset P] [--max-renders N] [--max-queued-renders Q]
///       [--max-connections C] [--render-threads T] [--precision auto|fp32|bf16] [--cors '*'|ORIGIN|off]
///       (--http-threads N is accepted and ignored)
/// The gallery HTTP server (serve/GalleryServer), a drop-in for the reference project's API:
/// /, /health, /gan_imgs, /gan_gifs, /gallery (docs/serve.md).
/// Binds 127.0.0.1:8080 unless --bind says otherwise (a warning on stderr for a non-loopback
/// address); prints "serving http://HOST:PORT/gallery ..." on stdout once accepting; SIGINT and
/// SIGTERM stop it cleanly (in-flight requests finish), "stopped (SIGTERM)" on stdout, exit code 0.
/// Raises its soft RLIMIT_NOFILE towards the hard limit to fit --max-connections.
/// Thread contract: execute() runs on the main thread; it starts the server's threads and one
/// thread that waits for SIGINT/SIGTERM (blocked in all threads, read through a signalfd).
class ServeCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

    /// "HOST:PORT", "[V6]:PORT" or ":PORT" (loopback) -> host, port. Throws ConfigError.
    static void parseBind(const std::string& text, std::string& host, int& port);
    /// True when /proc/cpuinfo lists AMX-BF16 or AVX512-BF16 (bf16 convolutions at native speed).
    static bool cpuHasNativeBf16();

private:
    std::string checkpoint_, bind_ = "127.0.0.1:8080", preset_, precision_ = "auto", cors_ = "*";
    std::vector<std::string> allowHosts_;
    std::string generator_;  // --generator: "" (G_ema where there is one), ema or raw
    int maxRenders_ = 0, renderThreads_ = 1, httpThreads_ = 0, maxQueuedRenders_ = -1, maxConnections_ = 1024, maxUnsentMb_ = 64;
};

}  // namespace streetgan
