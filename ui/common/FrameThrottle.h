// Runs a callback at most once per interval without losing the last request: a request made when
// the last run is at least an interval old runs now; one made sooner runs once, at the end of the
// interval (trailing), however many came in between. For views that need not follow every drain
// of a followed run (the system and cost panels, the runs list's live state; issue 48: little
// CPU). GUI thread (a QTimer of the thread it lives in).
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <functional>

namespace streetgan::ui {

class FrameThrottle : public QObject {
public:
    FrameThrottle(int intervalMs, std::function<void()> run, QObject* parent = nullptr);
    void request();
    /// Runs now when a request is waiting.
    void flush();
    /// Runs now, whatever the interval (a change that must show at once); a waiting request is
    /// served by it.
    void now() { fire(); }
    bool pending() const { return pending_; }

private:
    void fire();

    int interval_;
    std::function<void()> run_;
    QElapsedTimer last_;
    QTimer timer_;
    bool pending_ = false;
};

}  // namespace streetgan::ui
