// One live plot (QCustomPlot) of a few metrics for every overlaid run, each run in its own colour
// (shades of it for its metrics) and named in the legend, which sits in a row above the axis rect
// so it never hides data: a raw graph per run and metric (on the "raw" layer under the others,
// faint: low alpha, when smoothing is on), an EMA-smoothed graph over it, x by step, epoch, time
// since the run's start or wall-clock time, log-y, zoom and pan (double-click resets), a
// crosshair read-out (vertical line and a label with each series' value at that x), an empty
// state saying what is awaited ("no run selected", "waiting for the first event from HOST"),
// PNG/SVG export. The data stay in RunSeries; before each replot the graphs get the visible range as a
// few thousand points from a MinMaxPyramid per series (so a million-row run replots in
// milliseconds and costs no copy per point). Replots are queued (rpQueuedReplot), so coalesced.
// Colours of background, axes, grid, text and legend follow the palette (and its changes).
// GUI thread only.
#pragma once

#include <QColor>
#include <QVector>
#include <QWidget>

#include <memory>
#include <vector>

#include "dashboard/MinMaxPyramid.h"
#include "events/RunSeries.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QMouseEvent;

namespace streetgan::ui {

/// What a plot's x axis shows. Relative is RunSeries' XAxisMode::WallTime (seconds since the
/// run's first event, so overlaid runs start together); WallClock is the time of day.
enum class PlotXAxis { Step, Epoch, Relative, WallClock };

class PlotPanel : public QWidget {
    Q_OBJECT
public:
    PlotPanel(const QString& title, QVector<Metric> metrics, QWidget* parent = nullptr);
    const QVector<Metric>& metrics() const { return metrics_; }
    ~PlotPanel() override;

    /// Plots `run` in `colour`, named `name` in the legend; `host` names where its events come
    /// from in the empty state ("this computer" when empty).
    void addRun(const RunSeries* run, const QString& name, const QColor& colour, const QString& host = {});
    /// The same in the palette's `runIndex`-th colour.
    void addRun(const RunSeries* run, const QString& name, int runIndex);
    void removeRun(const RunSeries* run);
    bool hasRun(const RunSeries* run) const;
    /// Takes rows [fromRow, rows()) of `run` into account (RunSeries::append's answer: rows from
    /// there are new or rewritten); call replot() after.
    void append(const RunSeries* run, size_t fromRow);
    /// Step, Epoch, or WallTime (= PlotXAxis::Relative).
    void setXMode(XAxisMode mode);
    void setXAxis(PlotXAxis x);
    PlotXAxis xAxisChoice() const { return x_; }
    /// EMA weight in [0, 1): 0 is off.
    void setSmoothing(double alpha);
    void setLogY(bool on);
    /// Recomputes smoothing and ranges from all the data (x mode or smoothing changed).
    void rebuild();
    /// Queues a replot (coalesced by QCustomPlot). A plot not on screen (another page or tab) only
    /// brings its graphs' data up to date (exports read them) and is drawn once shown.
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
    /// The crosshair read-out at plot x `key`: the x, then each series with a point near it.
    QString readoutAt(double key) const;
    /// Shows the crosshair at plot x `key` (the mouse does it; tests call it).
    void showCrosshair(double key);
    void hideCrosshair();
    bool crosshairVisible() const;
    QString crosshairText() const;
    /// The empty state shown over the axis rect ("" while data are drawn).
    QString emptyText() const;
    /// The note in the axis rect's corner once a plotted run is kept decimated (RunSeries past
    /// kMaxRows rows: each bucket of events kept as its min and max), "" while every event is a
    /// point: "min/max of every 64 events".
    QString decimationText() const;
    /// The raw and smoothed graphs of `run`'s `metric` (null when not plotted).
    QCPGraph* rawGraph(const RunSeries* run, Metric metric) const;
    QCPGraph* smoothGraph(const RunSeries* run, Metric metric) const;

signals:
    /// The user zoomed or panned the x axis (the dashboard links the other plots).
    void userXRangeChanged(double lower, double upper);
    /// The user went back to the full range (double-click).
    void viewReset();

private:
    struct Trace {
        const RunSeries* run = nullptr;
        Metric metric = Metric::LossD;
        QColor colour;
        QString host;
        QString name;   ///< the run's, as added
        QString label;  ///< its legend entry ("loss D · NAME", or NAME)
        int metricIndex = 0;
        QCPGraph* raw = nullptr;
        QCPGraph* smooth = nullptr;
        MinMaxPyramid rawLod, smoothLod;
        std::vector<float> ema;
        size_t rows = 0;      // rows taken into account
        bool logged = false;  // a finite value was taken (the run logs this metric)
    };
    void take(Trace& t);
    void refreshView();
    void updateRanges();
    void styleTrace(Trace& t);
    void styleTracePens(Trace& t);
    size_t rowAt(const RunSeries& r, double key) const;
    double keyOf(const RunSeries& r, size_t i) const;
    QString formatKey(double key) const;
    void onMouseMove(QMouseEvent* e);
    void updateEmptyState();
    void updateDecimationNote();
    /// A text item on the overlay layer at axis-rect ratio (x, y).
    QCPItemText* overlayText(double x, double y, Qt::Alignment alignment, int pointSize);
    /// Fits the ticks to the axis rect: as many as their labels have room for (labels running
    /// together read as one number: "10001250"), and the empty-state text wrapped to its width.
    void fitToSize();
    bool eventFilter(QObject* watched, QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void changeEvent(QEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void applyPalette();
    void updateLegendLayout();

    QString title_;
    QVector<Metric> metrics_;
    QCustomPlot* plot_;
    std::vector<std::unique_ptr<Trace>> traces_;
    QCPItemText* empty_;
    QCPItemText* decimated_;
    QString emptyRaw_;  ///< the empty-state text unwrapped (emptyText())
    QString fitKey_;    ///< what fitToSize() last measured
    QCPItemStraightLine* crossLine_;
    QCPItemText* crossLabel_;
    PlotXAxis x_ = PlotXAxis::Step;
    double alpha_ = 0;
    bool logY_ = false, userView_ = false, viewDirty_ = true, linking_ = false, replotWhenShown_ = false;
    double xMin_, xMax_, yMin_, yMax_, yMinPos_;
};

}  // namespace streetgan::ui
