#include "trainer/ConsoleReporter.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace streetgan {
namespace {

std::string duration(double s) {
    char buf[32];
    const long t = static_cast<long>(s + 0.5);
    if (t >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t / 60) % 60);
    else std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
    return buf;
}

}  // namespace

ConsoleReporter::ConsoleReporter(bool tty) : tty_(tty), start_(std::chrono::steady_clock::now()) {}

ConsoleReporter::~ConsoleReporter() {
    if (barShown_) std::fputc('\n', stderr);
}

void ConsoleReporter::onEvent(const nlohmann::json& e) {
    const std::string kind = e.value("kind", "");
    const int64_t step = e.value("step", int64_t{0});
    if (kind == "status" && e.value("state", "") == "running") {
        startStep_ = step;
        start_ = std::chrono::steady_clock::now();
    }
    if (kind == "metrics") {
        const int64_t total = e.value("total_steps", int64_t{0});
        char line[512];
        std::snprintf(line, sizeof line, "step %lld/%lld epoch %lld  loss_d %.4f loss_g %.4f  D(x) %.3f D(G(z)) %.3f/%.3f  %.1f img/s  data_wait %.0f%%",
                      static_cast<long long>(step), static_cast<long long>(total), static_cast<long long>(e.value("epoch", int64_t{0})),
                      e.value("loss_d", 0.0), e.value("loss_g", 0.0), e.value("d_x", 0.0), e.value("d_g_z1", 0.0), e.value("d_g_z2", 0.0),
                      e.value("img_per_s", 0.0), 100.0 * e.value("data_wait", 0.0));
        if (!tty_) {
            std::printf("%s\n", line);
            std::fflush(stdout);
            return;
        }
        const double frac = total > 0 ? static_cast<double>(step) / static_cast<double>(total) : 0.0;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        const int64_t doneHere = step - std::max<int64_t>(startStep_, 0);
        const double eta = doneHere > 0 ? elapsed / static_cast<double>(doneHere) * static_cast<double>(total - step) : 0.0;
        constexpr int width = 24;
        std::string bar(static_cast<size_t>(frac * width + 0.5), '#');
        bar.resize(width, '.');
        std::fprintf(stderr, "\r\033[K[%s] %3.0f%% ETA %s  %s", bar.c_str(), frac * 100, duration(eta).c_str(), line);
        std::fflush(stderr);
        barShown_ = true;
        return;
    }
    std::string text;
    if (kind == "checkpoint") text = "checkpoint " + e.value("path", "") + " (step " + std::to_string(step) + ")";
    else if (kind == "status") text = "status " + e.value("state", "") + " at step " + std::to_string(step);
    else if (kind == "error") text = "error: " + e.value("message", "");
    else return;
    if (tty_) {
        std::fprintf(stderr, "\r\033[K%s\n", text.c_str());
        barShown_ = false;
    } else {
        std::printf("%s\n", text.c_str());
        std::fflush(stdout);
    }
}

}  // namespace streetgan
