// s3_delay_proxy: tests/support/DelayProxy as a program, for bench/bench_s3.sh: a loopback TCP
// proxy in front of an S3 server that delays every byte by half the round trip each way.
// Usage: s3_delay_proxy --rtt-ms MS --to HOST:PORT [--listen PORT]
// Prints "ready PORT" on stdout once it listens; runs until SIGTERM or SIGINT.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "support/DelayProxy.h"

int main(int argc, char** argv) {
    long rttMs = -1, listen = 0;
    std::string to;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--rtt-ms")
            rttMs = std::strtol(argv[i + 1], nullptr, 10);
        else if (flag == "--to")
            to = argv[i + 1];
        else if (flag == "--listen")
            listen = std::strtol(argv[i + 1], nullptr, 10);
    }
    const size_t colon = to.rfind(':');
    if (rttMs < 0 || colon == std::string::npos || argc % 2 == 0) {
        std::fprintf(stderr, "usage: s3_delay_proxy --rtt-ms MS --to HOST:PORT [--listen PORT]\n");
        return 2;
    }
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    // Blocked before the proxy's thread starts, so that only sigwait below receives them.
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    try {
        streetgan::test::DelayProxy proxy(to.substr(0, colon), std::stoi(to.substr(colon + 1)), std::chrono::milliseconds(rttMs), static_cast<int>(listen));
        std::printf("ready %d\n", proxy.port());
        std::fflush(stdout);
        int signal = 0;
        sigwait(&stop, &signal);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "s3_delay_proxy: %s\n", e.what());
        return 1;
    }
    return 0;
}
