// When an open run deserves a desktop notification: watches each RunSession's series as it
// updates and raises one alert per transition it sees happen live:
//   finished  the state became finished;
//   crashed   the state became failed, or crashed (running or paused, and no trainer holds the
//             run lock any more: a trainer killed with SIGKILL; the attach follower detects it,
//             base/follow/AttachFollower, and RunSeries reports "crashed");
//   stalled   running, and no new event for stallSeconds() (re-armed by the next event);
//   starving  data wait above SystemPanel::kStarvingDataWait for >= kStarvingSeconds of run
//             time without a break (re-armed when it drops).
// Only what is seen live: a run is armed once its session saw the trainer alive
// (RunSession::trainerSeenAlive), so a run that ended before it was opened raises nothing, and a
// condition already met in the backlog read at opening is history, not news. Alerts go to the
// DesktopNotifier given (when one is) and out as alert(). Lives in app/ for kStarvingDataWait
// (dashboard/); the rules need only a RunSeries (watchSeries), so tests feed synthetic events and
// set the clock. GUI thread.
#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <deque>
#include <functional>

namespace streetgan::ui {

class DesktopNotifier;
class RunSeries;
class RunSession;

class RunAlerts : public QObject {
    Q_OBJECT
public:
    enum class Kind { Finished, Crashed, Stalled, Starving };
    Q_ENUM(Kind)

    /// Data wait must stay above the threshold this long (seconds of the trainer's clock).
    static constexpr double kStarvingSeconds = 60;
    /// The floor of the stall threshold (seconds): see stallSeconds().
    static constexpr double kMinStallSeconds = 120;
    /// How often silence is checked (stalls have no event to trigger on).
    static constexpr int kCheckIntervalMs = 5000;

    /// `notifier` (may be null: alert() only) is not owned.
    explicit RunAlerts(DesktopNotifier* notifier = nullptr, QObject* parent = nullptr);

    /// Watches an open session until it is destroyed (again after a reopen: a fresh start).
    void watch(RunSession* session);
    /// Watches a bare series under `key` (tests; watch() uses it): `alive` says whether the
    /// trainer was seen alive, `title`/`host` name the run in the text. Call update(key) after
    /// each change of the series.
    void watchSeries(const QString& key, const QString& title, const QString& host, const RunSeries* series, std::function<bool()> alive);
    /// Applies the rules to the run's series now (after an append; every kCheckIntervalMs).
    void update(const QString& key);
    /// Seconds (the clock's) since the last new event after which a running run is stalled.
    double stallSeconds(const QString& key) const;
    /// Seconds now; the wall clock by default (tests set their own).
    void setClock(std::function<double()> clock) { clock_ = std::move(clock); }
    /// The session of a run key (null when it was closed since).
    RunSession* session(const QString& key) const;

signals:
    /// One line each: `summary` (e.g. "tiny-1 crashed"), `body` (the run, its host, what happened).
    void alert(const QString& key, streetgan::ui::RunAlerts::Kind kind, const QString& summary, const QString& body);
    /// A notification of the run was clicked: `session` (null when closed since) and, for a local
    /// run, its directory (to open it again).
    void openRequested(streetgan::ui::RunSession* session, const QString& localRunDir);

private:
    struct Watched {
        QPointer<RunSession> session;
        QString title, host, localDir;
        const RunSeries* series = nullptr;
        std::function<bool()> alive;
        bool ended = false;            // a terminal state was seen (raised or history)
        int64_t lines = -1;            // series eventLines() at the last update
        double lastEventAt = -1;       // clock at the last new event seen live
        std::deque<double> intervals;  // clock gaps between the last new events seen live
        bool stalled = false;
        double processedT = -1;     // trainer time of the last metrics row looked at
        double starvingSince = -1;  // trainer time the current starving stretch began
        bool starving = false;
    };

    void raise(const QString& key, Watched& w, Kind kind, bool live);
    void checkAll();

    QPointer<DesktopNotifier> notifier_;  // a sibling under the main window, maybe deleted first
    QHash<QString, Watched> runs_;
    QTimer timer_;
    std::function<double()> clock_;
};

}  // namespace streetgan::ui
