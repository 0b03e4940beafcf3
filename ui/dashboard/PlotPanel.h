// One live plot (QCustomPlot) of a few metrics for every overlaid run: a raw graph per run and
// metric (faint when smoothing is on), an EMA-smoothed graph over it, x by step, epoch or wall
// time, log-y, zoom and pan (double-click resets), a hover read-out of exact values, PNG/SVG
// export. The data stay in RunSeries; before each replot the graphs get the visible range as a
// few thousand points from a MinMaxPyramid per series (so a million-row run replots in
// milliseconds and costs no copy per point). Replots are queued (rpQueuedReplot), so coalesced.
// GUI thread only.
#pragma once

#include <QVector>
#include <QWidget>

#include <memory>
#include <vector>

#include "dashboard/MinMaxPyramid.h"
#include "events/RunSeries.h"

class QCustomPlot;
class QCPGraph;
class QMouseEvent;

namespace streetgan::ui {

class PlotPanel : public QWidget {
    Q_OBJECT
public:
    PlotPanel(const QString& title, QVector<Metric> metrics, QWidget* parent = nullptr);
    ~PlotPanel() override;

    void addRun(const RunSeries* run, const QString& name, int runIndex);
    void removeRun(const RunSeries* run);
    /// Takes rows [fromRow, rows()) of `run` into account (RunSeries::append's answer: rows from
    /// there are new or rewritten); call replot() after.
    void append(const RunSeries* run, size_t fromRow);
    void setXMode(XAxisMode mode);
    /// EMA weight in [0, 1): 0 is off.
    void setSmoothing(double alpha);
    void setLogY(bool on);
    /// Recomputes smoothing and ranges from all the data (x mode or smoothing changed).
    void rebuild();
    /// Queues a replot (coalesced by QCustomPlot).
    void replot();
    void resetView();
    /// Shows x in [lower, upper] as if the user had zoomed there (linked plots).
    void setUserXRange(double lower, double upper);

    QCustomPlot* plot() const { return plot_; }
    QString title() const { return title_; }
    /// Data points (finite values) plotted for `run`'s `metric` (-1: not in this plot); counted
    /// on each call (tests).
    int pointCount(const RunSeries* run, Metric metric) const;
    /// Points handed to QCustomPlot for the raw graph at the last replot (level of detail).
    int drawnPointCount(const RunSeries* run, Metric metric) const;
    /// The smoothed value of the row nearest to `key` (NaN when smoothing is off).
    double smoothedAt(const RunSeries* run, Metric metric, double key) const;
    bool exportPng(const QString& path, int width = 0, int height = 0);
    bool exportSvg(const QString& path);
    /// The hover read-out text at plot x `key` (tests).
    QString readoutAt(double key) const;

signals:
    /// The user zoomed or panned the x axis (the dashboard links the other plots).
    void userXRangeChanged(double lower, double upper);
    /// The user went back to the full range (double-click).
    void viewReset();

private:
    struct Trace {
        const RunSeries* run = nullptr;
        Metric metric = Metric::LossD;
        int runIndex = 0, metricIndex = 0;
        QCPGraph* raw = nullptr;
        QCPGraph* smooth = nullptr;
        MinMaxPyramid rawLod, smoothLod;
        std::vector<float> ema;
        size_t rows = 0;  // rows taken into account
    };
    void take(Trace& t);
    void refreshView();
    void updateRanges();
    void styleTrace(Trace& t);
    size_t rowAt(const RunSeries& r, double key) const;
    void onMouseMove(QMouseEvent* e);

    QString title_;
    QVector<Metric> metrics_;
    QCustomPlot* plot_;
    std::vector<std::unique_ptr<Trace>> traces_;
    XAxisMode xMode_ = XAxisMode::Step;
    double alpha_ = 0;
    bool logY_ = false, userView_ = false, viewDirty_ = true, linking_ = false;
    double xMin_, xMax_, yMin_, yMax_, yMinPos_;
};

}  // namespace streetgan::ui
