#include "trainer/ConsoleReporter.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "base/run/Events.h"

namespace streetgan {
namespace {

std::string duration(double s) {
    char buf[32];
    const long t = std::lround(s);
    if (t >= 3600)
        std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t / 60) % 60);
    else
        std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
    return buf;
}

}  // namespace

ConsoleReporter::ConsoleReporter(bool tty) : tty_(tty), start_(std::chrono::steady_clock::now()) {}

ConsoleReporter::~ConsoleReporter() {
    if (barShown_) std::fputc('\n', stderr);
}

void ConsoleReporter::onEvent(const nlohmann::json& json) {
    const Event event = eventFromJson(json);
    const int64_t step = stampOf(event).step.value_or(0);
    const auto* status = std::get_if<StatusEvent>(&event);
    if (status && status->state == RunState::kRunning) {
        startStep_ = step;
        start_ = std::chrono::steady_clock::now();
    }
    if (const auto* m = std::get_if<MetricsEvent>(&event)) {
        const int64_t total = m->totalSteps.value_or(0);
        char line[512];
        std::snprintf(line, sizeof line, "step %lld/%lld epoch %lld  loss_d %.4f loss_g %.4f  D(x) %.3f D(G(z)) %.3f/%.3f  %.1f img/s  data_wait %.0f%%",
                      static_cast<long long>(step), static_cast<long long>(total), static_cast<long long>(m->epoch.value_or(0)), m->lossD, m->lossG, m->dX,
                      m->dGz1, m->dGz2, m->imgPerS, 100.0 * m->dataWait);
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
        std::string bar(static_cast<size_t>(std::lround(frac * width)), '#');
        bar.resize(width, '.');
        std::fprintf(stderr, "\r\033[K[%s] %3.0f%% ETA %s  %s", bar.c_str(), frac * 100, duration(eta).c_str(), line);
        std::fflush(stderr);
        barShown_ = true;
        return;
    }
    std::string text;
    if (const auto* c = std::get_if<CheckpointEvent>(&event))
        text = "checkpoint " + c->path + " (step " + std::to_string(step) + ")";
    else if (status)
        text = "status " + status->state + " at step " + std::to_string(step);
    else if (const auto* e = std::get_if<ErrorEvent>(&event))
        text = "error: " + e->message;
    else
        return;
    if (tty_) {
        std::fprintf(stderr, "\r\033[K%s\n", text.c_str());
        barShown_ = false;
    } else {
        std::printf("%s\n", text.c_str());
        std::fflush(stdout);
    }
}

}  // namespace streetgan
