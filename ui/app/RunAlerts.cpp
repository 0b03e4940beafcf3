#include "app/RunAlerts.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QSysInfo>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "app/DesktopNotifier.h"
#include "base/run/Events.h"
#include "dashboard/SystemPanel.h"
#include "events/RunSeries.h"
#include "runs/RunSession.h"

namespace streetgan::ui {
namespace {

constexpr size_t kIntervalsKept = 32;  // the median of the last gaps: recent pace, robust to a few long ones

QString duration(double seconds) {
    const qint64 s = static_cast<qint64>(std::llround(seconds));
    if (s < 120) return RunAlerts::tr("%1 s").arg(s);
    if (s < 7200) return RunAlerts::tr("%1 min").arg(s / 60);
    return RunAlerts::tr("%1 h %2 min").arg(s / 3600).arg(s / 60 % 60);
}

}  // namespace

RunAlerts::RunAlerts(DesktopNotifier* notifier, QObject* parent) : QObject(parent), notifier_(notifier) {
    auto mono = std::make_shared<QElapsedTimer>();  // monotonic: a clock set back or forth is no stall
    mono->start();
    clock_ = [mono] { return static_cast<double>(mono->elapsed()) / 1000.0; };
    timer_.setInterval(kCheckIntervalMs);
    connect(&timer_, &QTimer::timeout, this, [this] { checkAll(); });
    if (notifier)
        connect(notifier, &DesktopNotifier::activated, this, [this](const QString& key) {
            const auto it = runs_.constFind(key);
            if (it != runs_.constEnd()) emit openRequested(it->session.data(), it->localDir);
        });
}

RunSession* RunAlerts::session(const QString& key) const {
    const auto it = runs_.constFind(key);
    return it == runs_.constEnd() ? nullptr : it->session.data();
}

void RunAlerts::watch(RunSession* s) {
    const QString key = s->runKey();
    watchSeries(key, QFileInfo(s->runDir()).fileName(), s->isRemote() ? s->hostLabel() : QSysInfo::machineHostName(), &s->series(),
                [s] { return s->trainerSeenAlive(); });
    Watched& w = runs_[key];
    w.session = s;
    w.localDir = s->isRemote() ? QString() : s->runDir();
    connect(s, &RunSession::appended, this, [this, key] { update(key); });
    // The series dies with the session; the entry stays (a click on an old notification reopens).
    connect(s, &QObject::destroyed, this, [this, key, series = &s->series()] {
        auto it = runs_.find(key);
        if (it != runs_.end() && it->series == series) it->series = nullptr;
    });
}

void RunAlerts::watchSeries(const QString& key, const QString& title, const QString& host, const RunSeries* series, std::function<bool()> alive) {
    Watched w;
    w.title = title;
    w.host = host;
    w.series = series;
    w.alive = std::move(alive);
    runs_.insert(key, w);
    if (!timer_.isActive()) timer_.start();
    update(key);
}

void RunAlerts::checkAll() {
    for (const QString& key : runs_.keys()) update(key);
}

// The stall threshold: max(kMinStallSeconds, 10 x the median gap between new events seen live).
// A healthy run logs a system event every ~2 s and metrics every --log-every steps, but pauses
// for checkpoints, sample grids and evaluations; 10x its usual pace leaves room for those on a
// slow run (minutes between metrics), and the 2-minute floor for them on a fast one (a gap of
// 0.1 s would otherwise call a checkpoint write a stall). The median, not the mean: one long
// pause must not raise the threshold for good. Gaps are measured on our clock as events arrive
// (a remote host's clock may differ from ours).
double RunAlerts::stallSeconds(const QString& key) const {
    const auto it = runs_.constFind(key);
    if (it == runs_.constEnd() || it->intervals.size() < 3) return kMinStallSeconds;
    std::vector<double> gaps(it->intervals.begin(), it->intervals.end());
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
    return std::max(kMinStallSeconds, 10 * gaps[gaps.size() / 2]);
}

void RunAlerts::update(const QString& key) {
    auto it = runs_.find(key);
    if (it == runs_.end() || !it->series) return;
    Watched& w = *it;
    const RunSeries& s = *w.series;
    const bool live = w.alive && w.alive();
    const double now = clock_();
    const std::string& state = s.state();
    const bool running = state == RunState::kRunning;

    // New events: their pace (for the stall threshold), and the end of a stall.
    if (s.eventLines() != w.lines) {
        if (live && w.lastEventAt >= 0 && w.lines >= 0) {
            w.intervals.push_back(now - w.lastEventAt);
            if (w.intervals.size() > kIntervalsKept) w.intervals.pop_front();
        }
        if (live) w.lastEventAt = now;
        w.lines = s.eventLines();
        w.stalled = false;
    }
    if (live && w.lastEventAt < 0) w.lastEventAt = now;  // followed live from now on

    // The end: once. A terminal state seen before the trainer was seen alive is history.
    if (!w.ended && s.ended()) {
        w.ended = true;
        // Stopped: someone asked for it (the toolbar, `control stop`): nothing to tell.
        if (state != RunState::kStopped) raise(key, w, state == RunState::kFinished ? Kind::Finished : Kind::Crashed, live);
    }

    // Starving: every metrics row not looked at yet, in the trainer's time (rows are in time order;
    // a downsampled bucket's rows are its minimum and maximum, so "all above" still holds).
    const size_t n = s.rows();
    size_t i = n;
    while (i > 0 && s.wallTime(i - 1) > w.processedT) --i;
    for (; i < n; ++i) {
        const double t = s.wallTime(i);
        const float wait = s.value(Metric::DataWait, i);
        if (!std::isfinite(wait)) continue;  // an event without data_wait says nothing
        // Rows hold floats: the threshold at float precision, so a wait of exactly it is not above.
        if (wait > static_cast<float>(SystemPanel::kStarvingDataWait)) {
            if (w.starvingSince < 0) w.starvingSince = t;
            if (!w.starving && t - w.starvingSince >= kStarvingSeconds) {
                w.starving = true;
                raise(key, w, Kind::Starving, live && running && !w.ended);
            }
        } else {
            w.starvingSince = -1;
            w.starving = false;
        }
    }
    if (n > 0) w.processedT = s.wallTime(n - 1);

    // Stalled: running, seen alive, and silent for longer than its pace allows.
    if (live && running && !w.ended && !w.stalled && w.lastEventAt >= 0 && now - w.lastEventAt >= stallSeconds(key)) {
        w.stalled = true;
        raise(key, w, Kind::Stalled, true);
    }
}

void RunAlerts::raise(const QString& key, Watched& w, Kind kind, bool live) {
    if (!live) return;  // history: marked as seen, not told
    const RunSeries& s = *w.series;
    const QString run = w.host.isEmpty() ? w.title : tr("%1 on %2").arg(w.title, w.host);
    const QString step = s.lastStep() >= 0 ? QString::number(s.lastStep()) : tr("?");
    QString summary, body;
    switch (kind) {
        case Kind::Finished:
            summary = tr("%1 finished").arg(w.title);
            body = s.totalSteps() > 0 ? tr("%1 finished at step %2 of %3.").arg(run, step).arg(s.totalSteps()) : tr("%1 finished at step %2.").arg(run, step);
            break;
        case Kind::Crashed:
            if (s.state() == RunState::kFailed) {
                summary = tr("%1 failed").arg(w.title);
                body = s.errors().empty() ? tr("%1 failed at step %2 — see trainer.log in the run directory.").arg(run, step)
                                          : tr("%1 failed at step %2: %3").arg(run, step, QString::fromStdString(s.errors().back()));
            } else {
                summary = tr("%1 crashed").arg(w.title);
                body = tr("%1 crashed at step %2 — the trainer stopped without a final state.").arg(run, step);
            }
            break;
        case Kind::Stalled:
            summary = tr("%1 stalled").arg(w.title);
            body = tr("%1 stalled at step %2 — no new event for %3; the trainer may be hung or its machine overloaded.")
                       .arg(run, step, duration(clock_() - w.lastEventAt));
            break;
        case Kind::Starving:
            summary = tr("%1 is starving for data").arg(w.title);
            // The trainer's own advice when it gave one: the threads this machine has for it, or
            // the exact data pack command.
            body = s.loaderAdvice().empty()
                       ? tr("%1 is starving for data — over %2 % of each interval waiting for the loader for %3; use more --loader-threads or "
                            "pack the data (streetgan-trainer data pack).")
                             .arg(run)
                             .arg(qRound(100 * SystemPanel::kStarvingDataWait))
                             .arg(duration(kStarvingSeconds))
                       : tr("%1 is starving for data — over %2 % of each interval waiting for the loader for %3. The trainer says: %4")
                             .arg(run)
                             .arg(qRound(100 * SystemPanel::kStarvingDataWait))
                             .arg(duration(kStarvingSeconds), QString::fromStdString(s.loaderAdvice()));
            break;
    }
    emit alert(key, kind, summary, body);
    if (notifier_) notifier_->notify(key, summary, body, kind == Kind::Crashed);
}

}  // namespace streetgan::ui
