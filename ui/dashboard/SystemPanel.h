// "Is my GPU starving?": the trainer's system readings ({"kind":"system"} events: CPU %, memory,
// GPU utilisation and memory, data read MB/s; "n/a" when absent), the last interval's images/s
// and data wait, progress, and a banner when data wait is high. GUI thread.
#pragma once

#include <QWidget>

class QLabel;

namespace streetgan::ui {

class RunSeries;

class SystemPanel : public QWidget {
    Q_OBJECT
public:
    /// Data wait above this fraction of the last interval shows the banner.
    static constexpr double kStarvingDataWait = 0.2;
    explicit SystemPanel(QWidget* parent = nullptr);
    void update(const RunSeries* run);
    bool bannerVisible() const;
    QString valueText(const QString& name) const;

private:
    QLabel* banner_;
    QLabel *device_, *progress_, *cpu_, *rss_, *gpu_, *gpuMem_, *read_, *imgs_, *wait_, *state_;
};

}  // namespace streetgan::ui
