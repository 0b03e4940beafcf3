// "Is my GPU starving?": the trainer's system readings ({"kind":"system"} events: CPU %, memory,
// data read MB/s, GPU utilisation and memory), the last interval's images/s and data wait,
// progress, and a banner when data wait is high. Only what is measured on the run's host shows: a
// reading the run never has (GPU rows of a CPU run, no NVIDIA driver, ...) hides its row, and one
// muted note says what is hidden and why (the reason the trainer wrote in the event's
// "unavailable", else what the run's device says); before the first reading the note says what
// is awaited and from where. GUI thread.
#pragma once

#include <QWidget>

#include "dashboard/RunContext.h"

class QFormLayout;
class QLabel;

namespace streetgan::ui {

class RunSeries;

class SystemPanel : public QWidget {
    Q_OBJECT
public:
    /// Data wait above this fraction of the last interval shows the banner.
    static constexpr double kStarvingDataWait = 0.2;
    explicit SystemPanel(QWidget* parent = nullptr);
    void update(const RunSeries* run, const RunContext& where = {});
    bool bannerVisible() const;
    /// The banner's rich text (shown or not).
    QString bannerText() const;
    /// The value of the row `name` ("CPU", "GPU", ...); a hidden row keeps "n/a".
    QString valueText(const QString& name) const;
    bool rowShown(const QString& name) const;
    /// The muted note under the rows (what is hidden and why, or what is awaited); "" when none.
    QString noteText() const;

private:
    void setShown(QLabel* row, bool shown);
    QFormLayout* form_;
    QLabel* banner_;
    QLabel* note_;
    QLabel *device_, *progress_, *cpu_, *rss_, *gpu_, *gpuMem_, *read_, *imgs_, *wait_, *state_;
};

}  // namespace streetgan::ui
