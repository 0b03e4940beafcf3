#include "trainer/ServeCommand.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
#include <thread>

#include "base/util/Errors.h"
#include "ml/serve/GalleryServer.h"
#include "trainer/GeneratorOption.h"

namespace streetgan {

CLI::App* ServeCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("serve", "Serve a gallery of generated images over HTTP (/gallery, /gan_imgs, /gan_gifs, /health)");
    a->add_option("--checkpoint", checkpoint_, "StreetGAN or reference Python checkpoint")->required();
    a->add_option("--bind", bind_, "HOST:PORT to listen on (port 0: any free port)")->capture_default_str();
    a->add_option("--preset", preset_, "Refuse checkpoints that are not of this preset's architecture");
    addGeneratorOption(a, generator_);
    a->add_option("--max-renders", maxRenders_, "Renders at once; more wait in a short queue (0: one per CPU core)")->check(CLI::Range(0, 1024));
    a->add_option("--max-queued-renders", maxQueuedRenders_,
                  "Renders that may wait for a slot (up to 10 s) before a 503 (-1: max(16, 4 x max renders); 0: 503 at once)")
        ->check(CLI::Range(-1, 65536))
        ->capture_default_str();
    a->add_option("--max-connections", maxConnections_, "Open connections at most (beyond: the longest-waiting one is closed)")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    a->add_option("--max-unsent-mb", maxUnsentMb_, "Answers waiting for clients that read slowly, in all (MB); a large answer beyond it gets a 503")
        ->check(CLI::Range(1, 1 << 20))
        ->capture_default_str();
    a->add_option("--render-threads", renderThreads_, "LibTorch intra-op threads per render")->check(CLI::Range(1, 256))->capture_default_str();
    // Connections no longer hold a thread each (one event loop serves them all): the option is
    // accepted, and ignored, so that existing command lines keep working.
    a->add_option("--http-threads", httpThreads_, "Ignored (kept for old command lines): one event thread serves every connection")->check(CLI::Range(0, 4096));
    a->add_option("--precision", precision_,
                  "Generator arithmetic: auto (bf16 where the CPU has AVX512-BF16/AMX, else fp32), fp32, or bf16 (pixels a few levels off fp32)")
        ->check(CLI::IsMember({"auto", "fp32", "bf16"}))
        ->capture_default_str();
    a->add_option("--allow-host", allowHosts_,
                  "On a loopback bind, another name a request's Host may carry (a reverse proxy's); repeatable. Without it only 127.0.0.1, "
                  "localhost and ::1 are answered (421 otherwise), so that no web page can reach the gallery through DNS rebinding");
    a->add_option("--cors", cors_,
                  "Access-Control-Allow-Origin of every response: '*' (any web page may fetch images by script, as the reference API allows), "
                  "one origin such as https://blog.example.org (only that page), or 'off' (no CORS headers)")
        ->capture_default_str();
    return a;
}

bool ServeCommand::cpuHasNativeBf16() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("flags", 0) == 0) return line.find(" amx_bf16") != std::string::npos || line.find(" avx512_bf16") != std::string::npos;
    return false;
}

void ServeCommand::parseBind(const std::string& text, std::string& host, int& port) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos) throw ConfigError("--bind '" + text + "' needs HOST:PORT, e.g. 127.0.0.1:8080");
    host = text.substr(0, colon);
    const std::string p = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (host.empty()) host = "127.0.0.1";
    int value = -1;
    const auto r = std::from_chars(p.data(), p.data() + p.size(), value);
    if (p.empty() || r.ec != std::errc() || r.ptr != p.data() + p.size() || value < 0 || value > 65535)
        throw ConfigError("--bind '" + text + "': the port must be an integer within 0..65535");
    port = value;
}

int ServeCommand::execute() {
    GalleryOptions o;
    parseBind(bind_, o.host, o.port);
    o.maxRenders = maxRenders_;
    o.renderThreads = renderThreads_;
    o.maxQueuedRenders = maxQueuedRenders_;
    o.maxConnections = maxConnections_;
    o.maxUnsentBytes = static_cast<size_t>(maxUnsentMb_) << 20;
    // A gallery is for looking at: where the CPU computes bf16 natively it serves about twice the
    // requests for the same cores, deterministically, a few grey levels off fp32; `sample` stays fp32.
    const bool bf16 = precision_ == "bf16" || (precision_ == "auto" && cpuHasNativeBf16());
    o.precision = bf16 ? FrozenGenerator::Precision::BFloat16 : FrozenGenerator::Precision::Float32;
    o.corsOrigin = cors_ == "off" ? std::string() : cors_;
    o.allowedHosts = allowHosts_;
    o.generator = generator_;
    // An origin has no path, but a pasted page address has one (or a trailing "/"): say what to give.
    if (const auto scheme = o.corsOrigin.find("://"); scheme != std::string::npos && o.corsOrigin.find('/', scheme + 3) != std::string::npos)
        throw ConfigError("--cors '" + cors_ + "': give an origin without a path, e.g. https://blog.example.org ('*' for any, 'off' for none)");

    // SIGINT/SIGTERM are blocked in every thread (the server's threads inherit this mask) and read
    // from a signalfd by one waiter thread, which stops the server; nothing runs in a signal handler.
    // The waiter also polls an eventfd, raised once listen() returns for any other reason.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    sigset_t previous;
    pthread_sigmask(SIG_BLOCK, &signals, &previous);
    struct RestoreMask {
        sigset_t mask;
        ~RestoreMask() { pthread_sigmask(SIG_SETMASK, &mask, nullptr); }
    } restore{previous};
    struct Fd {
        int fd;
        ~Fd() {
            if (fd >= 0) ::close(fd);
        }
    };
    const Fd signalFd{::signalfd(-1, &signals, SFD_CLOEXEC)};
    const Fd wakeFd{::eventfd(0, EFD_CLOEXEC)};
    if (signalFd.fd < 0 || wakeFd.fd < 0) throw IoError(std::string("serve: cannot watch for SIGINT/SIGTERM: ") + std::strerror(errno));

    // Room for --max-connections: the soft descriptor limit (often 1024) up to the hard one.
    const auto need = static_cast<rlim_t>(maxConnections_) + 256;
    if (rlimit r{}; ::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < need) {
        r.rlim_cur = r.rlim_max == RLIM_INFINITY ? need : std::min(r.rlim_max, need);
        ::setrlimit(RLIMIT_NOFILE, &r);
    }
    GalleryServer server(checkpoint_, preset_, o);
    const int port = server.bind();
    if (!GalleryServer::isLoopback(o.host))
        std::cerr << "streetgan-trainer: warning: serving on " << o.host
                  << ", reachable from other machines; the gallery has no authentication (use --bind 127.0.0.1:PORT to keep it local)\n";

    std::atomic<int> received{0};
    std::thread waiter([&] {
        pollfd fds[2] = {{signalFd.fd, POLLIN, 0}, {wakeFd.fd, POLLIN, 0}};
        for (;;) {
            if (::poll(fds, 2, -1) < 0) {
                if (errno == EINTR) continue;
                std::cerr << "streetgan-trainer: warning: cannot wait for SIGINT/SIGTERM (" << std::strerror(errno) << "); stop the server with SIGKILL\n";
                return;
            }
            if (fds[1].revents != 0) return;  // listen() returned
            signalfd_siginfo info{};
            if ((fds[0].revents & POLLIN) != 0 && ::read(signalFd.fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
                received = static_cast<int>(info.ssi_signo);
                server.stop();
                return;
            }
        }
    });
    const std::string shownHost = o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host;
    std::cout << "serving http://" << shownHost << ":" << port << "/gallery (" << server.model().preset << ", " << server.model().imgSize << " px; checkpoint "
              << checkpoint_ << "); Ctrl-C stops" << std::endl;
    server.listen();
    const uint64_t one = 1;
    if (::write(wakeFd.fd, &one, sizeof one) != static_cast<ssize_t>(sizeof one) && received == 0)
        std::cerr << "streetgan-trainer: warning: could not wake the signal thread (" << std::strerror(errno) << ")\n";
    waiter.join();
    if (received) std::cout << "stopped (" << (received == SIGINT ? "SIGINT" : "SIGTERM") << ")" << std::endl;
    return 0;
}

}  // namespace streetgan
